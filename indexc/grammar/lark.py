"""Lark grammar -> ``Grammar`` IR: resolve names, expand terminals into regexes, lower rules.

The steps, after ``lark_parser`` has read the text:

1. ``%import common.X`` adds a terminal definition from ``lark_common``.
2. Names are checked (``checks.check_references``): an undefined name is an error at the
   reference; a rule or terminal the start rule and ``%ignore`` never reach is a warning and
   is left out of the IR.
3. Each named terminal becomes *one* regex: the terminals it mentions are expanded in place,
   so ``INT: DIGIT+`` is ``(?:[0-9])+``.  A terminal that mentions itself (directly or not) or
   mentions a rule is an error: terminals are regular.  A terminal whose lazy quantifier
   decides where ``re.match`` ends it (``".*?"``) is then written as the greedy regex of those
   ends (``lazy_ends``).
4. Rules are lowered to BNF (``lowering``); inline literals and ``/regex/`` in rules become
   anonymous terminals named as written (``"if"``, ``/[0-9]+/``).
5. ``%ignore`` takes terminal names or inline lexemes; each becomes an ignored terminal.
6. Every non-literal terminal is compiled once with ``indexc.automaton.compile_regex`` so a bad
   or empty regex is reported at its line and column (about 1 ms per terminal).
7. Unproductive rules are removed with a warning; an empty language is an error (``checks``).

Semantics kept, and not: the IR is the language of the grammar with each terminal standing for
its regex's language and ignored terminals allowed between terminals, lexed by longest match
(``lexing = "longest_match"``): Lark's default parser (Earley, ``lexer="dynamic"``) matches each
expected terminal's regex with ``re.match`` at a position, one length per terminal, and
``indexc.grammar.longest_match`` says where indexc's rule is that one and where it is not.
Terminal priorities only choose between competing matches and are not kept.  ``%declare``d
terminals (made by Lark post-lexers, e.g. indentation) have no definition and are an error
where a rule uses them.
"""

from __future__ import annotations

from dataclasses import replace

from indexc.automaton import compile_regex
from indexc.errors import LimitError, RegexError
from indexc.grammar.checks import check_references, trim
from indexc.grammar.expression import Definition, Expr, Lexeme, Ref, display, first_offset, lexemes, references
from indexc.grammar.ir import Grammar, Terminal
from indexc.grammar.lark_common import COMMON_TERMINALS
from indexc.grammar.lark_parser import LarkFile, parse_lark_text
from indexc.grammar.lazy_ends import first_match_regex
from indexc.grammar.lowering import BnfBuilder
from indexc.grammar.regex_text import expression_regex
from indexc.grammar.source_position import error_at

DEFAULT_START = "start"


def parse_lark(text: str, *, source: str = "<lark>", start: str = DEFAULT_START) -> Grammar:
    """The IR of a Lark grammar; raises ``GrammarError`` with line and column."""
    lark_file = parse_lark_text(text, source)
    definitions = _with_imports(lark_file, text, source)
    _check_declared_uses(lark_file, definitions, text, source)
    reachable, warnings = _check_names(lark_file, definitions, start, text, source)
    grammar = _lower(lark_file, definitions, reachable, start, _TerminalExpander(definitions, text, source))
    grammar = replace(grammar, warnings=tuple(warnings), terminals=_lazy_ends_rewritten(grammar.terminals))
    _compile_terminals(grammar, definitions, text)
    offsets = {name: definition.offset for name, definition in definitions.items()}
    return trim(grammar, offsets, text)


def _check_names(
    lark_file: LarkFile, definitions: dict[str, Definition], start: str, text: str, source: str
) -> tuple[set[str], list[str]]:
    """(names reachable from the start rule and %ignore, warnings); undefined names raise."""
    if start not in definitions or definitions[start].is_terminal:
        raise error_at(text, 0, f"no start rule {start!r}", source)
    ignored_refs = [ref for expr, _ in lark_file.ignores for ref in references(expr)]
    for ref in ignored_refs:
        if ref.name not in definitions:
            raise error_at(text, ref.offset, f"%ignore names the undefined terminal {ref.name!r}", source)
    return check_references(definitions, [start] + [ref.name for ref in ignored_refs], text, source)


def _lower(
    lark_file: LarkFile, definitions: dict[str, Definition], reachable: set[str], start: str,
    expander: _TerminalExpander,
) -> Grammar:
    """Named terminals first (so inline lexemes can reuse them), then rules, then %ignore."""
    builder = BnfBuilder(reserved_names=frozenset(definitions))
    for name in sorted(reachable):
        body = definitions[name].body
        if definitions[name].is_terminal:
            builder.add_named_terminal(name, expander.regex(name), isinstance(body, Lexeme) and body.is_literal)
    for name, definition in definitions.items():
        if name in reachable and not definition.is_terminal:
            builder.define(name, definition.body)
    ignore = [_ignored_terminal(builder, expr, expander) for expr, _ in lark_file.ignores]
    return Grammar(start, tuple(builder.rules), builder.terminals, tuple(dict.fromkeys(ignore)), expander.source,
                   lexing="longest_match")


def _lazy_ends_rewritten(terminals: dict[str, Terminal]) -> dict[str, Terminal]:
    """Each terminal whose lazy quantifier decides where ``re.match`` ends it, as the greedy
    regex of those ends (``lazy_ends``); the others as they are."""
    out = {}
    for name, terminal in terminals.items():
        regex = None if terminal.is_literal else first_match_regex(terminal.regex)
        out[name] = terminal if regex is None else replace(terminal, regex=regex)
    return out


def _with_imports(lark_file: LarkFile, text: str, source: str) -> dict[str, Definition]:
    definitions = dict(lark_file.definitions)
    imported: set[tuple[str, str]] = set()
    for imp in lark_file.imports:
        if imp.name not in COMMON_TERMINALS:
            raise error_at(text, imp.offset, f"common has no terminal {imp.name!r}", source)
        if (imp.name, imp.alias) in imported:
            continue  # the same import twice
        imported.add((imp.name, imp.alias))
        if imp.alias in definitions:
            raise error_at(text, imp.offset, f"{imp.alias!r} is imported and also defined", source)
        lexeme = Lexeme(COMMON_TERMINALS[imp.name], f"common.{imp.name}", False, imp.offset)
        definitions[imp.alias] = Definition(imp.alias, lexeme, imp.offset, is_terminal=True)
    return definitions


def _check_declared_uses(lark_file: LarkFile, definitions: dict[str, Definition], text: str, source: str) -> None:
    undefined_declared = set(lark_file.declared) - set(definitions)
    for definition in definitions.values():
        for ref in references(definition.body):
            if ref.name in undefined_declared:
                raise error_at(
                    text,
                    ref.offset,
                    f"{ref.name!r} is only %declare'd: it has no definition "
                    "(Lark post-lexers make such terminals; indexc has none)",
                    source,
                )


class _TerminalExpander:
    """The regex of each named terminal, other terminals expanded in place (memoised)."""

    def __init__(self, definitions: dict[str, Definition], text: str, source: str):
        self.definitions = definitions
        self.text = text
        self.source = source
        self.done: dict[str, str] = {}
        self.in_progress: list[str] = []

    def regex(self, name: str) -> str:
        if name in self.done:
            return self.done[name]
        self.in_progress.append(name)
        regex = expression_regex(self.definitions[name].body, self.resolve)
        self.in_progress.pop()
        self.done[name] = regex
        return regex

    def resolve(self, ref: Ref) -> str:
        definition = self.definitions[ref.name]
        if not definition.is_terminal:
            owner = self.in_progress[-1] if self.in_progress else "%ignore"
            raise error_at(self.text, ref.offset, f"terminal {owner!r} refers to the rule {ref.name!r}", self.source)
        if ref.name in self.in_progress:
            raise error_at(self.text, ref.offset, f"terminal {ref.name!r} is recursive (terminals must be regular)", self.source)
        return self.regex(ref.name)


def _ignored_terminal(builder: BnfBuilder, expr: Expr, expander: _TerminalExpander) -> str:
    if isinstance(expr, Ref):
        expander.resolve(expr)  # a rule name is an error
        return expr.name
    regex = expression_regex(expr, expander.resolve)
    return builder.terminal(Lexeme(regex, display(expr), False, first_offset(expr)))


def _compile_terminals(grammar: Grammar, definitions: dict[str, Definition], text: str) -> None:
    """Compile every non-literal terminal once: a bad or empty regex is an error at its place."""
    anonymous_offsets = {
        lexeme.regex: lexeme.offset for definition in definitions.values() for lexeme in lexemes(definition.body)
    }
    for terminal in grammar.terminals.values():
        if terminal.is_literal:
            continue
        try:
            compile_regex(terminal.regex, source=grammar.source)
        except (RegexError, LimitError) as exc:
            definition = definitions.get(terminal.name)
            offset = definition.offset if definition else anonymous_offsets.get(terminal.regex, 0)
            raise error_at(text, max(offset, 0), f"terminal {terminal.name}: {exc.message}", grammar.source) from exc


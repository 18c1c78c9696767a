"""Lark grammar text -> definitions and directives (recursive descent over ``lark_tokens``).

What is read, and what it means here:

- ``name: expansions`` (a rule) and ``NAME: expansions`` (a terminal: the name's first letter
  after any ``_`` is upper case); a ``?`` or ``!`` before a rule name and ``-> alias`` after an
  alternative shape Lark's parse tree only and are read and dropped; priorities (``rule.2:``,
  ``TERM.-1:``) are read and ignored (they choose between parse trees or between overlapping
  terminals in Lark's lexer; the *language* does not depend on them).
- expansions: alternatives ``|``, sequences, groups ``( )``, optionals ``[ ]`` (Lark's
  ``maybe``; same language as ``?``), ``* + ?``, ``~ n`` / ``~ n..m``, and llguidance's
  ``{n}``, ``{n,}``, ``{,m}``, ``{n,m}``; atoms: names, ``"literal"`` / ``"literal"i``,
  ``/regex/flags``, ``"a".."z"`` ranges.  The empty literal ``""`` is the empty sequence.
- directives: ``%ignore``, ``%import common.X [-> Y]``, ``%import common (X, Y)``,
  ``%declare``, ``%override``, ``%extend``.

Refused with line and column: templates (``rule{a}:`` and ``rule{x}`` uses), imports other than
``common``, the regex flags ``x`` and ``l`` (verbose and locale regexes have no indexc
meaning), and llguidance-only syntax: ``%llguidance``, ``%json``, ``%regex``, lexeme options
(``name[lazy]:``); ``<special>``, ``@sub`` and ``&`` are refused by the tokenizer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from indexc.grammar.expression import EMPTY, Definition, Expr, Lexeme, Ref, Repeat, alternation, sequence
from indexc.grammar.ir import GrammarError
from indexc.grammar.lark_tokens import Token, tokenize
from indexc.grammar.lowering import MAX_REPEAT_COUNT
from indexc.grammar.regex_text import class_regex, literal_regex
from indexc.grammar.source_position import error_at

_LLGUIDANCE_DIRECTIVES = frozenset({"%llguidance", "%json", "%regex", "%lark"})
_GLOBAL_FLAGS = re.compile(r"^\(\?([a-zA-Z]+)\)")


@dataclass
class Import:
    name: str      # the common terminal
    alias: str     # the name it is defined under
    offset: int


@dataclass
class LarkFile:
    """Everything a Lark text says, before names are resolved."""

    definitions: dict[str, Definition] = field(default_factory=dict)
    ignores: list[tuple[Expr, int]] = field(default_factory=list)
    imports: list[Import] = field(default_factory=list)
    declared: dict[str, int] = field(default_factory=dict)


def parse_lark_text(text: str, source: str) -> LarkFile:
    """Parse a Lark grammar; raises ``GrammarError`` with line and column."""
    return _Parser(text, source).parse()


def is_terminal_name(name: str) -> bool:
    """Lark's convention: ``NAME``/``_NAME`` are terminals, ``name``/``_name`` rules."""
    return name.lstrip("_")[:1].isupper()


class _Parser:
    def __init__(self, text: str, source: str):
        self.text = text
        self.source = source
        self.tokens = tokenize(text, source)
        self.index = 0
        self.file = LarkFile()

    # --- token helpers ---------------------------------------------------------------------

    def error(self, offset: int, message: str) -> GrammarError:
        return error_at(self.text, offset, message, self.source)

    @property
    def peek(self) -> Token:
        return self.tokens[self.index]

    def at_op(self, *ops: str) -> bool:
        return self.peek.kind == "OP" and self.peek.text in ops

    def advance(self) -> Token:
        token = self.tokens[self.index]
        self.index += 1
        return token

    def expect(self, kind: str, text: str | None = None) -> Token:
        token = self.peek
        if token.kind != kind or (text is not None and token.text != text):
            wanted = repr(text) if text is not None else kind.lower()
            found = {"NL": "the end of the line", "EOF": "the end of the grammar"}.get(token.kind, repr(token.text))
            raise self.error(token.offset, f"expected {wanted}, found {found}")
        return self.advance()

    # --- statements ------------------------------------------------------------------------

    def parse(self) -> LarkFile:
        while self.peek.kind != "EOF":
            if self.peek.kind == "NL":
                self.advance()
                continue
            self.statement()
            if self.peek.kind != "EOF":
                self.expect("NL")
        return self.file

    def statement(self) -> None:
        token = self.peek
        if token.kind == "DIRECTIVE":
            self.directive()
        elif token.kind == "NAME" or self.at_op("?", "!"):
            definition = self.definition()
            if definition.name in self.file.definitions:
                raise self.error(definition.offset, f"{definition.name!r} is defined twice (use %override to replace)")
            self.file.definitions[definition.name] = definition
        else:
            raise self.error(token.offset, f"expected a rule, a terminal or a directive, found {token.text!r}")

    def definition(self) -> Definition:
        if self.at_op("?", "!"):
            self.advance()  # tree-shaping markers: no effect on the language
        name_token = self.expect("NAME")
        if self.at_op("."):
            self.advance()
            self.expect("NUMBER")  # priority: read and ignored (see module note)
        if self.at_op("{"):
            raise self.error(self.peek.offset, "templates (rule parameters) are not supported")
        if self.at_op("["):
            raise self.error(self.peek.offset, "lexeme options name[...] are an llguidance extension, not supported")
        self.expect("OP", ":")
        if self.at_op("|"):
            self.advance()
        body = self.expansions()
        return Definition(name_token.text, body, name_token.offset, is_terminal_name(name_token.text))

    def directive(self) -> None:
        token = self.advance()
        if token.text in _LLGUIDANCE_DIRECTIVES:
            raise self.error(token.offset, f"{token.text} is an llguidance extension, not supported")
        if token.text == "%ignore":
            self.file.ignores.append((self.expansions(), token.offset))
        elif token.text == "%import":
            self.import_statement()
        elif token.text == "%declare":
            names = [self.expect("NAME")]
            while self.peek.kind == "NAME":
                names.append(self.advance())
            self.file.declared.update((name.text, name.offset) for name in names)
        elif token.text in ("%override", "%extend"):
            self.change_definition(token)
        else:
            raise self.error(token.offset, f"unknown directive {token.text}")

    def import_statement(self) -> None:
        path = [self.expect("NAME")]
        if path[0].offset > 0 and self.text[path[0].offset - 1] == ".":
            raise self.error(path[0].offset, "relative imports are not supported (only %import common)")
        while self.at_op("."):
            self.advance()
            path.append(self.expect("NAME"))
        if self.at_op("("):
            module, names = path, self.name_list()
            imports = [(name, name) for name in names]
        else:
            if len(path) < 2:
                raise self.error(path[0].offset, "expected %import module.NAME")
            module, last = path[:-1], path[-1]
            alias = last
            if self.at_op("->"):
                self.advance()
                alias = self.expect("NAME")
            imports = [(last, alias)]
        if [part.text for part in module] != ["common"]:
            dotted = ".".join(part.text for part in module)
            raise self.error(module[0].offset, f"only %import common is supported, not {dotted!r}")
        for name, alias in imports:
            self.file.imports.append(Import(name.text, alias.text, name.offset))

    def name_list(self) -> list[Token]:
        self.expect("OP", "(")
        names = [self.expect("NAME")]
        while self.at_op(","):
            self.advance()
            names.append(self.expect("NAME"))
        self.expect("OP", ")")
        return names

    def change_definition(self, directive: Token) -> None:
        definition = self.definition()
        existing = self.file.definitions.get(definition.name)
        imported = any(imp.alias == definition.name for imp in self.file.imports)
        if existing is None and not imported:
            raise self.error(definition.offset, f"{directive.text} of {definition.name!r}, which is not defined yet")
        if directive.text == "%override" or existing is None:
            if directive.text == "%extend":
                raise self.error(definition.offset, f"%extend of the imported terminal {definition.name!r} is not supported")
            self.file.imports = [imp for imp in self.file.imports if imp.alias != definition.name]
            self.file.definitions[definition.name] = definition
        else:
            body = alternation([existing.body, definition.body])
            self.file.definitions[definition.name] = Definition(existing.name, body, existing.offset, existing.is_terminal)

    # --- expansions ------------------------------------------------------------------------

    def expansions(self) -> Expr:
        options = [self.alias()]
        while self.at_op("|"):
            self.advance()
            options.append(self.alias())
        return alternation(options)

    def alias(self) -> Expr:
        expansion = self.expansion()
        if self.at_op("->"):
            self.advance()
            self.expect("NAME")  # tree alias: no effect on the language
        return expansion

    def expansion(self) -> Expr:
        items = []
        while self.starts_atom():
            items.append(self.expression())
        return sequence(items)

    def starts_atom(self) -> bool:
        token = self.peek
        if token.kind == "DIRECTIVE" and token.text in _LLGUIDANCE_DIRECTIVES:
            raise self.error(token.offset, f"{token.text} is an llguidance extension, not supported")
        return token.kind in ("NAME", "STRING", "REGEX") or self.at_op("(", "[")

    def expression(self) -> Expr:
        atom = self.atom()
        token = self.peek
        if self.at_op("*", "+", "?"):
            self.advance()
            low, high = {"*": (0, None), "+": (1, None), "?": (0, 1)}[token.text]
            return Repeat(atom, low, high)
        if self.at_op("~"):
            self.advance()
            low = self.expect("NUMBER")
            high = low
            if self.at_op(".."):
                self.advance()
                high = self.expect("NUMBER")
            return self.bounded(atom, low, int(low.value), int(high.value))
        if self.at_op("{"):
            return self.braced_repeat(atom)
        return atom

    def braced_repeat(self, atom: Expr) -> Expr:
        brace = self.advance()
        if self.peek.kind != "NUMBER" and not self.at_op(","):
            raise self.error(self.peek.offset, "templates (rule{...} usage) are not supported")
        low = self.advance() if self.peek.kind == "NUMBER" else None
        high: Token | None = low
        if self.at_op(","):
            self.advance()
            high = self.advance() if self.peek.kind == "NUMBER" else None
        if low is None and high is None:
            raise self.error(brace.offset, "expected a repetition count in {...}")
        self.expect("OP", "}")
        return self.bounded(atom, brace, 0 if low is None else int(low.value), None if high is None else int(high.value))

    def bounded(self, atom: Expr, where: Token, low: int, high: int | None) -> Expr:
        if low < 0 or (high is not None and high < low):
            raise self.error(where.offset, f"bad repetition bounds {low}..{high}")
        if max(low, high or 0) > MAX_REPEAT_COUNT:
            raise self.error(where.offset, f"repetition count above the limit of {MAX_REPEAT_COUNT}")
        return Repeat(atom, low, high)

    def atom(self) -> Expr:
        token = self.advance()
        if token.kind == "NAME":
            return Ref(token.text, token.offset)
        if token.kind == "STRING":
            return self.string_atom(token)
        if token.kind == "REGEX":
            return self.regex_atom(token)
        closer = ")" if token.text == "(" else "]"
        body = self.expansions()
        self.expect("OP", closer)
        return body if closer == ")" else Repeat(body, 0, 1)

    def string_atom(self, token: Token) -> Expr:
        value, ignore_case = token.value
        if self.at_op(".."):
            self.advance()
            high_token = self.expect("STRING")
            high, _ = high_token.value
            if len(value) != 1 or len(high) != 1 or ord(high) < ord(value):
                raise self.error(token.offset, 'a range "a".."z" needs two single characters in order')
            return Lexeme(class_regex([(ord(value), ord(high))]), f"{token.text}..{high_token.text}", False, token.offset)
        if not value:
            return EMPTY
        regex = literal_regex(value)
        if ignore_case:
            regex = f"(?i:{regex})"
        return Lexeme(regex, token.text, not ignore_case, token.offset)

    def regex_atom(self, token: Token) -> Lexeme:
        pattern, flags = token.value
        for flag in flags:
            if flag in "xl":
                raise self.error(token.offset, f"regex flag {flag!r} is not supported")
        scoped = "".join(flag for flag in flags if flag in "is")
        global_flags = _GLOBAL_FLAGS.match(pattern)
        if global_flags:
            scoped += global_flags.group(1)
            pattern = pattern[global_flags.end() :]
        regex = f"(?{scoped}:{pattern})" if scoped else pattern
        return Lexeme(regex, token.text, False, token.offset)

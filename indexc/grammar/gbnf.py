"""llama.cpp GBNF -> ``Grammar`` IR, keeping GBNF's character-level language exactly.

Steps: ``gbnf_parser`` reads the rules; ``checks.check_references`` rejects undefined names (at
the reference) and warns about rules ``root`` never reaches (they are left out);
``gbnf_folding`` turns every regular part into one terminal (see there why this keeps the
language); ``lowering`` desugars what remains to BNF; every terminal is compiled once so a
class that matches nothing is reported at its line; ``checks.trim`` removes unproductive rules
(warning) and rejects an empty language.

The IR has no ``ignore``: GBNF spells out every space.  Its meaning is the all-splits one (a
terminal may end wherever its regex matches): that is how llama.cpp applies a grammar, and why
``arithmetic.gbnf`` accepts ``a=b\\n`` although a greedy lexer would let ``ws`` swallow the
``\\n`` the rule needs next.
"""

from __future__ import annotations

from indexc.automaton import compile_regex
from indexc.errors import LimitError, RegexError
from indexc.grammar.checks import check_references, trim
from indexc.grammar.expression import lexemes
from indexc.grammar.gbnf_folding import fold_regular_parts
from indexc.grammar.gbnf_parser import parse_gbnf_text
from indexc.grammar.ir import Grammar
from indexc.grammar.lowering import BnfBuilder
from indexc.grammar.source_position import error_at

ROOT = "root"


def parse_gbnf(text: str, *, source: str = "<gbnf>", start: str = ROOT, fold: bool = True) -> Grammar:
    """The IR of a GBNF grammar; raises ``GrammarError`` with line and column.

    ``fold=False`` skips ``gbnf_folding``: one terminal per literal and class, every rule kept
    (the same language; the tests compare the two).
    """
    definitions = parse_gbnf_text(text, source)
    if start not in definitions:
        raise error_at(text, 0, f"no {start!r} rule", source)
    reachable, warnings = check_references(definitions, [start], text, source)
    used = {name: definitions[name] for name in definitions if name in reachable}
    if fold:
        folded = fold_regular_parts(used, start)
        bodies, compiled = folded.bodies, folded.compiled
    else:
        bodies, compiled = {name: d.body for name, d in used.items()}, set()

    builder = BnfBuilder(reserved_names=frozenset(bodies))  # a folded rule's name may name its terminal
    for name, body in bodies.items():
        builder.define(name, body)
    grammar = Grammar(start=start, rules=tuple(builder.rules), terminals=builder.terminals, source=source,
                      warnings=tuple(warnings))
    _compile_terminals(grammar, bodies, text, compiled)
    offsets = {name: definition.offset for name, definition in definitions.items()}
    return trim(grammar, offsets, text)


def _compile_terminals(grammar: Grammar, bodies: dict, text: str, compiled: set[str]) -> None:
    """Compile each non-literal terminal once (folding compiled some already); errors point
    at the lexeme that made the terminal."""
    offsets = {lexeme.regex: lexeme.offset for body in bodies.values() for lexeme in lexemes(body)}
    for terminal in grammar.terminals.values():
        if terminal.is_literal or terminal.regex in compiled:
            continue
        try:
            compile_regex(terminal.regex, source=grammar.source)
        except (RegexError, LimitError) as exc:
            offset = max(offsets.get(terminal.regex, 0), 0)
            raise error_at(text, offset, f"{terminal.name}: {exc.message}", grammar.source) from exc

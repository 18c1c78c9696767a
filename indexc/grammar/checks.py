"""Whole-grammar checks: undefined and unreachable symbols, unproductive rules, empty language.

Two levels, because each question is best asked where its answer is cheapest and clearest:

- on the *source* definitions (before lowering), with positions: an undefined name is an
  error at the reference; a definition that the start rule (or ``%ignore``) cannot reach is a
  warning at the definition;
- on the *IR* (after lowering, where repetitions are plain rules): productivity.  A rule that
  derives no finite string (``a: "x" a``) is a warning and is removed, with every rule that
  uses it; a start symbol that derives nothing is an error (the language is empty).

After ``trim``, every rule of the IR is reachable and productive and every terminal is used.
The Earley path relies on that: any item it predicts can still be completed, so "an item
exists" means "the text is a viable prefix".
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace

from indexc.grammar.expression import Definition, references
from indexc.grammar.ir import Grammar
from indexc.grammar.source_position import error_at, note_at


def check_references(
    definitions: Mapping[str, Definition], roots: Iterable[str], text: str, source: str
) -> tuple[set[str], list[str]]:
    """(names reachable from ``roots``, warnings); raises at the first undefined reference."""
    for definition in definitions.values():
        for ref in references(definition.body):
            if ref.name not in definitions:
                raise error_at(text, ref.offset, f"undefined symbol {ref.name!r} (in {definition.name!r})", source)
    reachable: set[str] = set()
    pending = [name for name in roots if name in definitions]
    while pending:
        name = pending.pop()
        if name in reachable:
            continue
        reachable.add(name)
        pending.extend(ref.name for ref in references(definitions[name].body))
    warnings = [
        note_at(text, definition.offset, f"{_kind(definition)} {name!r} is never used (unreachable from the start rule)")
        for name, definition in definitions.items()
        if name not in reachable
    ]
    return reachable, warnings


def trim(grammar: Grammar, offsets: Mapping[str, int], text: str) -> Grammar:
    """``grammar`` without unproductive and unreachable symbols, plus warnings for the former."""
    productive = productive_symbols(grammar)
    if grammar.start not in productive:
        raise error_at(
            text,
            offsets.get(grammar.start, 0),
            f"the grammar's language is empty: start rule {grammar.start!r} derives no finite string",
            grammar.source,
        )
    warnings = [
        note_at(text, offsets.get(name, 0), f"rule {name!r} derives no finite string (unproductive); removed")
        for name in sorted(grammar.nonterminals - productive)
        if "." not in name
    ]
    rules = [rule for rule in grammar.rules if rule.lhs in productive and all(s in productive for s in rule.rhs)]
    used = reachable_symbols(grammar.start, rules)
    rules = [rule for rule in rules if rule.lhs in used]
    kept_terminals = used | set(grammar.ignore)
    terminals = {name: t for name, t in grammar.terminals.items() if name in kept_terminals}
    return replace(grammar, rules=tuple(rules), terminals=terminals, warnings=grammar.warnings + tuple(warnings))


def productive_symbols(grammar: Grammar) -> set[str]:
    """Terminals, and nonterminals with a rule whose symbols are all productive (fixpoint)."""
    productive = set(grammar.terminals)
    changed = True
    while changed:
        changed = False
        for rule in grammar.rules:
            if rule.lhs not in productive and all(symbol in productive for symbol in rule.rhs):
                productive.add(rule.lhs)
                changed = True
    return productive


def reachable_symbols(start: str, rules) -> set[str]:
    """Every symbol (nonterminals and terminals) some derivation from ``start`` uses."""
    by_lhs: dict[str, list[tuple[str, ...]]] = {}
    for rule in rules:
        by_lhs.setdefault(rule.lhs, []).append(rule.rhs)
    seen, pending = set(), [start]
    while pending:
        symbol = pending.pop()
        if symbol not in seen:
            seen.add(symbol)
            for rhs in by_lhs.get(symbol, ()):
                pending.extend(rhs)
    return seen


def _kind(definition: Definition) -> str:
    return "terminal" if definition.is_terminal else "rule"

"""Split shared symbols by what follows them: one copy per distinct follow context.

Why: the compiler decides most tokens ahead of time per *lexer state*, with FOLLOW sets that
are grammar-wide (``boundary_masks``, ``undecided_tokens``).  A JSON Schema grammar has one
whitespace lexeme, used before every comma, bracket, key and value, so FOLLOW(ws) is nearly
every terminal, and a token that ends a number, takes a space and starts anything at all
(`` "!``, ``\\tfalse``) lands in the number's *undecided* set: the runtime steps it through
the parser at every new configuration, only to find it dead.  On MaskBench's
Github_trivial---o36276 that was 90,323 stepped tokens along four instances, 84% of them
starting with whitespace and 2.8% alive, and ~0.75 us each: most of its 309 masks over
200 us.

With one copy of ``ws -> ε | WS`` per distinct follow context (``ws`` before a comma,
before the items of a list of numbers, ...), each copy's lexeme has a FOLLOW of a few
terminals, and the undecided sets keep only the tokens that can really go on.  The language
is unchanged (every copy is the same regular language in the same places), so the masks are
too; what changes is how much of them is decided ahead of time.  Costs: a few more lexer
states (the whitespace DFA once per context) and, where two contexts are expected at one
position (before ``,`` and before ``]``), two lexer threads on the same bytes.

The follow context of an occurrence ``A -> alpha . X beta`` is FIRST(beta), plus FOLLOW(A)
when ``beta`` may derive nothing.  Occurrences with the same context share a copy; the first
context keeps the original names.  Only the grouping depends on these sets, never the
language, so an approximate FIRST (terminals treated as non-empty) cannot make a mask wrong.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Iterable

from indexc_runtime.grammar.first_follow import first_of_sequence, first_sets, follow_sets, nullable_symbols
from indexc.grammar.ir import Grammar, Rule


def split_by_follow(grammar: Grammar, symbols: Iterable[str]) -> Grammar:
    """``grammar`` with each of ``symbols`` copied once per distinct follow context of its
    occurrences: a terminal is cloned, a nonterminal gets a copy of its rules with the
    terminals they name cloned too.  A symbol with one context keeps its single copy."""
    symbols = [s for s in symbols if s in grammar.terminals or s in grammar.nonterminals]
    contexts = _occurrence_contexts(grammar, set(symbols))
    taken = set(grammar.terminals) | grammar.nonterminals
    copies: dict[str, list[dict[str, str]]] = {}  # symbol -> per copy, original name -> its name there
    group_of: dict[tuple[int, int], int] = {}
    for symbol in symbols:
        groups: dict[frozenset[str], int] = {}
        for where, context in contexts.items():
            if grammar.rules[where[0]].rhs[where[1]] == symbol:
                group_of[where] = groups.setdefault(context, len(groups))
        own = [symbol] + sorted({t for r in grammar.rules if r.lhs == symbol for t in r.rhs if t in grammar.terminals})
        copies[symbol] = [{name: name for name in own}]
        copies[symbol] += [{name: _fresh(f"{name}__f{k}", taken) for name in own} for k in range(1, len(groups))]
    if all(len(renamings) == 1 for renamings in copies.values()):
        return grammar
    rules = [Rule(r.lhs, tuple(copies[x][group_of[(i, j)]][x] if x in copies else x for j, x in enumerate(r.rhs)))
             for i, r in enumerate(grammar.rules)]
    terminals = dict(grammar.terminals)
    for symbol, renamings in copies.items():
        own_rules = [r for r in rules if r.lhs == symbol]
        for renamed in renamings[1:]:
            rules.extend(Rule(renamed[symbol], tuple(renamed.get(x, x) for x in r.rhs)) for r in own_rules)
            terminals.update({new: replace(grammar.terminals[old], name=new)
                              for old, new in renamed.items() if old in grammar.terminals})
    return Grammar(grammar.start, tuple(rules), terminals, grammar.ignore, grammar.source, grammar.warnings,
                   grammar.lexing)


def _occurrence_contexts(grammar: Grammar, symbols: set[str]) -> dict[tuple[int, int], frozenset[str]]:
    """(rule index, rhs position) of each occurrence of one of ``symbols`` -> its follow
    context, as terminal names (computed on ``grammar`` as given, before any copy)."""
    names = list(grammar.terminals) + sorted(grammar.nonterminals)
    number = {name: i for i, name in enumerate(names)}
    T = len(grammar.terminals)
    numbered = [(number[rule.lhs], [number[s] for s in rule.rhs]) for rule in grammar.rules]
    nullable = nullable_symbols(numbered, [False] * T, len(names))
    first = first_sets(numbered, T, len(names), nullable)
    follow = follow_sets(numbered, first, nullable)
    targets = {number[s] for s in symbols}
    contexts: dict[tuple[int, int], frozenset[str]] = {}
    for index, (lhs, rhs) in enumerate(numbered):
        for i, symbol in enumerate(rhs):
            if symbol in targets:
                after, rest_nullable = first_of_sequence(rhs[i + 1:], first, nullable)
                if rest_nullable:
                    after = after | follow[lhs]
                contexts[(index, i)] = frozenset(names[t] for t in after)
    return contexts


def _fresh(name: str, taken: set[str]) -> str:
    while name in taken:
        name += "_"
    taken.add(name)
    return name

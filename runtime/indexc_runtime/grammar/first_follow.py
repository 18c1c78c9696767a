"""Nullable symbols, FIRST and FOLLOW sets over numbered symbols: what may derive nothing,
what may start a symbol, what may come after it.

Readers: ``earley_tables`` (nullable symbols, for the prediction closures),
``boundary_masks.follow_pairs`` (which terminal pairs get product automata and undecided sets)
and ``follow_split`` (which occurrences of a shared symbol may keep one copy).  Symbols are
numbered terminals first (``0 .. T-1``), then nonterminals, as in ``earley_tables``; a rule is
``(lhs symbol id, rhs symbol ids)``.  Plain fixpoints: grammars
here have at most a few thousand rules, and each pass is a set union per rule symbol.
"""

from __future__ import annotations

from typing import Sequence

Rules = Sequence[tuple[int, Sequence[int]]]


def nullable_symbols(rules: Rules, terminal_nullable: Sequence[bool], n_symbols: int) -> list[bool]:
    """For each symbol, whether it derives the empty string (a terminal: as given)."""
    nullable = [bool(x) for x in terminal_nullable] + [False] * (n_symbols - len(terminal_nullable))
    changed = True
    while changed:
        changed = False
        for lhs, rhs in rules:
            if not nullable[lhs] and all(nullable[s] for s in rhs):
                nullable[lhs] = changed = True
    return nullable


def first_sets(rules: Rules, n_terminals: int, n_symbols: int, nullable: Sequence[bool]) -> list[set[int]]:
    """For each symbol, the terminals that may start a string it derives."""
    first = [{s} if s < n_terminals else set() for s in range(n_symbols)]
    changed = True
    while changed:
        changed = False
        for lhs, rhs in rules:
            for symbol in rhs:
                if not first[symbol] <= first[lhs]:
                    first[lhs] |= first[symbol]
                    changed = True
                if not nullable[symbol]:
                    break
    return first


def first_of_sequence(symbols: Sequence[int], first: list[set[int]], nullable: Sequence[bool]) -> tuple[set[int], bool]:
    """(the terminals that may start ``symbols``, whether ``symbols`` may derive nothing)."""
    out: set[int] = set()
    for symbol in symbols:
        out |= first[symbol]
        if not nullable[symbol]:
            return out, False
    return out, True


def follow_sets(rules: Rules, first: list[set[int]], nullable: Sequence[bool]) -> list[set[int]]:
    """For each symbol, the terminals that may come right after it in a sentential form."""
    follow: list[set[int]] = [set() for _ in first]
    changed = True
    while changed:
        changed = False
        for lhs, rhs in rules:
            for i, symbol in enumerate(rhs):
                after, rest_nullable = first_of_sequence(rhs[i + 1:], first, nullable)
                if rest_nullable:
                    after |= follow[lhs]
                if not after <= follow[symbol]:
                    follow[symbol] |= after
                    changed = True
    return follow

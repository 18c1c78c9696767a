"""A tiny reference Earley recogniser for ``indexc.grammar.ir.Grammar`` (tests only).

Terminals are matched with Python's ``re`` on every substring (the regexes the JSON Schema
lowering writes use only syntax both dialects share), and each Earley set is closed under
prediction and completion until nothing changes, which handles epsilon rules without the
usual tricks.  Cubic and slow: for texts of a few dozen characters.
"""

from __future__ import annotations

import re
from functools import lru_cache

from indexc.grammar.ir import Grammar


def recognizes(grammar: Grammar, text: str) -> bool:
    rules_by_lhs: dict[str, list[tuple[str, ...]]] = {}
    for rule in grammar.rules:
        rules_by_lhs.setdefault(rule.lhs, []).append(rule.rhs)
    patterns = {name: [re.compile(r) for r in (t.regex, *t.also)] for name, t in grammar.terminals.items()}
    excluded = {name: [re.compile(r) for r in t.excluding] for name, t in grammar.terminals.items()}

    def lexeme(terminal: str, start: int, end: int) -> bool:
        """All of the terminal's regexes match (``also``) and none of its ``excluding`` ones."""
        return (all(rx.fullmatch(text, start, end) for rx in patterns[terminal])
                and not any(rx.fullmatch(text, start, end) for rx in excluded[terminal]))

    @lru_cache(maxsize=None)
    def ends(terminal: str, start: int) -> tuple[int, ...]:
        return tuple(j for j in range(start + 1, len(text) + 1) if lexeme(terminal, start, j))

    sets: list[set] = [set() for _ in range(len(text) + 1)]
    sets[0] = {(grammar.start, rhs, 0, 0) for rhs in rules_by_lhs[grammar.start]}
    for i in range(len(text) + 1):
        changed = True
        while changed:
            changed = False
            for lhs, rhs, dot, origin in list(sets[i]):
                if dot < len(rhs) and rhs[dot] in rules_by_lhs:
                    for alternative in rules_by_lhs[rhs[dot]]:
                        item = (rhs[dot], alternative, 0, i)
                        if item not in sets[i]:
                            sets[i].add(item)
                            changed = True
                elif dot == len(rhs):
                    for plhs, prhs, pdot, porigin in list(sets[origin]):
                        if pdot < len(prhs) and prhs[pdot] == lhs:
                            item = (plhs, prhs, pdot + 1, porigin)
                            if item not in sets[i]:
                                sets[i].add(item)
                                changed = True
        for lhs, rhs, dot, origin in sets[i]:
            if dot < len(rhs) and rhs[dot] in patterns:
                for j in ends(rhs[dot], i):
                    sets[j].add((lhs, rhs, dot + 1, origin))
    return any(lhs == grammar.start and dot == len(rhs) and origin == 0 for lhs, rhs, dot, origin in sets[-1])

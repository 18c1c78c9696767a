"""Earley sets over lexemes: content-addressed, immutable, their scans memoised.

An item is ``(rule, dot, origin)``.  An origin is the id of the Earley set where the item's
rule was predicted, or ``SELF`` (-1) for an item predicted in the set that holds it.  With
that one convention a set's content never mentions its own id, so sets can be *interned*:
two text positions whose sets hold the same items get the same id, and everything computed
from a set (its scans, the lexer threads it starts) is computed once.  This is seed 001's row
reuse made structural: when the live walk goes down the trie, completes a lexeme, comes back
up and completes the same lexeme from the same row again, ``scan`` returns the memoised set.

``scan(s, t)`` is the Earley scanner plus closure: the items of ``s`` waiting on terminal
``t`` step over it; then, until nothing changes, an item waiting on a nonterminal adds that
nonterminal's precomputed *prediction closure* (``SELF`` items; nullable symbols already
stepped over, Aycock-Horspool), steps over it if it is nullable, and a complete item with a
real origin ``o`` advances the items of set ``o`` that wait on its left side (an item of ``o``
with origin ``SELF`` gets origin ``o``).  A complete ``SELF`` item needs no completer: its
left side is nullable and every item waiting on it already stepped over it.

A set keeps only its *incomplete* items (and whether ``S' -> start .`` was among the complete
ones: the text up to here is a sentence).  A complete item has done all its work when the set
is closed (completion happens then), and keeping it would make the set's content name the
origin it completed from: in a run that a terminal can split anywhere (Lark's ``text+`` of
``TEXT: (...)+``), every position would then get a set of its own, every earlier position's
thread would stay alive beside the new one, and the threads and items grew with the length of
the run (1,000 threads and 0.3 s a mask after 60 words of ``rfc.xml``).  Without them the
sets inside such a run are one and the same.  Each set also records the terminals it expects.  Limits: items per set and sets per memo (``GrammarLimits``).
"""

from __future__ import annotations

from indexc_runtime.grammar.errors import GrammarLimitExceeded, GrammarLimits
from indexc_runtime.grammar.tables import EarleyRules

SELF = -1
START_RULE = 0


class EarleySets:
    """The interned Earley sets of one matcher; set ids are stable for its lifetime."""

    def __init__(self, rules: EarleyRules, limits: GrammarLimits):
        self._rules = rules
        self._limits = limits
        self._id_of: dict[tuple[frozenset, bool], int] = {}
        self.waiting: list[dict[int, tuple[tuple[int, int, int], ...]]] = []  # per set: symbol -> items
        self.expected: list[tuple[int, ...]] = []  # per set: terminal ids some item waits on
        self.accepting: list[bool] = []
        self.sizes: list[int] = []
        self._scans: dict[tuple[int, int], int] = {}
        self.initial = self._intern(*self._close([], predicted=(0,)))

    def __len__(self) -> int:
        return len(self.expected)

    def scan(self, set_id: int, terminal: int) -> int:
        """The set after a lexeme of ``terminal`` completes from ``set_id`` (-1: not expected there)."""
        key = (set_id, terminal)
        found = self._scans.get(key)
        if found is None:
            kernel = [(r, d + 1, set_id if o == SELF else o) for r, d, o in self.waiting[set_id].get(terminal, ())]
            found = self._intern(*self._close(kernel)) if kernel else -1
            self._scans[key] = found
        return found

    def _close(self, kernel: list[tuple[int, int, int]], predicted: tuple[int, ...] = ()) -> tuple[frozenset, bool]:
        rules = self._rules
        rhs_of, lhs_of, nullable, T = rules.rhs, rules.lhs_symbol, rules.nullable, rules.n_terminals
        items: set[tuple[int, int, int]] = set()
        wanted = set(predicted)
        stack = list(kernel)
        while stack:
            item = stack.pop()
            if item in items:
                continue
            items.add(item)
            r, d, o = item
            rhs = rhs_of[r]
            if d < len(rhs):
                symbol = rhs[d]
                if symbol >= T:
                    wanted.add(symbol - T)
                if nullable[symbol]:
                    stack.append((r, d + 1, o))
            else:
                for r3, d3, o3 in self.waiting[o].get(lhs_of[r], ()):
                    stack.append((r3, d3 + 1, o if o3 == SELF else o3))
            if len(items) > self._limits.max_set_items:
                raise GrammarLimitExceeded("max_set_items", self._limits.max_set_items, "an Earley set grew too large")
        for x in wanted:
            items.update((r, d, SELF) for r, d in rules.predictions[x])
        accepting = any(r == START_RULE and d == 1 for r, d, _ in items)
        return frozenset(item for item in items if item[1] < len(rhs_of[item[0]])), accepting

    def _intern(self, items: frozenset, accepting: bool) -> int:
        key = (items, accepting)
        found = self._id_of.get(key)
        if found is not None:
            return found
        if len(items) > self._limits.max_set_items:
            raise GrammarLimitExceeded("max_set_items", self._limits.max_set_items, "an Earley set grew too large")
        if len(self.expected) >= self._limits.max_sets:
            raise GrammarLimitExceeded("max_sets", self._limits.max_sets, "too many distinct Earley sets")
        rhs_of, T = self._rules.rhs, self._rules.n_terminals
        waiting: dict[int, list] = {}
        for r, d, o in items:
            waiting.setdefault(rhs_of[r][d], []).append((r, d, o))
        set_id = len(self.expected)
        self._id_of[key] = set_id
        self.waiting.append({symbol: tuple(found) for symbol, found in waiting.items()})
        self.expected.append(tuple(sorted(s for s in waiting if s < T)))
        self.accepting.append(accepting)
        self.sizes.append(len(items))
        return set_id

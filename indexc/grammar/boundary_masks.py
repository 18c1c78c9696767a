"""Boundary masks: the tokens that finish one lexeme and go on inside the next, ahead of time.

The in-lexeme masks cover tokens that stay inside one lexeme.  With a vocabulary like
Llama-3's, where most word tokens carry their leading space (`` return``, `` x``), the common
token crosses a boundary: it ends a whitespace lexeme and starts a word.  Left to the live
walk, every such mask walks the whole `` ``-subtree of the trie (~126k nodes).  So for every
pair (terminal ``t``, terminal ``u``) where ``u`` can follow ``t`` in a sentence (``FOLLOW``,
computed on the trimmed grammar; every terminal may follow an ignored one and an ignored one
may follow every terminal), and every lexer state ``q`` of ``t``, the compiler builds the
product automaton of "the rest of ``t`` from ``q``, then ``u`` from its start" (a subset
construction: states ``(q', S)`` with ``S`` the states of ``u`` started at each place where
``t`` could have ended) and masks its start states with the shared mask machinery.

At serving time a thread ``(origin, t, q)`` whose lexeme the parser may scan adds the boundary
mask of ``(q, u)`` for each terminal ``u`` the parser expects after ``t`` (known exactly then),
which is exact: every token in it finishes ``t`` and stays live in ``u``.  Boundary masks are
accelerators only: the live walk finds every boundary token anyway; the masks make most of
them known before the walk, whose coverage test then prunes their subtrees.  A pair whose
product grows past ``MAX_PRODUCT_STATES`` is simply not precomputed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from indexc.automaton.byte_dfa import DEAD
from indexc.grammar.earley_tables import EarleyTables
from indexc.grammar.lexemes import Lexer

_NOTHING: frozenset = frozenset()
MAX_PRODUCT_STATES = 4_096  # per (t, u) pair; beyond it the pair is left to the live walk
MIN_WIDE_TOKENS = 256  # only lexemes u whose start mask holds this many tokens get pairs (see build_products)


@dataclass(frozen=True)
class BoundaryProducts:
    """All pairs' product automata, numbered after the lexer's own states (one transition table)."""

    transitions: np.ndarray  # int32 (n_product_states, 256), numbered from 0
    pair_offsets: np.ndarray  # int32 (n_lexer_states + 1,): pairs of lexer state q are [offsets[q], offsets[q+1])
    pair_terminal: np.ndarray  # int32: the following terminal u of each pair, ascending within q
    pair_state: np.ndarray  # int64: the product state that starts the pair (q, u)


def follow_pairs(earley: EarleyTables) -> dict[int, set[int]]:
    """For each terminal, the terminals that can come right after it (ignored ones included)."""
    T = len(earley.terminal_names)
    N = len(earley.nonterminal_names)
    nullable = earley.symbol_nullable.astype(bool)
    rules = [(int(earley.rule_lhs[r]) + T, earley.rule_rhs[earley.rule_rhs_offsets[r]:earley.rule_rhs_offsets[r + 1]].tolist())
             for r in range(earley.n_rules)]
    first = [{s} if s < T else set() for s in range(T + N)]
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
    follow = [set() for _ in range(T + N)]
    changed = True
    while changed:
        changed = False
        for lhs, rhs in rules:
            for i, symbol in enumerate(rhs):
                after: set[int] = set()
                for later in rhs[i + 1:]:
                    after |= first[later]
                    if not nullable[later]:
                        break
                else:
                    after |= follow[lhs]
                if not after <= follow[symbol]:
                    follow[symbol] |= after
                    changed = True
    ignore = set(earley.ignore.tolist())
    everything = set(range(T))
    return {t: (everything if t in ignore else follow[t] | ignore) for t in range(T)}


def build_products(lexer: Lexer, earley: EarleyTables, class_of_byte: np.ndarray, n_classes: int,
                   wide: np.ndarray) -> BoundaryProducts:
    """Subset-construct the (t, u) products over byte classes, for the *wide* terminals ``u``
    (``wide[u]``: its start state's in-lexeme mask holds at least ``MIN_WIDE_TOKENS`` tokens).

    Why only wide ones: a token that crosses into a narrow lexeme (a bracket, a keyword) is one
    of few, and the live walk reaches it through a small subtree; crossing into a wide lexeme
    (a word, a number, a string) is where whole subtrees would be walked.  Measured on the RFC
    grammar (238 terminals): all pairs give 25,636 product states and 2.7 s of construction.
    The pairs share their states once ``t`` is over (``_ProductStates``): the RFC grammar's 746
    wide pairs need 787 states instead of 2,320 (boundary masks 0.70 -> 0.18 s), Kubernetes
    kb_684's 10,250 pairs 15,933 instead of 24,395 (9.8 -> 3.5 s); the artifacts are unchanged.
    A subset's moves are computed once (``_ProductStates._moves``): MaskBench o59980's 1,591
    pairs step 25,292 states on 63 classes from 4,644 distinct subsets (construction ~2x faster).
    """
    representative = np.zeros(n_classes, dtype=np.int64)
    representative[class_of_byte[::-1]] = np.arange(255, -1, -1)  # first byte of each class
    builder = _ProductStates(lexer.dfa.transitions[:, representative].tolist(), lexer.dfa.accepting.tolist(),
                             n_classes)
    offsets = lexer.offsets.tolist()
    pairs: list[tuple[int, int, int]] = []  # (q, u, product state)
    for t, followers in sorted(follow_pairs(earley).items()):
        for u in sorted(u for u in followers if wide[u]):
            starts = builder.pair(range(offsets[t], offsets[t + 1]), offsets[u])
            if starts is not None:
                pairs += [(q, u, start) for q, start in starts.items()]
    pairs.sort()
    n_lexer = lexer.dfa.n_states
    counts = np.bincount(np.array([q for q, _, _ in pairs], dtype=np.int64), minlength=n_lexer)
    pair_offsets = np.zeros(n_lexer + 1, dtype=np.int32)
    np.cumsum(counts, out=pair_offsets[1:])
    by_class = np.array(builder.rows, dtype=np.int32).reshape(len(builder.rows), n_classes)
    return BoundaryProducts(np.ascontiguousarray(by_class[:, class_of_byte]), pair_offsets,
                            np.array([u for _, u, _ in pairs], dtype=np.int32),
                            np.array([p for _, _, p in pairs], dtype=np.int64))


class _ProductStates:
    """The product states of every pair, numbered once for all of them.

    A state is ``(q, S, u)``: in ``t`` at lexer state ``q`` (``DEAD`` once ``t`` cannot go on),
    with ``u`` running from each of the states ``S``.  Once ``q`` is ``DEAD`` nothing can start
    ``u`` again, so the state is ``(DEAD, S, -1)`` whatever the pair: every pair ending in the
    same ``u`` shares those states instead of building ``u``'s subsets again (Kubernetes
    kb_684: 630 pairs, most of them into the same string lexeme).
    """

    def __init__(self, table: list[list[int]], accepting: list[bool], n_classes: int):
        self._table, self._accepting, self._n_classes = table, accepting, n_classes
        self._ids: dict[tuple[int, frozenset, int], int] = {}
        self._keys: list[tuple[int, frozenset, int]] = []
        self.rows: list[list[int]] = []
        self._dead_row = [DEAD] * n_classes
        self._subset_moves: dict[frozenset, list[frozenset]] = {}

    def pair(self, block: range, u_start: int) -> dict[int, int] | None:
        """{q: start state} of "rest of t from q, then u", or None (and nothing kept) when the
        pair adds more than ``MAX_PRODUCT_STATES`` states."""
        mark = len(self.rows)
        stack: list[int] = []
        accepting = self._accepting
        starts = {q: self._number((q, frozenset([u_start]) if accepting[q] else frozenset(), u_start), stack)
                  for q in block}
        table, number = self._table, self._number
        while stack:
            if len(self.rows) - mark > MAX_PRODUCT_STATES:
                self._forget(mark)
                return None
            state = stack.pop()
            q, started, u = self._keys[state]
            row = []
            for q2, s2 in zip(table[q] if q != DEAD else self._dead_row, self._moves(started)):
                if q2 != DEAD:
                    row.append(number((q2, s2 | {u} if accepting[q2] else s2, u), stack))
                elif s2:
                    row.append(number((DEAD, s2, -1), stack))
                else:
                    row.append(DEAD)
            self.rows[state] = row
        return starts

    def _moves(self, started: frozenset) -> list[frozenset]:
        """Per class, the live states the subset ``started`` goes to, computed once per subset:
        the pairs into one ``u`` meet the same subsets over and over (MaskBench o59980: 1.6M
        (state, class) steps, from a few thousand distinct subsets)."""
        found = self._subset_moves.get(started)
        if found is None:
            table = self._table
            if len(started) == 1:  # most subsets: one state of ``u``
                (only,) = started
                found = [frozenset((target,)) if target != DEAD else _NOTHING for target in table[only]]
            else:
                found = [frozenset(table[s][c] for s in started) - {DEAD} for c in range(self._n_classes)]
            self._subset_moves[started] = found
        return found

    def _number(self, key: tuple[int, frozenset, int], stack: list[int]) -> int:
        found = self._ids.get(key)
        if found is None:
            found = self._ids[key] = len(self.rows)
            self._keys.append(key)
            self.rows.append([])
            stack.append(found)
        return found

    def _forget(self, mark: int) -> None:
        """Drop the states numbered from ``mark`` on (a pair that grew too large)."""
        for key in self._keys[mark:]:
            del self._ids[key]
        del self._keys[mark:]
        del self.rows[mark:]

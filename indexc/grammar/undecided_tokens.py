"""Undecided tokens: per lexer state, the tokens the precomputed masks cannot decide alone.

From a thread in lexer state ``q`` of terminal ``t``, a token's bytes split in one of three
ways: they stay inside ``t`` (the in-lexeme mask of ``q`` says so); ``t`` ends part-way and
the rest stays inside one next lexeme ``u`` (the boundary mask of ``(q, u)``, OR-ed for the
``u`` the parser expects: exact); or ``t`` ends, a whole lexeme ``u`` follows, and more
bytes start a third lexeme ``v``.  Only the third kind depends on more than the next
terminal, so only those tokens need the live walk.  When every pair ``(t, u)`` with ``u`` in
FOLLOW(``t``) has its boundary mask, a token that *cannot* split the third way from ``q``
is decided by the precomputed masks: allowed iff one of them holds it.  This module
computes, per lexer state, the tokens that can (a superset of the ones that will in a given
parse: ``u`` ranges over FOLLOW(``t``) and ``v`` over FOLLOW(``u``), with no parser state).

How: one automaton over the lexer's byte classes whose states are ``(q, S)``, ``q`` the
state in ``t`` (``DEAD`` once ``t`` cannot go on) and ``S`` the states of the lexemes ``u``
running after at least one byte (started wherever ``t`` may end).  On a class that some
finished ``u`` in ``S`` can be followed by (a first class of a terminal in FOLLOW(``u``)),
it goes to ``ALL``, a state alive on every byte.  A token reaches ``ALL`` iff it can split
the third way, and once there it stays; so with ``A`` the tokens alive from ``(q, {})`` and
``B`` those alive when ``ALL`` is dead instead, the undecided tokens are ``A - B`` (each
token's path in a DFA is one path: it either passes through ``ALL`` or it does not).  Both
mask sets come from the regex mask machinery (``indexc.masks.masks_of_states``), walked from
the lexer states only.

A terminal whose states' automaton costs more than ``MAX_WORK_PER_TERMINAL``, or one with a
follower whose boundary pair was not built (``boundary_masks.MAX_PRODUCT_STATES``), gets no
undecided set (``UNRESTRICTED``): its threads are walked as before, over every token.
"""

from __future__ import annotations

import numpy as np

from indexc.automaton.byte_dfa import DEAD, ByteDFA
from indexc.grammar.lexemes import Lexer
from indexc.grammar.numbered_states import NumberedStates
from indexc.masks import MaskOptions
from indexc.masks.compute import masks_of_states
from indexc.trie import TokenTrie
from indexc.vocab.model import Vocabulary

_NOTHING: frozenset = frozenset()
# Work a terminal's lexer states may cost (lexer transitions read while stepping the subsets of
# running lexemes, plus the automaton's transitions); beyond, UNRESTRICTED.  What blows up is
# a terminal followed by hundreds of others (a JSON Schema's "{" or "," before its literal keys:
# MaskBench o18637 has three with 291-479 followers, whose subsets took 0.6-3.3 s each to reach
# 4,096 states); the widest kept on the recursive MaskBench files is a string body followed by
# 192 terminals: 1,729 states, ~0.14 s.
MAX_WORK_PER_TERMINAL = 600_000
UNRESTRICTED = -1  # a lexer state without an undecided set: the walk decides every token
# A lexer of more states gets no undecided sets (``indexc.pipeline.grammar``): their two mask
# walks start from every lexer state, and past a few thousand states they cost more than the
# rest of the compile (MaskBench wp_9: 8,482 states, 10 s against 6.7 s; o21375: 20,868).
MAX_LEXER_STATES = 4_096


def undecided_masks(lexer: Lexer, follow: dict[int, set[int]], complete: np.ndarray, class_of_byte: np.ndarray,
                    n_classes: int, trie: TokenTrie, vocab: Vocabulary,
                    options: MaskOptions) -> tuple[list[np.ndarray], np.ndarray]:
    """(distinct undecided token sets, each lexer state's index among them or ``UNRESTRICTED``).

    ``follow``: FOLLOW of each terminal (``boundary_masks.follow_pairs``); ``complete[t]``:
    every pair ``(t, u)``, ``u`` in FOLLOW(``t``), has its boundary mask."""
    representative = np.zeros(n_classes, dtype=np.int64)
    representative[class_of_byte[::-1]] = np.arange(255, -1, -1)  # first byte of each class
    by_class = lexer.dfa.transitions[:, representative]
    builder = _TwoBoundaryAutomaton(lexer, by_class, follow)
    n_states = lexer.dfa.n_states
    start_of = np.full(n_states, UNRESTRICTED, dtype=np.int64)
    offsets = lexer.offsets.tolist()
    for t in range(lexer.n_terminals):
        if complete[t]:
            starts = builder.terminal(t, range(offsets[t], offsets[t + 1]))
            if starts is not None:
                start_of[offsets[t]:offsets[t + 1]] = starts
    restricted = np.flatnonzero(start_of != UNRESTRICTED)
    if not restricted.size:
        return [], np.full(n_states, UNRESTRICTED, dtype=np.int32)
    origins = start_of[restricted]
    masks, alive_of, before_of = _masks_with_and_without_all(builder, class_of_byte, trie, vocab, origins, options)
    distinct: dict[bytes, int] = {}
    of_pair: dict[tuple[int, int], int] = {}  # (mask in A, mask in B) -> set: 2,614 states, a few hundred pairs
    found: list[np.ndarray] = []
    state_set = np.full(n_states, UNRESTRICTED, dtype=np.int32)
    for state, a, b in zip(restricted.tolist(), alive_of.tolist(), before_of.tolist()):
        if (a, b) not in of_pair:
            tokens = np.setdiff1d(masks[a], masks[b], assume_unique=True)
            of_pair[a, b] = distinct.setdefault(tokens.tobytes(), len(found))
            if of_pair[a, b] == len(found):
                found.append(tokens)
        state_set[state] = of_pair[a, b]
    return found, state_set


def _masks_with_and_without_all(builder: "_TwoBoundaryAutomaton", class_of_byte: np.ndarray, trie: TokenTrie,
                                vocab: Vocabulary, origins: np.ndarray, options: MaskOptions):
    """(distinct masks, each origin's mask with ``ALL`` alive, each origin's mask with ``ALL``
    dead): one mask computation over the two automata side by side, so that the byte classes,
    the class trie and the walk plan are made once (two calls cost ~1.5x as much)."""
    with_all, without_all = builder.table(reach_all=True), builder.table(reach_all=False)
    n = with_all.shape[0]
    both = np.concatenate((with_all, np.where(without_all == DEAD, DEAD, without_all + n)))
    dfa = ByteDFA(np.ascontiguousarray(both[:, class_of_byte]), np.zeros(2 * n, dtype=bool))
    masks, mask_of = masks_of_states(dfa, trie, vocab, np.concatenate((origins, origins + n)), options)
    return masks, mask_of[: origins.size], mask_of[origins.size:]


class _TwoBoundaryAutomaton:
    """The ``(q, S)`` states of every terminal, numbered once for all of them (state 0 is ``ALL``).

    ``(DEAD, S)`` states are shared by every terminal (past ``t`` nothing depends on it), as
    the boundary products share theirs."""

    ALL = 0

    def __init__(self, lexer: Lexer, by_class: np.ndarray, follow: dict[int, set[int]]):
        self._accepting = lexer.dfa.accepting.tolist()
        self._n_classes = by_class.shape[1]
        self._terminal_of = lexer.state_terminal.tolist()
        starts = lexer.starts.tolist()
        self._follow = {t: sorted(follow.get(t, ())) for t in range(lexer.n_terminals)}
        state, live = np.nonzero(by_class != DEAD)  # row by row, classes ascending
        bounds = np.searchsorted(state, np.arange(by_class.shape[0] + 1)).tolist()
        targets = by_class[state, live].tolist()
        live = live.tolist()
        # per lexer state, its live cells (class, next state): most of a row is dead
        self.work = 0  # see MAX_WORK_PER_TERMINAL
        self._cells = [list(zip(live[bounds[q]:bounds[q + 1]], targets[bounds[q]:bounds[q + 1]]))
                       for q in range(by_class.shape[0])]
        first_classes = [frozenset(c for c, _ in self._cells[s]) for s in starts]
        # classes that may start a lexeme right after a finished ``u``: the first classes of FOLLOW(u)
        self._then = [frozenset().union(*(first_classes[v] for v in self._follow[u])) for u in range(lexer.n_terminals)]
        # per terminal t: {class c: the states of the lexemes u in FOLLOW(t) after their first byte c}
        self._fresh = [self._stepped(starts[u] for u in self._follow[t]) for t in range(lexer.n_terminals)]
        self._states = NumberedStates()  # keys (q, S)
        self._states.reserve([self.ALL] * self._n_classes)
        self._moves: dict[frozenset, tuple[dict[int, frozenset], frozenset]] = {}

    def _stepped(self, states) -> dict[int, frozenset]:
        """{class: the live states ``states`` go to on it}, for the classes where there are some."""
        found: dict[int, set[int]] = {}
        for s in states:
            cells = self._cells[s]
            self.work += len(cells)
            for c, target in cells:
                found.setdefault(c, set()).add(target)
        return {c: frozenset(targets) for c, targets in found.items()}

    def terminal(self, t: int, block: range) -> list[int] | None:
        """The start state ``(q, {})`` of each lexer state ``q`` of ``t``, or None (nothing kept)
        past ``MAX_WORK_PER_TERMINAL``."""
        states = self._states
        mark = len(states)
        stack: list[int] = []
        starts = [states.number((q, frozenset()), stack) for q in block]
        self.work = 0
        while stack:
            state = stack.pop()
            states.rows[state] = self._row(states.keys[state], stack)
            if self.work > MAX_WORK_PER_TERMINAL:
                states.forget(mark)
                return None
        return starts

    def _row(self, key: tuple[int, frozenset], stack: list[int]) -> list[int]:
        """The state's transitions, visiting only the classes where something stays live
        (Github_hard o21343's 193 terminals: 5,883 rows in 0.9 s over every class, ~0.3 s so)."""
        q, running = key
        moves, to_all = self._subset_moves(running)
        row = [DEAD] * self._n_classes
        for c in to_all:
            row[c] = self.ALL
        q_cells = self._cells[q] if q != DEAD else ()
        fresh = self._fresh[self._terminal_of[q]] if q != DEAD and self._accepting[q] else {}
        next_q = dict(q_cells)
        live = set(next_q).union(moves, fresh).difference(to_all)
        for c in live:
            s2 = moves.get(c, _NOTHING) | fresh.get(c, _NOTHING)
            row[c] = self._states.number((next_q.get(c, DEAD), s2), stack)
        self.work += len(live) + len(to_all)
        return row

    def _subset_moves(self, running: frozenset) -> tuple[dict[int, frozenset], frozenset]:
        """{class: where the running lexemes go}, and the classes that reach ``ALL`` (a finished
        running lexeme followed by a lexeme that starts on the class)."""
        found = self._moves.get(running)
        if found is None:
            accepting, terminal_of = self._accepting, self._terminal_of
            to_all = frozenset().union(*(self._then[terminal_of[s]] for s in running if accepting[s]))
            found = self._moves[running] = (self._stepped(running), to_all)
        return found

    def table(self, *, reach_all: bool) -> np.ndarray:
        """int32 (n_states, n_classes); with ``reach_all`` False, ``ALL`` is dead instead."""
        rows = np.array(self._states.rows, dtype=np.int32)
        if not reach_all:
            rows[rows == self.ALL] = DEAD
        return rows

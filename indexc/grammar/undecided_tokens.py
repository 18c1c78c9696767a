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
parse: ``u`` ranges over FOLLOW(``t``), ``v`` over FOLLOW(``u``) and a fourth over FOLLOW(``v``),
with no parser state).

How: one automaton over the lexer's byte classes whose states are ``(q, S, V)``, ``q`` the
state in ``t`` (``DEAD`` once ``t`` cannot go on), ``S`` the states of the lexemes ``u``
running after at least one byte (started wherever ``t`` may end) and ``V`` those of the
third lexemes ``v`` (started wherever a ``u`` in ``S`` may end, on a first class of a
terminal in FOLLOW(``u``)).  On a class that some finished ``v`` in ``V`` can be followed by
it goes to ``ALL``, a state alive on every byte, where it stays.  With ``A`` the tokens alive
from ``(q, {}, {})`` and ``B`` those alive when ``ALL``, and every state where ``V`` runs
with ``t`` over, are dead instead, the undecided tokens are ``A - B`` (each token's path in
a DFA is one path): a token alive in ``B`` is inside ``t`` (its in-lexeme mask holds it) or
has no third lexeme alive at its end.

The first sets (session 9) went to ``ALL`` on a third lexeme's first byte (``V`` was not
run): every token of the form "rest of ``t``, ``u``, then any byte ``v`` may start on" was
undecided, and the walk refuted them one trie node at a time.  Running ``v`` leaves out
the ones where ``v`` dies inside the token: after ``x1 +`` in arithmetic, ``(baseUrl``
(an identifier has no capitals) and its ~90 siblings; the open tokens of that mask 95 -> 2,
the sample's cold walk 2,929 -> 160 Python tail pairs and 5.1 -> 3.0 ms CPU (JSON's largest
set 216 -> 74 tokens, C's 3,551 -> 3,426; compile time within noise, RFC-XML's sets
+0.06 s).  Past ``MAX_WORK_REFINED`` a terminal falls back to the first automaton
(``V`` is ``None`` in its keys), whose sets are the coarse ones, and so does every terminal
once the grammar's refined attempts have cost ``MAX_WORK_REFINED_TOTAL``.

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
MAX_WORK_REFINED = 150_000  # the same bound for the automaton that runs third lexemes (then: the coarse one)
# Work all refined attempts of one grammar may cost, kept or given up: once spent, the terminals
# left go to the coarse automaton at once.  A JSON Schema whose 121 terminals each give up the
# refined automaton at its bound (Github_hard o37102, ~55 ms an attempt) spent 6.5 s there
# for no set: its compile 2.3 -> 9.1 s.  The bundled grammars' refined sets cost 0.1-0.2M.
MAX_WORK_REFINED_TOTAL = 1_000_000
UNRESTRICTED = -1  # a lexer state without an undecided set: the walk decides every token
# The lexer states whose terminals get undecided sets and every boundary pair
# (``undecided_terminals``, smallest terminals first; the others get pairs into wide lexemes
# only, ``boundary_masks.MIN_WIDE_TOKENS``).  Until session 14 a lexer got sets for every
# terminal up to a lexer of ``MAX_LEXER_STATES`` states (4,096, 6,144 since session 13) and none
# past it: their two mask walks start from every lexer state kept (MaskBench wp_9: 8,482
# states, 10 s against 6.7 s).  Session 14, the every-4th MaskBench run's four files over 6,144
# states (no punctuation copies there, ``to_grammar.MAX_LEXER_STATES``), against no sets at all:
# o18637 (10,463 states, 480 terminals) masks over 200 us along its cold walks 588 -> 326,
# compile 2.6 -> 4.9 s CPU; sp_152 (6,936) 205 -> 84, 6.1 -> 7.9 s; kb_148 (9,763, no
# instances) 3.9 -> 4.8 s; o21375 (20,868, 1,188 terminals, no instances) 1.9 -> 5.3 s (5.9 s
# with every terminal); wp_9 (8,482) 5.6 -> 8.0 s.  At a budget of 6,144 states o18637 kept 497
# masks over 200 us, at 9,216 403.  The per-terminal work bounds below keep a terminal with
# hundreds of followers from costing seconds whatever this budget.
MAX_UNDECIDED_STATES = 16_384


def undecided_terminals(lexer: Lexer, max_states: int | None = None) -> np.ndarray:
    """Which terminals get undecided sets (bool per terminal): every one when the lexer has at
    most ``max_states`` states (default ``MAX_UNDECIDED_STATES``), else the smallest terminals
    first (ties by id) while their states add up to at most ``max_states``.

    What a terminal costs (its boundary pairs, its automaton, the two mask walks from each of
    its states) grows with its states, and a big lexer is big by its many literal keys (a
    JSON Schema's hundreds of property names, ~15 states each) far more often than by a few
    wide lexemes; the first cut keeps the keys' sets and leaves the biggest lexemes walked
    live.  Deterministic: the same grammar gets the same sets on any machine."""
    budget = MAX_UNDECIDED_STATES if max_states is None else max_states
    sizes = np.diff(lexer.offsets)
    order = np.argsort(sizes, kind="stable")
    chosen = np.zeros(lexer.n_terminals, dtype=bool)
    chosen[order[np.cumsum(sizes[order]) <= budget]] = True
    return chosen


def undecided_masks(lexer: Lexer, follow: dict[int, set[int]], complete: np.ndarray, class_of_byte: np.ndarray,
                    n_classes: int, trie: TokenTrie, vocab: Vocabulary, options: MaskOptions,
                    longest: np.ndarray | None = None, ignore: frozenset[int] = frozenset(),
                    ) -> tuple[list[np.ndarray], np.ndarray]:
    """(distinct undecided token sets, each lexer state's index among them or ``UNRESTRICTED``).

    ``follow``: FOLLOW of each terminal (``boundary_masks.follow_pairs``); ``complete[t]``:
    every pair ``(t, u)``, ``u`` in FOLLOW(``t``), has its boundary mask; ``longest``: per
    terminal, whether it ends by longest match (``indexc.grammar.longest_match``: then a lexeme
    after it starts only on a byte it cannot take); ``ignore``: the ignored terminals, after
    which the lexeme that follows is still a second one (the boundary masks run them between
    ``t`` and ``u``: ``boundary_masks``)."""
    representative = np.zeros(n_classes, dtype=np.int64)
    representative[class_of_byte[::-1]] = np.arange(255, -1, -1)  # first byte of each class
    by_class = lexer.dfa.transitions[:, representative]
    by_longest = np.zeros(lexer.dfa.n_states, dtype=bool) if longest is None else longest[lexer.state_terminal]
    builder = _TwoBoundaryAutomaton(lexer, by_class, follow, by_longest.tolist(), ignore)
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
    the boundary products share theirs.  A lexeme that ends by longest match (``longest``, per
    lexer state) lets the next one start only on the classes its state cannot take
    (``_ending``)."""

    ALL = 0

    def __init__(self, lexer: Lexer, by_class: np.ndarray, follow: dict[int, set[int]], longest: list[bool],
                 ignore: frozenset[int] = frozenset()):
        self._accepting = lexer.dfa.accepting.tolist()
        self._longest = longest
        self._ignore = ignore
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
        self.refined_work = 0  # see MAX_WORK_REFINED_TOTAL
        self._cells = [list(zip(live[bounds[q]:bounds[q + 1]], targets[bounds[q]:bounds[q + 1]]))
                       for q in range(by_class.shape[0])]
        first_classes = [frozenset(c for c, _ in self._cells[s]) for s in starts]
        # classes that may start a lexeme right after a finished ``u``: the first classes of FOLLOW(u)
        self._then = [frozenset().union(*(first_classes[v] for v in self._follow[u])) for u in range(lexer.n_terminals)]
        # per terminal t: {class c: the states of the lexemes u in FOLLOW(t) after their first byte c}
        self._fresh = [self._stepped(starts[u] for u in self._follow[t]) for t in range(lexer.n_terminals)]
        self._states = NumberedStates()  # keys (q, S, V)
        self._states.reserve([self.ALL] * self._n_classes)
        self._moves: dict[frozenset, tuple[dict[int, frozenset], dict[int, frozenset]]] = {}
        self._third: dict[frozenset, tuple[dict[int, frozenset], frozenset]] = {}

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
        """The start state ``(q, {}, {})`` of each lexer state ``q`` of ``t`` in the automaton
        that runs the third lexemes, or past ``MAX_WORK_REFINED`` the start ``(q, {}, None)``
        of the coarse one, or None (nothing kept) past ``MAX_WORK_PER_TERMINAL``."""
        if self.refined_work < MAX_WORK_REFINED_TOTAL:
            starts = self._built(block, _NOTHING, MAX_WORK_REFINED)
            self.refined_work += self.work
            if starts is not None:
                return starts
        return self._built(block, None, MAX_WORK_PER_TERMINAL)

    def _built(self, block: range, third: frozenset | None, budget: int) -> list[int] | None:
        """Number every state reachable from the block's starts, or forget them past ``budget``."""
        states = self._states
        mark = len(states)
        stack: list[int] = []
        starts = [states.number((q, _NOTHING, third), stack) for q in block]
        self.work = 0
        while stack:
            state = stack.pop()
            states.rows[state] = self._row(states.keys[state], stack)
            if self.work > budget:
                states.forget(mark)
                return None
        return starts

    def _row(self, key: tuple, stack: list[int]) -> list[int]:
        """The state's transitions, visiting only the classes where something stays live
        (Github_hard o21343's 193 terminals: 5,883 rows in 0.9 s over every class, ~0.3 s so).

        A key is ``(q, S, V)``: ``V`` the states of the third lexemes running (``None`` in the
        coarse automaton, where a third lexeme's first byte goes to ``ALL`` at once)."""
        q, running, third = key
        moves, starts_third = self._subset_moves(running)
        row = [DEAD] * self._n_classes
        if third is None:
            to_all, third_moves = starts_third.keys(), {}
        else:
            third_moves, to_all = self._third_moves(third)
            for c, states in starts_third.items():
                third_moves[c] = third_moves.get(c, _NOTHING) | states
        for c in to_all:
            row[c] = self.ALL
        q_cells = self._cells[q] if q != DEAD else ()
        fresh = self._ending(q, self._fresh[self._terminal_of[q]]) if q != DEAD and self._accepting[q] else {}
        next_q = dict(q_cells)
        live = set(next_q).union(moves, fresh, third_moves).difference(to_all)
        for c in live:
            s2 = moves.get(c, _NOTHING) | fresh.get(c, _NOTHING)
            v2 = None if third is None else third_moves.get(c, _NOTHING)
            row[c] = self._states.number((next_q.get(c, DEAD), s2, v2), stack)
        self.work += len(live) + len(to_all)
        return row

    def _subset_moves(self, running: frozenset) -> tuple[dict[int, frozenset], dict[int, frozenset]]:
        """{class: where the running lexemes go}, and {class: the third lexemes' states after
        it}, for the classes on which a finished running lexeme is followed by a lexeme that
        starts there."""
        found = self._moves.get(running)
        if found is None:
            accepting, terminal_of = self._accepting, self._terminal_of
            second = {c: set(states) for c, states in self._stepped(running).items()}
            third: dict[int, set[int]] = {}
            for s in running:
                if accepting[s]:  # an ignored lexeme's end leaves the parser as it was: a second lexeme again
                    into = second if terminal_of[s] in self._ignore else third
                    for c, states in self._ending(s, self._fresh[terminal_of[s]]).items():
                        into.setdefault(c, set()).update(states)
            found = self._moves[running] = ({c: frozenset(v) for c, v in second.items()},
                                            {c: frozenset(v) for c, v in third.items()})
        return found

    def _ending(self, state: int, classes):
        """The classes of ``classes`` (a dict by class, or a set) on which a lexeme in the accepting
        ``state`` may end and a next one read the byte: all of them, or by longest match the ones
        ``state`` cannot take."""
        if not self._longest[state]:
            return classes
        takes = {c for c, _ in self._cells[state]}
        if isinstance(classes, dict):
            return {c: v for c, v in classes.items() if c not in takes}
        return classes - takes

    def _third_moves(self, third: frozenset) -> tuple[dict[int, frozenset], frozenset]:
        """{class: where the third lexemes go} (a new dict), and the classes that reach ``ALL``
        (a finished third lexeme followed by a lexeme that starts on the class)."""
        found = self._third.get(third)
        if found is None:
            accepting, terminal_of = self._accepting, self._terminal_of
            to_all = frozenset().union(*(self._ending(s, self._then[terminal_of[s]]) for s in third if accepting[s]))
            found = self._third[third] = (self._stepped(third), to_all)
        return dict(found[0]), found[1]

    def table(self, *, reach_all: bool) -> np.ndarray:
        """int32 (n_states, n_classes); with ``reach_all`` False, ``ALL`` is dead instead, and so
        is every state where a third lexeme runs once ``t`` is dead.

        A token alive there at its end is inside ``t`` (its in-lexeme mask holds it: allowed) or
        has no third lexeme running (it cannot split the third way): decided.  So a token is
        undecided iff it is alive with ``ALL`` and dead without: it passed a third lexeme's
        start with ``t`` over and is alive at its end, or it reached ``ALL``."""
        rows = np.array(self._states.rows, dtype=np.int32)
        if not reach_all:
            dead = [key is None or (key[0] == DEAD and bool(key[2])) for key in self._states.keys]
            rows[np.array(dead + [False])[rows]] = DEAD  # (DEAD is -1: the spare False)
        return rows

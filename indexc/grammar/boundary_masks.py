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
which is exact: every token in it finishes ``t`` and stays live in ``u``.  With every pair of
``t`` built, the masks are also *complete* for the tokens that cross one boundary, so that a
token outside ``q``'s undecided set (``undecided_tokens``) is decided by them and the live walk
does not look at it.  A pair whose product grows past ``MAX_PRODUCT_STATES`` is not
precomputed, and its terminal's threads are walked over every token.

Ignored lexemes (Lark's ``%ignore``) run *between* ``t`` and ``u`` in every product: one
leaves the parser where it was, so ``u`` may follow it exactly where it may follow ``t``, and
`` x`` after a name (the name ends, a space, a name starts) is one boundary, not two.  Until
session 27 the space was a lexeme of its own and such tokens were undecided (lark.lark's
accepting name state: 63,340 undecided tokens of Llama-3's 128k, 32,260 since, the rest
being tokens that really end a second lexeme, ``Evalu`` = ``E`` then ``valu``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from indexc.automaton.byte_dfa import DEAD
from indexc.grammar.earley_tables import EarleyTables
from indexc_runtime.grammar.first_follow import first_sets, follow_sets
from indexc.grammar.lexemes import Lexer
from indexc.grammar.numbered_states import NumberedStates

_NOTHING: frozenset = frozenset()
MAX_PRODUCT_STATES = 4_096  # per (t, u) pair; beyond it the pair is left to the live walk
MIN_WIDE_TOKENS = 256  # after a terminal without undecided sets, only lexemes u whose start mask holds this many tokens get pairs


@dataclass(frozen=True)
class BoundaryProducts:
    """All pairs' product automata, numbered after the lexer's own states (one transition table)."""

    transitions: np.ndarray  # int32 (n_product_states, 256), numbered from 0
    pair_offsets: np.ndarray  # int32 (n_lexer_states + 1,): pairs of lexer state q are [offsets[q], offsets[q+1])
    pair_terminal: np.ndarray  # int32: the following terminal u of each pair, ascending within q
    pair_state: np.ndarray  # int64: the product state that starts the pair (q, u)
    complete: np.ndarray  # bool (n_terminals,): every pair (t, u), u in FOLLOW(t), was built


def follow_pairs(earley: EarleyTables) -> dict[int, set[int]]:
    """For each terminal, the terminals that can come right after it (ignored ones included)."""
    T, N, nullable, rules = _numbered_rules(earley)
    first = first_sets(rules, T, T + N, nullable)
    follow = follow_sets(rules, first, nullable)
    ignore = set(earley.ignore.tolist())
    everything = set(range(T))
    return {t: (everything if t in ignore else follow[t] | ignore) for t in range(T)}


def text_enders(earley: EarleyTables) -> set[int]:
    """The terminals that may end a sentence: the last ones of the start symbol's strings (FIRST
    of the rules read backwards), and the ignored ones."""
    T, N, nullable, rules = _numbered_rules(earley)
    last = first_sets([(lhs, rhs[::-1]) for lhs, rhs in rules], T, T + N, nullable)
    return {t for t in last[T] if t < T} | set(earley.ignore.tolist())  # symbol T: the added start S'


def _numbered_rules(earley: EarleyTables) -> tuple[int, int, np.ndarray, list[tuple[int, list[int]]]]:
    """(terminals, nonterminals, nullable per symbol, the rules as (lhs symbol, rhs symbols))."""
    T = len(earley.terminal_names)
    offsets = earley.rule_rhs_offsets
    rules = [(int(earley.rule_lhs[r]) + T, earley.rule_rhs[offsets[r]:offsets[r + 1]].tolist())
             for r in range(earley.n_rules)]
    return T, len(earley.nonterminal_names), earley.symbol_nullable.astype(bool), rules


def build_products(lexer: Lexer, earley: EarleyTables, follow: dict[int, set[int]], class_of_byte: np.ndarray,
                   n_classes: int, wide: np.ndarray, every_follower: np.ndarray | None = None,
                   longest: np.ndarray | None = None) -> BoundaryProducts:
    """Subset-construct the (t, u) products over byte classes, ``u`` in ``follow[t]``
    (``follow_pairs``, computed once by the pipeline), for the terminals ``u`` with ``wide[u]``,
    and for every follower of a terminal ``t`` with ``every_follower[t]`` (``complete[t]`` says
    whether every follower of ``t`` got its pair).  The pipeline asks for
    every pair after the terminals that get undecided sets (``undecided_tokens.undecided_terminals``:
    all of them unless the lexer is very large) and for pairs into wide lexemes
    (``MIN_WIDE_TOKENS``) after the others.

    Until format 5 only wide ``u`` got pairs (a start mask of 256 tokens or more): a token
    crossing into a narrow lexeme (a bracket, a keyword) is one of few, and the live walk
    reached it through a small subtree.  Since the undecided sets (``undecided_tokens``) let
    the walk skip every token that crosses one boundary, every pair is needed: the pairs of a
    terminal with one missing are walked over every token.  Llama-3, all pairs against wide
    ones: C 75 -> 158 ms of boundary masks, RFC-XML 66 -> 456 ms, JSON 58 -> 89 ms (at session 2,
    before the sharing below, the RFC grammar's 25,636 product states took 2.7 s).
    The pairs share their states once ``t`` is over (``_ProductStates``): the RFC grammar's 746
    wide pairs need 787 states instead of 2,320 (boundary masks 0.70 -> 0.18 s), Kubernetes
    kb_684's 10,250 pairs 15,933 instead of 24,395 (9.8 -> 3.5 s); the artifacts are unchanged.
    ``longest``: per terminal, whether it ends by longest match (``indexc.grammar.longest_match``):
    then ``u`` starts only on a byte ``t`` cannot take, from an accepting state.
    A subset's moves are computed once (``_ProductStates._moves``): MaskBench o59980's 1,591
    pairs step 25,292 states on 63 classes from 4,644 distinct subsets; and a state's row is
    filled on its live classes only (148k of 1.6M cells): construction 2.5 -> 0.6 s (cProfile).
    """
    representative = np.zeros(n_classes, dtype=np.int64)
    representative[class_of_byte[::-1]] = np.arange(255, -1, -1)  # first byte of each class
    by_longest = np.zeros(lexer.dfa.n_states, dtype=bool) if longest is None else longest[lexer.state_terminal]
    ignored = np.isin(lexer.state_terminal, earley.ignore)
    builder = _ProductStates(lexer.dfa.transitions[:, representative], lexer.dfa.accepting.tolist(),
                             by_longest.tolist(), ignored.tolist(), frozenset(lexer.starts[earley.ignore].tolist()))
    offsets = lexer.offsets.tolist()
    pairs: list[tuple[int, int, int]] = []  # (q, u, product state)
    complete = np.ones(lexer.n_terminals, dtype=bool)
    for t, followers in sorted(follow.items()):
        every = every_follower is not None and every_follower[t]
        complete[t] = every or all(wide[u] for u in followers)
        for u in sorted(u for u in followers if every or wide[u]):
            starts = builder.pair(range(offsets[t], offsets[t + 1]), offsets[u])
            if starts is not None:
                pairs += [(q, u, start) for q, start in starts.items()]
            else:
                complete[t] = False
    pairs.sort()
    n_lexer = lexer.dfa.n_states
    counts = np.bincount(np.array([q for q, _, _ in pairs], dtype=np.int64), minlength=n_lexer)
    pair_offsets = np.zeros(n_lexer + 1, dtype=np.int32)
    np.cumsum(counts, out=pair_offsets[1:])
    by_class = np.array(builder.rows, dtype=np.int32).reshape(len(builder.rows), n_classes)
    return BoundaryProducts(np.ascontiguousarray(by_class[:, class_of_byte]), pair_offsets,
                            np.array([u for _, u, _ in pairs], dtype=np.int32),
                            np.array([p for _, _, p in pairs], dtype=np.int64), complete)


class _ProductStates:
    """The product states of every pair, numbered once for all of them.

    A state is ``(q, S, u)``: in ``t`` at lexer state ``q`` (``DEAD`` once ``t`` cannot go on),
    with ``u`` running from each of the states ``S``.  Once ``q`` is ``DEAD`` nothing can start
    ``u`` again, so the state is ``(DEAD, S, -1)`` whatever the pair: every pair ending in the
    same ``u`` shares those states instead of building ``u``'s subsets again (Kubernetes
    kb_684: 630 pairs, most of them into the same string lexeme).  A ``t`` that ends by longest
    match never runs ``u`` beside itself: its states are ``(q, {}, u)`` until ``t`` is over.
    """

    def __init__(self, by_class: np.ndarray, accepting: list[bool], longest: list[bool], ignored: list[bool],
                 ignored_starts: frozenset):
        """``by_class``: the lexer's transitions, (n_states, n_classes), ``DEAD`` where it dies;
        ``longest``: per lexer state, whether its terminal ends by longest match; ``ignored``:
        whether it is an ignored terminal's, and ``ignored_starts`` their start states."""
        self._table, self._accepting, self._n_classes = by_class.tolist(), accepting, by_class.shape[1]
        self._longest, self._ignored, self._ignored_starts = longest, ignored, ignored_starts
        state, live = np.nonzero(by_class != DEAD)  # row by row, classes ascending
        self._live_cells = live.tolist()
        self._live_offsets = np.searchsorted(state, np.arange(by_class.shape[0] + 1)).tolist()
        self._states = NumberedStates()  # keys (q, S, u)
        self.rows = self._states.rows
        self._dead_row = [DEAD] * self._n_classes
        self._subset_moves: dict[frozenset | tuple, tuple[list[frozenset], list[int]]] = {}
        self._q_live: dict[int, tuple[list[int], set[int]]] = {}  # lexer state -> its live classes (list, set)

    def pair(self, block: range, u_start: int) -> dict[int, int] | None:
        """{q: start state} of "rest of t from q, then u", or None (and nothing kept) when the
        pair adds more than ``MAX_PRODUCT_STATES`` states."""
        mark = len(self.rows)
        stack: list[int] = []
        accepting = self._accepting
        number = self._states.number
        longest = self._longest
        restart = self._ignored_starts | {u_start}
        starts = {q: number((q, restart if accepting[q] and not longest[q] else _NOTHING, u_start), stack)
                  for q in block}
        table = self._table
        while stack:
            if len(self.rows) - mark > MAX_PRODUCT_STATES:
                self._states.forget(mark)
                return None
            state = stack.pop()
            q, started, u = self._states.keys[state]
            moves, moving = self._moves(started, restart)
            row = self._dead_row.copy()
            if q == DEAD:
                for c in moving:
                    row[c] = number(self._t_over(moves[c], u), stack)
            elif longest[q]:
                self._longest_row(q, u, restart, row, stack)
            else:
                q_row = table[q]
                q_live, q_live_set = self._live_classes(q)
                # Classes in ascending order (the order states are numbered in), live ones only:
                # most of a row is dead (o59980: 148k live cells of 1.6M).
                for c in (q_live if not moving else sorted(q_live_set.union(moving))):
                    q2, s2 = q_row[c], moves[c]
                    if q2 != DEAD:
                        row[c] = number((q2, s2 | restart if accepting[q2] else s2, u), stack)
                    else:
                        row[c] = number(self._t_over(s2, u), stack)
            self.rows[state] = row
        return starts

    def _t_over(self, started: frozenset, u: int) -> tuple:
        """The key of a state past ``t``: shared by every pair while no ignored lexeme runs (whose
        end starts ``u`` again), the pair's own otherwise."""
        ignored = self._ignored
        return (DEAD, started, u if any(ignored[s] for s in started) else -1)

    def _longest_row(self, q: int, u: int, restart: frozenset, row: list[int], stack: list[int]) -> None:
        """Fill the row of ``(q, {}, u)`` for a ``t`` that ends by longest match: on a class ``t``
        takes it goes on alone; on one it cannot take, from an accepting ``q``, ``t`` ends and
        ``u`` (or an ignored lexeme) reads the byte."""
        number, q_row = self._states.number, self._table[q]
        q_live, q_live_set = self._live_classes(q)
        for c in q_live:
            row[c] = number((q_row[c], _NOTHING, u), stack)
        if self._accepting[q]:
            moves, moving = self._moves(restart, restart)
            for c in moving:
                if c not in q_live_set:
                    row[c] = number(self._t_over(moves[c], u), stack)

    def _moves(self, started: frozenset, restart: frozenset) -> tuple[list[frozenset], list[int]]:
        """Per class, the live states the subset ``started`` goes to, and the classes where there
        are some, computed once per subset: the pairs into one ``u`` meet the same subsets over
        and over (MaskBench o59980: 1.6M (state, class) steps, from 4,644 distinct subsets).
        An ignored lexeme of the subset that ends starts ``restart`` (``u`` and the ignored
        lexemes: an ignored lexeme leaves the parser where it was, so ``u`` may still come)."""
        ignored = self._ignored
        restarts = any(ignored[s] for s in started)
        key = (started, restart) if restarts else started
        found = self._subset_moves.get(key)
        if found is None:
            table = self._table
            if restarts:
                moves = [self._moved(started, c, restart) for c in range(self._n_classes)]
            elif len(started) == 1:  # most subsets: one state of ``u``
                (only,) = started
                moves = [frozenset((target,)) if target != DEAD else _NOTHING for target in table[only]]
            else:
                moves = [frozenset(table[s][c] for s in started) - {DEAD} for c in range(self._n_classes)]
            found = self._subset_moves[key] = (moves, [c for c, targets in enumerate(moves) if targets])
        return found

    def _moved(self, started: frozenset, c: int, restart: frozenset) -> frozenset:
        """The subset after class ``c`` when some of its lexemes are ignored ones, which end by
        their terminal's rule (all splits: on reaching an accepting state, and ``restart`` reads
        the next byte; longest match: from an accepting state on a class they cannot take, and
        ``restart`` reads this one)."""
        table, accepting, longest, ignored = self._table, self._accepting, self._longest, self._ignored
        found = set()
        for s in started:
            target = table[s][c]
            if target != DEAD:
                found.add(target)
            if not ignored[s]:
                continue
            if longest[s]:
                if target == DEAD and accepting[s]:
                    found.update(table[r][c] for r in restart)
            elif target != DEAD and accepting[target]:
                found.update(restart)
        found.discard(DEAD)
        return frozenset(found)

    def _live_classes(self, q: int) -> tuple[list[int], set[int]]:
        """The classes on which lexer state ``q`` stays live (ascending, and as a set), once per state."""
        found = self._q_live.get(q)
        if found is None:
            live = self._live_cells[self._live_offsets[q]:self._live_offsets[q + 1]]
            found = self._q_live[q] = (live, set(live))
        return found

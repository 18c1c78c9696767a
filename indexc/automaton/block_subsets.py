"""Subsets made of embedded automata's states in lockstep: determinised a level at a time in numpy.

An embedded automaton (``nfa.TableBlock``: a definition's own minimal DFA, the closed "any
JSON value", an intersection lexeme) is a DFA already, copied into the NFA once per use.  Once
the subset construction is inside copies of one table and every other thread has died, each
subset is the same row of those copies (most often of one copy; of two where two alternatives
embed the same definition), and the subsets that follow are again one row of the same copies,
until an accepting row (whose epsilon moves to the copies' continuations open the subset up).
``determinize`` walked those one at a time, a dictionary lookup and two list appends per move,
re-tracing the table it was given.  On the second DFA attempt of the large MaskBench schemas
they are most subsets: kb_711 304,533 of 363,842 are one copy's row (84%), o65415 121,839 one
copy's and 123,731 two or more copies' of 305,494 (80%).

Here a *plain* row is one with moves and no epsilon move (not accepting): the subset of a
plain row of a set of copies (a ``Lane``) is its row's own closure.  Such a subset is queued
in the construction as ``(lane, row)`` (``determinize._Subsets``); when the queue reaches it,
``expand`` walks the plain rows reachable from it breadth-first, one numpy step per level (a
definition's 40,217-state table is 147 levels deep), numbers every new one in one call, and
hands the other targets (accepting rows, whose closures reach outside) to the ordinary path as
closures.  ``fill`` writes the walked rows' transitions into the finished table, one gather
per lane by the column each atom falls in.

Each lane holds two arrays of its table's rows (9 bytes a row).  The lanes' rows are bounded
(``max_lane_rows``: ``determinize`` gives four times its subset limit, 14 MB at the default);
past it, new lanes are not made and their subsets take the ordinary path.  The large MaskBench
schemas stay far below: o65415's largest construction has 2 lanes of 93,280 rows in all
(93,760 subsets), kb_711's 4 lanes of 81,507.

The subsets are the same ones as before, only numbered in another order (a minimal DFA is one
up to its numbering, and every caller numbers its result again), so the limits on subsets
stop the same constructions.  Tables whose columns share an atom (their rows would need
``determinize._merged``) are left to the ordinary path.  A regex's NFA has no blocks: this
path allocates nothing for it and the construction does not ask it about any subset.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Protocol

import numpy as np

from indexc.automaton.byte_dfa import DEAD
from indexc.automaton.nfa import NFA, TableBlock


class Numbering(Protocol):
    """What ``expand`` needs of the construction: numbers for new lane rows and for closures."""

    def add_lane_rows(self, lane: int, rows: list[int], copies: int) -> int: ...  # the first number

    def number_of(self, closure: frozenset[int]) -> int: ...


@dataclass
class Lane:
    """Copies of one table (same table, same columns) whose subsets hold the same row of each."""

    firsts: tuple[int, ...]  # each copy's first NFA state, ascending
    table: np.ndarray
    set_indices: tuple[int, ...]
    plain_rows: np.ndarray  # bool per row
    numbers: np.ndarray  # int64 per row: its subset's number (plain rows), its closure's (others); -1 unknown
    expanded: np.ndarray  # bool per row: walked by ``expand``
    walked: list[np.ndarray] = field(default_factory=list)  # rows walked, level by level


class BlockSubsets:
    """The plain block states of an NFA, the lanes found so far, and their walks."""

    def __init__(self, nfa: NFA, epsilon: list[list[int]], important: list[bool], set_masks: list[int],
                 max_lane_rows: int):
        self.blocks = nfa.blocks
        self.max_lane_rows = max_lane_rows  # rows of all lanes' arrays: past it, new lanes take the ordinary path
        self.lane_rows = 0
        n = nfa.n_states if nfa.blocks else 0  # a regex's NFA has no blocks: nothing to allocate
        self.block_of = np.full(n, -1, dtype=np.int64)
        self._table_key: list[tuple[int, tuple[int, ...]]] = []
        self._plain_rows: dict[tuple[int, tuple[int, ...]], np.ndarray] = {}  # per table and columns
        plain = [False] * n
        for i, block in enumerate(nfa.blocks):
            key = (id(block.table), block.set_indices)
            self._table_key.append(key)
            lo, hi = block.first, block.first + block.n_states
            if key not in self._plain_rows:
                disjoint = _columns_disjoint([set_masks[s] for s in block.set_indices])
                rows = [disjoint and live and not moves for live, moves in zip(important[lo:hi], epsilon[lo:hi])]
                self._plain_rows[key] = np.array(rows, dtype=bool)
            plain[lo:hi] = self._plain_rows[key].tolist()
            self.block_of[lo:hi] = i
        self.plain = plain  # per NFA state: read per new subset by ``lane_row``
        self.lanes: list[Lane] = []
        self._lane_of: dict[tuple[int, ...], int | None] = {}  # block indices -> lane (None: refused)

    def lane_row(self, closure: frozenset[int]) -> tuple[int, int] | None:
        """(lane, row) if ``closure`` is one plain row of copies of one table, else None."""
        plain, block_of = self.plain, self.block_of
        blocks, row = [], -1
        for q in closure:
            if not plain[q]:
                return None
            b = int(block_of[q])
            r = q - self.blocks[b].first
            if r != row and row >= 0:
                return None
            row = r
            blocks.append(b)
        if len(blocks) > 1 and len({self._table_key[b] for b in blocks}) > 1:
            return None
        lane = self._lane(tuple(sorted(blocks)))
        return None if lane is None else (lane, row)

    def _lane(self, blocks: tuple[int, ...]) -> int | None:
        """The lane of these copies, made if the lanes' rows stay within ``max_lane_rows``
        (None: never, then, for these copies, so a subset is always numbered one way)."""
        if blocks in self._lane_of:
            return self._lane_of[blocks]
        block = self.blocks[blocks[0]]
        n = block.n_states
        if self.lane_rows + n > self.max_lane_rows:
            self._lane_of[blocks] = None
            return None
        self.lane_rows += n
        found = self._lane_of[blocks] = len(self.lanes)
        self.lanes.append(Lane(tuple(self.blocks[b].first for b in blocks), block.table, block.set_indices,
                               self._plain_rows[self._table_key[blocks[0]]],
                               np.full(n, -1, dtype=np.int64), np.zeros(n, dtype=bool)))
        return found

    def expand(self, lane_index: int, row: int, numbering: Numbering,
               closure_of: Callable[[int], frozenset[int]]) -> None:
        """Walk the plain rows reachable from ``row`` in the lane, numbering the new ones."""
        lane = self.lanes[lane_index]
        plain, numbers, expanded = lane.plain_rows, lane.numbers, lane.expanded
        expanded[row] = True
        rows = np.array([row], dtype=np.int64)
        while rows.size:
            lane.walked.append(rows)
            cells = lane.table[rows]
            targets = np.unique(cells[cells != DEAD])
            new = targets[numbers[targets] < 0]
            if new.size:
                new_plain = new[plain[new]]
                if new_plain.size:
                    start = numbering.add_lane_rows(lane_index, new_plain.tolist(), len(lane.firsts))
                    numbers[new_plain] = np.arange(start, start + new_plain.size)
                for t in new[~plain[new]].tolist():  # accepting rows: their closures reach outside
                    closure = frozenset().union(*[closure_of(first + t) for first in lane.firsts])
                    numbers[t] = numbering.number_of(closure)
            following = targets[plain[targets] & ~expanded[targets]]
            expanded[following] = True
            rows = following

    def fill(self, transitions: np.ndarray, set_atoms: tuple[np.ndarray, ...]) -> None:
        """Write the walked rows' transitions into the finished (all ``DEAD`` there) table: per
        lane, one gather of its rows' cells by the column each atom falls in."""
        for lane in self.lanes:
            if not lane.walked:
                continue
            rows = np.concatenate(lane.walked)
            column_of_atom = np.full(transitions.shape[1], -1, dtype=np.int64)  # -1: the all-DEAD column appended
            for column, set_index in enumerate(lane.set_indices):
                column_of_atom[set_atoms[set_index]] = column
            cells = np.concatenate([lane.table[rows], np.full((rows.size, 1), DEAD, lane.table.dtype)], axis=1)
            cells = cells[:, column_of_atom]  # (rows, atoms)
            live = cells != DEAD
            transitions[lane.numbers[rows]] = np.where(live, lane.numbers[np.where(live, cells, 0)], DEAD)


def _columns_disjoint(masks: list[int]) -> bool:
    """Whether no two columns share an atom (then no row of the table needs its moves merged)."""
    seen = 0
    for mask in masks:
        if seen & mask:
            return False
        seen |= mask
    return True

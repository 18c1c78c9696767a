"""Subsets that are one state of an embedded automaton: determinised a level at a time in numpy.

An embedded automaton (``nfa.TableBlock``: a definition's own minimal DFA, the closed "any
JSON value", an intersection lexeme) is a DFA already.  Once the subset construction is inside
one copy of it and every other thread has died, each subset is a single state of that copy,
and the subsets that follow are single states of the same copy until an accepting state (whose
epsilon move to the copy's continuation opens the subset up again).  ``determinize`` walked
those one at a time, a dictionary lookup and two list appends per move, re-tracing the table it
was given.  On the second DFA attempt of the large MaskBench schemas they are most subsets:
kb_711 304,533 of its 363,842 (84%), o6353 87%, o58218 81%, kb_148 72%, o65415 40%.

Here a *plain* state is a block state whose closure is itself: it has moves and no epsilon
move (not accepting).  The subset ``{q}`` of a plain ``q`` is kept in the construction's
queue as the int ``q`` (``determinize._Subsets``); when the queue reaches it, ``expand`` walks
the plain states reachable from ``q`` inside its copy breadth-first, one numpy step per level
(a definition's 40,217-state table is 147 levels deep), numbers every new one in one call, and
leaves the other targets (accepting states, whose closures reach outside) to the ordinary path
as closures.  The walked rows' transitions are written into the finished table by ``fill``,
column by column, for all the rows of one copy at once.

The subsets are the same ones as before, only numbered in another order (a minimal DFA is one
up to its numbering, and every caller numbers its result again), so the limits on subsets
stop the same constructions.  Blocks whose columns share an atom (their rows would need
``determinize._merged``) are left to the ordinary path; a regex's NFA has no blocks, so this
path costs it nothing.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from indexc.automaton.byte_dfa import DEAD
from indexc.automaton.nfa import NFA, TableBlock


class Numbering(Protocol):
    """What ``expand`` needs of the construction: numbers for new plain states and for closures."""

    def add_plain(self, states: list[int]) -> int: ...  # the first number of ``states``, numbered in order

    def number_of(self, closure: frozenset[int]) -> int: ...


class BlockSubsets:
    """The plain states of an NFA's blocks, the number of each state's closure once known
    (``closure_number``: -1 before), and the rows walked (``expand``) for ``fill``."""

    def __init__(self, nfa: NFA, epsilon: list[list[int]], important: list[bool], set_masks: list[int]):
        n = nfa.n_states
        self.blocks = nfa.blocks
        self.closure_number = np.full(n, -1, dtype=np.int64)
        self.expanded = np.zeros(n, dtype=bool)
        self.block_of = np.full(n, -1, dtype=np.int64)
        plain = np.zeros(n, dtype=bool)
        disjoint: dict[tuple[int, tuple[int, ...]], bool] = {}  # per table and columns, shared by copies
        for i, block in enumerate(nfa.blocks):
            key = (id(block.table), block.set_indices)
            if key not in disjoint:
                disjoint[key] = _columns_disjoint([set_masks[s] for s in block.set_indices])
            if disjoint[key]:
                lo, hi = block.first, block.first + block.n_states
                plain[lo:hi] = [live and not moves for live, moves in zip(important[lo:hi], epsilon[lo:hi])]
                self.block_of[lo:hi] = i
        self.plain = plain
        self.plain_list: list[bool] = plain.tolist()  # read per subset by the ordinary path
        self._walked: dict[int, list[np.ndarray]] = {}  # block index -> rows walked, level by level

    def expand(self, state: int, numbering: Numbering, closure_of) -> None:
        """Walk the plain states reachable from ``state`` in its copy, numbering the new ones."""
        block_index = int(self.block_of[state])
        block = self.blocks[block_index]
        first, table = block.first, block.table
        plain, numbers, expanded = self.plain, self.closure_number, self.expanded
        walked = self._walked.setdefault(block_index, [])
        expanded[state] = True
        rows = np.array([state - first], dtype=np.int64)
        while rows.size:
            walked.append(rows)
            cells = table[rows]
            targets = np.unique(cells[cells != DEAD]) + first
            new = targets[numbers[targets] < 0]
            if new.size:
                new_plain = new[plain[new]]
                if new_plain.size:
                    start = numbering.add_plain(new_plain.tolist())
                    numbers[new_plain] = np.arange(start, start + new_plain.size)
                for q in new[~plain[new]].tolist():  # accepting states: their closures reach outside
                    numbers[q] = numbering.number_of(closure_of(q))
            following = targets[plain[targets] & ~expanded[targets]]
            expanded[following] = True
            rows = following - first

    def fill(self, transitions: np.ndarray, set_atoms: tuple[np.ndarray, ...]) -> None:
        """Write the walked rows' transitions into the finished (all ``DEAD`` there) table: per
        copy, one gather of its rows' cells by the column each atom falls in."""
        numbers = self.closure_number
        for block_index, levels in self._walked.items():
            block: TableBlock = self.blocks[block_index]
            rows = np.concatenate(levels)
            column_of_atom = np.full(transitions.shape[1], -1, dtype=np.int64)  # -1: the all-DEAD column appended
            for column, set_index in enumerate(block.set_indices):
                column_of_atom[set_atoms[set_index]] = column
            cells = np.concatenate([block.table[rows], np.full((rows.size, 1), DEAD, block.table.dtype)], axis=1)
            cells = cells[:, column_of_atom]  # (rows, atoms)
            live = cells != DEAD
            transitions[numbers[block.first + rows]] = np.where(live, numbers[block.first + np.where(live, cells, 0)], DEAD)


def _columns_disjoint(masks: list[int]) -> bool:
    """Whether no two columns share an atom (then no row of the table needs its moves merged)."""
    seen = 0
    for mask in masks:
        if seen & mask:
            return False
        seen |= mask
    return True

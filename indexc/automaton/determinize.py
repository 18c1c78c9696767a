"""Subset construction over atoms: Thompson NFA -> character-level DFA.

Determinisation happens on *characters* (atoms, see ``atom_partition``), not on bytes: the
alphabet is a handful of atoms instead of 256 bytes or a million code points, and a DFA
state is never split in the middle of a UTF-8 sequence, so the sets of NFA states stay
those of the regex.  The byte level comes after (``utf8_expansion``) and needs no further
subset construction.

A DFA state is the frozenset of the *important* NFA states of an epsilon closure: those with
a character edge, and the accepting state.  Two closures with the same important states
behave the same, so keying by them merges them up front.  Closures are memoised per NFA
state.  The construction stops with a ``LimitError`` as soon as it exceeds ``max_subset_states``
subsets or ``max_table_cells`` table cells, before the table is allocated; it checks the time
limit at every state and the memory limit every 1,024 states (``indexc.limits``).  The
subsets are counted before minimisation, so their bound is 4x the kept DFA's ``max_states``
(``automaton.limits``).

Each NFA state's moves are grouped once (``_StateMoves``: per target, the atoms that lead
there as a bit set, and the target's closure), and a subset whose states' atoms do not
overlap (the states' masks tell) takes those groups as they are: no set union, one
dictionary lookup per group.  Overlapping ones are joined by atom set, then, if the sets
still overlap, cut into cells of atoms that no set splits (``_merged``, ``_cells``: one
bit-set test per set and cell, instead of the set update per atom and group it replaced).
On the JSON Schema DFA path most NFA states fall into a single subset, so the grouping must
cost no more than the union it replaces: a Thompson state (one edge) is one tuple, and the
states of an embedded automaton (``nfa.TableBlock``, copied once per occurrence) take the
groups of its table's rows, joined by target once per table for all its copies.  A state
with one edge (nearly every state of a schema's NFA) has its group made up front, in one
loop with the common closure inlined (``_StateMoves._single_edges``): the three calls per
state of the lazy path were most of the time left.  The table is filled from the groups at
the end, by numpy unless it is small.

Cost of the schema path's subset construction (process time, min of 3, same NFAs, before ->
after the bit sets, cells and table blocks; 2-core host shared with other jobs):
Github_easy o9901 (340,687 NFA states -> 94,939 subsets over 50 atoms, 90% of them
overlapping) 2.16 -> 1.20 s; Github_hard o12291 (123,616 -> 84,903 over 60 atoms, 32,175 NFA
states in embedded automata) 0.74 -> 0.50 s; o30745 0.55 -> 0.40 s; o2045 0.19 -> 0.14 s;
the 25 median DFA-path MaskBench schemas 351 -> 303 ms in all.  Then the one-edge states
made up front: o9901 1.62-1.72 -> 0.91-1.13 s, o12291 0.65 -> 0.44-0.55 s, o30745 0.40-0.50 ->
0.30-0.40 s, the median 25 306-365 -> 261-285 ms (two interleaved runs each; the host was
busy).  The bench regexes after both steps (in one process, min of 60 interleaved): most
faster, ``email`` 4% slower (98 -> 102 us), ``complex_phone`` 0.71 -> 0.69 ms, the
relation-extraction regex 5.2 ms either way, ``json_person`` 0.49 -> 0.42, ``url`` 1.23 ->
0.99 ms.  Joining equal atom sets before cutting cells: o9901 0.82-0.87 -> 0.75 s, o30745
0.29-0.43 -> 0.27 s, o12291 0.40-0.41 -> 0.39-0.42 s; the bench regexes up to 17% faster
(``complex_phone`` 0.67 -> 0.56 ms) except ``email``, 9% slower (68 -> 74 us).  Before that
(best of 7-200 runs): "any JSON value" (5,640 NFA states, 2,632 subsets over 29 atoms) 22 ->
15 ms against per-atom rows, ``(x|y){0,20000}`` (120,002 NFA states, 20,001 subsets) 0.18 s.

A subset that is one plain row (no epsilon move: not accepting) of copies of an embedded
automaton in lockstep is queued as ``(lane, row)`` and walked with the rest of those copies by
``block_subsets``, a level at a time in numpy; its row is written into the table at the end
(``BlockSubsets.fill``).  A table's rows are grouped for the ordinary path only when a subset
holds them (``_TableRows``).  The routes of the large MaskBench schemas (the second DFA attempt:
definitions embedded as their own DFAs), process time, min of 2 interleaved runs, the same
routed byte DFAs (sha256) before and after: o65415 9.48 -> 6.03 s (80% of its subsets are
lane rows, half of them two copies at once), kb_148 10.89 -> 7.98, kb_711 9.96 -> 7.26, kb_675
5.39 -> 4.27, o83390 5.86 -> 4.63, o6353 3.64 -> 2.30, o58218 3.76 -> 2.51 s; sp_152, o12291,
o9901 and the 10 median DFA-path files the same within noise.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from indexc import limits as compile_limits
from indexc.automaton.atom_partition import AtomPartition
from indexc.automaton.block_subsets import BlockSubsets
from indexc.automaton.byte_dfa import DEAD
from indexc.automaton.limits import AutomatonLimits
from indexc.automaton.nfa import NFA, TableBlock
from indexc.errors import LimitError


@dataclass(frozen=True)
class AtomDFA:
    """A DFA over atoms: ``transitions`` int32 ``(n_states, n_atoms)``, ``DEAD`` = -1."""

    transitions: np.ndarray
    accepting: np.ndarray

    @property
    def n_states(self) -> int:
        return int(self.transitions.shape[0])


class _Closures:
    """Important-state epsilon closures of single NFA states, memoised."""

    def __init__(self, nfa: NFA):
        self.epsilon = nfa.epsilon
        self.important = [bool(edges) for edges in nfa.edges]
        live_rows: dict[int, list[bool]] = {}  # per table, shared by its copies
        for block in nfa.blocks:
            rows = live_rows.get(id(block.table))
            if rows is None:
                rows = live_rows[id(block.table)] = (block.table != DEAD).any(axis=1).tolist()
            self.important[block.first:block.first + len(rows)] = rows
        self.important[nfa.accept] = True
        self.memo: dict[int, frozenset[int]] = {}

    def of(self, q: int) -> frozenset[int]:
        found = self.memo.get(q)
        if found is None:
            epsilon, important = self.epsilon, self.important
            if not epsilon[q]:  # a character edge's source, or the accepting state
                found = self.memo[q] = frozenset((q,)) if important[q] else frozenset()
                return found
            seen, stack = {q}, [q]
            while stack:
                for r in epsilon[stack.pop()]:
                    if r not in seen:
                        seen.add(r)
                        stack.append(r)
            found = self.memo[q] = frozenset([r for r in seen if important[r]])
        return found


_NOTHING: frozenset[int] = frozenset()
_PYTHON_FILL_CELLS = 1_024  # tables up to this size are filled in Python (``_table``)
_BITS_CHUNK_CELLS = 1 << 22  # at most this many (group, atom) cells unpacked at a time

Group = tuple[int, frozenset[int]]  # atoms as a bit set, and the closed target they move to


RowMoves = tuple[list[tuple[int, int]], int, bool]  # (atoms, target) groups, all atoms, overlap


class _StateMoves:
    """Per NFA state with moves: its moves as ``Group``s, memoised.

    A subset's moves are the union of its states' moves; precomputing them per state (the
    atoms of each edge as a bit set, the closure of each target) leaves the subset
    construction one dictionary lookup per group when the states' atoms do not overlap.
    The states of a ``TableBlock`` take their groups from the table's rows, grouped once per
    table (``_TableRows``, a row when a subset first holds it) for all the copies of an embedded
    automaton."""

    def __init__(self, nfa: NFA, closures: _Closures, set_atoms: tuple[np.ndarray, ...]):
        self.edges, self.closures = nfa.edges, closures
        self.set_masks = [sum(1 << atom for atom in atoms.tolist()) for atoms in set_atoms]
        self.single: list[Group | None] = self._single_edges(nfa)  # the one group of a one-edge state
        self.memo: list[tuple[list[Group], int] | None] = [None] * nfa.n_states  # the other states'
        self.in_block: list[tuple[int, _TableRows] | None] = [None] * nfa.n_states
        tables: dict[tuple[int, tuple[int, ...]], _TableRows] = {}
        for block in nfa.blocks:
            key = (id(block.table), block.set_indices)
            rows = tables.get(key)
            if rows is None:
                rows = tables[key] = _TableRows(block, self.set_masks)
            self.in_block[block.first:block.first + block.n_states] = [(block.first, rows)] * block.n_states

    def _single_edges(self, nfa: NFA) -> list[Group | None]:
        """The moves of every state with one edge (nearly all of a schema's NFA), in one loop
        with the common closure (a target without epsilon moves) inlined: a call per state
        was most of the construction's time on the large schema NFAs."""
        set_masks, closures = self.set_masks, self.closures
        epsilon, important, closure_memo = closures.epsilon, closures.important, closures.memo
        single: list[Group | None] = [None] * nfa.n_states
        for q, edges in enumerate(nfa.edges):
            if len(edges) == 1:
                (set_index, target), = edges
                closure = closure_memo.get(target)
                if closure is None:
                    if epsilon[target]:
                        closure = closures.of(target)
                    else:
                        closure = closure_memo[target] = frozenset((target,)) if important[target] else _NOTHING
                single[q] = (set_masks[set_index], closure)
        return single

    def of(self, q: int) -> tuple[list[Group], int]:
        """(the groups of ``q``, all their atoms as a bit set), for a state without one edge."""
        found = self.memo[q]
        if found is None:
            found = self.memo[q] = self._group(q)
        return found

    def _group(self, q: int) -> tuple[list[Group], int]:
        """One group per edge (a Thompson state has one edge), or per target of a table row."""
        block = self.in_block[q]
        if block is not None:
            first, rows = block
            row_groups, mask, overlap = rows[q - first]
            known, of = self.closures.memo.get, self.closures.of  # (an empty closure is just looked up again)
            groups = [(atoms, known(first + target) or of(first + target)) for atoms, target in row_groups]
            return (_merged(groups) if overlap else groups), mask
        row_groups, mask, overlap = _joined(self.set_masks, self.edges[q])
        of = self.closures.of
        groups = [(atoms, of(target)) for atoms, target in row_groups]
        return (_merged(groups) if overlap else groups), mask


class _TableRows:
    """A table's rows as ``RowMoves`` (moves joined by relative target), each made when a subset
    first holds its state: since ``block_subsets`` walks the subsets of one block state, most
    rows never are (grouping every row up front was 4.3 of kb_711's 21 s under cProfile)."""

    def __init__(self, block: TableBlock, set_masks: list[int]):
        self.table, self.set_indices, self.set_masks = block.table, block.set_indices, set_masks
        self.rows: list[RowMoves | None] = [None] * block.n_states

    def __getitem__(self, row: int) -> RowMoves:
        found = self.rows[row]
        if found is None:
            set_indices = self.set_indices
            edges = [(set_indices[c], t) for c, t in enumerate(self.table[row].tolist()) if t != DEAD]
            found = self.rows[row] = _joined(self.set_masks, edges)
        return found


def _joined(set_masks: list[int], edges: list[tuple[int, int]]) -> RowMoves:
    """A state's edges joined by target (an embedded automaton's row: a string body moves to one
    state on most of its columns), and whether two targets share an atom."""
    by_target: dict[int, int] = {}
    mask, overlap = 0, False
    for set_index, target in edges:
        set_mask = set_masks[set_index]
        overlap = overlap or bool(mask & set_mask)
        mask |= set_mask
        by_target[target] = by_target.get(target, 0) | set_mask
    return [(atoms, target) for target, atoms in by_target.items()], mask, overlap


def determinize(
    nfa: NFA, partition: AtomPartition, limits: AutomatonLimits, *, source: str = "<regex>"
) -> AtomDFA:
    """The DFA of the reachable subsets, numbered in discovery order (start = 0); not trimmed."""
    closures = _Closures(nfa)
    moves = _StateMoves(nfa, closures, partition.set_atoms)
    blocks = BlockSubsets(nfa, closures.epsilon, closures.important, moves.set_masks,
                          max_lane_rows=4 * limits.max_subset_states)
    subsets = _Subsets(blocks, limits, partition.n_atoms, source)
    subsets.number_of(closures.of(nfa.start))
    index, order, lanes = subsets.index, subsets.order, blocks.lanes
    group_masks: list[int] = []  # every state's groups in turn: their atoms (a bit set), target
    group_targets: list[int] = []
    groups_per_state: list[int] = []
    guard = compile_limits.current()
    for subset in order:  # grows while iterating: breadth-first
        guard.check_time("subset construction")
        if type(subset) is tuple:  # a plain row of a lane of blocks: its row is written by ``blocks.fill``
            lane, row = subset
            if not lanes[lane].expanded[row]:
                blocks.expand(lane, row, subsets, closures.of)
            groups_per_state.append(0)
            continue
        groups = _subset_moves(subset, moves)
        for mask, target in groups:
            t = index.get(target)
            if t is None:
                t = subsets.number_new(target)
            group_masks.append(mask)
            group_targets.append(t)
        groups_per_state.append(len(groups))
    transitions = _table(len(order), partition.n_atoms, group_masks, group_targets, groups_per_state)
    blocks.fill(transitions, partition.set_atoms)
    accepting = np.array([type(s) is not tuple and nfa.accept in s for s in order], dtype=bool)
    return AtomDFA(transitions, accepting)


class _Subsets:
    """The subsets found so far, numbered in discovery order, under the construction's limits.

    A subset that is a plain row of a lane of blocks (``block_subsets``) is queued as ``(lane,
    row)`` and numbered in its lane; every other one as its frozenset, numbered in ``index``.
    The same subset always gets the same number, whichever path finds it first."""

    def __init__(self, blocks: BlockSubsets, limits: AutomatonLimits, n_atoms: int, source: str):
        self.blocks, self.limits, self.n_atoms, self.source = blocks, limits, n_atoms, source
        self.index: dict[frozenset[int], int] = {}
        self.order: list[frozenset[int] | tuple[int, int]] = []
        self.items = 0  # states in all subsets, for the memory estimate
        self.max_states = min(limits.max_subset_states, limits.max_table_cells // max(n_atoms, 1))
        self.guard = compile_limits.current()

    def number_of(self, closure: frozenset[int]) -> int:
        """The number of ``closure``, numbering it if new."""
        found = self.index.get(closure)
        return found if found is not None else self.number_new(closure)

    def number_new(self, closure: frozenset[int]) -> int:
        """The number of a closure not in ``index`` yet (new, or a lane row numbered by a walk)."""
        lane_row = self.blocks.lane_row(closure) if closure and self.blocks.blocks else None
        if lane_row is not None:
            lane, row = lane_row
            numbers = self.blocks.lanes[lane].numbers
            number = int(numbers[row])
            if number < 0:
                number = numbers[row] = self.add_lane_rows(lane, [row], len(closure))
        else:
            number = len(self.order)
            self._grow([closure], len(closure))
        self.index[closure] = number  # later lookups of this frozenset hit
        return number

    def add_lane_rows(self, lane: int, rows: list[int], copies: int) -> int:
        """Number new plain rows of a lane, in order; the first one's number."""
        first = len(self.order)
        self._grow([(lane, row) for row in rows], copies * len(rows))
        return first

    def _grow(self, subsets: list, items: int) -> None:
        before = len(self.order)
        self.order.extend(subsets)
        self.items += items
        if len(self.order) > self.max_states:
            raise _too_many_states(self.limits, self.n_atoms, self.source)
        if len(self.order) // 1024 > before // 1024:
            self.guard.check_memory(_estimated_bytes(len(self.order), self.n_atoms, self.items),
                                    "the subset construction")


def _table(n_states: int, n_atoms: int, group_masks: list[int], group_targets: list[int],
           groups_per_state: list[int]) -> np.ndarray:
    """The transition table from the groups, filled by numpy (a group covers many atoms), or
    for a small table (a typical regex) in Python, which is then cheaper than the numpy calls."""
    if n_states * n_atoms <= _PYTHON_FILL_CELLS:
        rows = [[DEAD] * n_atoms for _ in range(n_states)]
        atoms_of: dict[int, tuple[int, ...]] = {}  # a mask's atoms (a regex's groups repeat a few masks)
        group = 0
        for row, count in zip(rows, groups_per_state):
            for mask, target in zip(group_masks[group:group + count], group_targets[group:group + count]):
                atoms = atoms_of.get(mask)
                if atoms is None:
                    atoms = atoms_of[mask] = tuple(a for a in range(mask.bit_length()) if mask >> a & 1)
                for atom in atoms:
                    row[atom] = target
            group += count
        return np.array(rows, dtype=np.int32).reshape(n_states, n_atoms)
    transitions = np.full((n_states, n_atoms), DEAD, dtype=np.int32)
    sources = np.repeat(np.arange(n_states), groups_per_state)
    targets = np.array(group_targets, dtype=np.int32)
    chunk = max(1, _BITS_CHUNK_CELLS // n_atoms)
    for lo in range(0, len(group_masks), chunk):
        rows, atoms = np.nonzero(_bits(group_masks[lo:lo + chunk], n_atoms))
        transitions[sources[lo + rows], atoms] = targets[lo + rows]
    return transitions


def _bits(masks: list[int], n_atoms: int) -> np.ndarray:
    """``masks`` as a ``(len(masks), n_atoms)`` 0/1 matrix (bit ``a`` of a mask is column ``a``)."""
    if n_atoms < 64:
        packed = np.fromiter(masks, dtype="<i8", count=len(masks)).view(np.uint8).reshape(-1, 8)
    else:
        width = (n_atoms + 7) // 8
        packed = np.frombuffer(b"".join([m.to_bytes(width, "little") for m in masks]), dtype=np.uint8)
        packed = packed.reshape(-1, width)
    return np.unpackbits(packed, axis=1, count=n_atoms, bitorder="little")


def _estimated_bytes(n_states: int, n_atoms: int, subset_items: int) -> int:
    """Rows as Python lists (a pointer and an int object per cell), subsets (a hash slot per item).

    The groups that replaced the rows take less; the estimate is kept, so that the memory limit
    stops the same constructions as before."""
    return n_states * (n_atoms * 36 + 200) + subset_items * 40


def _subset_moves(subset: frozenset[int], moves: _StateMoves) -> list[Group]:
    """The groups of one DFA state, atoms disjoint across groups."""
    groups: list[Group] = []
    seen_atoms = 0
    overlap = False
    single, memo = moves.single, moves.memo
    for q in subset:
        group = single[q]
        if group is not None:  # most states: one edge
            mask = group[0]
            if seen_atoms & mask:
                overlap = True
            seen_atoms |= mask
            groups.append(group)
            continue
        found = memo[q]  # inlined ``moves.of``: one call less per item
        state_groups, mask = found if found is not None else moves.of(q)
        if state_groups:
            if seen_atoms & mask:
                overlap = True
            seen_atoms |= mask
            groups.extend(state_groups)
    return _merged(groups) if overlap else groups


def _merged(groups: list[Group]) -> list[Group]:
    """Overlapping groups -> disjoint ones: each atom's target is the union of its groups'.

    Groups with the same atoms are joined first (the common overlap: a schema's DFA state
    holding the same place of several copies of a value, e.g. one string body per property
    that can come next, every copy moving on the same atoms); if the distinct atom sets still
    overlap, they are cut into cells (``_cells``).  Cells with the same union are joined, so
    every target appears once."""
    by_atoms: dict[int, list[frozenset[int]]] = {}
    for mask, closure in groups:
        found = by_atoms.get(mask)
        if found is None:
            by_atoms[mask] = [closure]
        else:
            found.append(closure)
    seen = 0
    for mask in by_atoms:
        if seen & mask:
            cells = _cells(by_atoms)
            break
        seen |= mask
    else:
        cells = by_atoms.items()
    by_union: dict[frozenset[int], int] = {}
    for mask, closures in cells:
        union = closures[0] if len(closures) == 1 else frozenset().union(*closures)
        by_union[union] = by_union.get(union, 0) | mask
    return [(mask, union) for union, mask in by_union.items()]


def _cells(by_atoms: dict[int, list[frozenset[int]]]) -> list[tuple[int, list[frozenset[int]]]]:
    """Overlapping atom sets -> disjoint cells that no set splits, each with the closures of the
    sets covering it: one bit-set test per set and cell, not one set update per atom."""
    cells: list[list] = []  # [atoms, closures], disjoint
    covered = 0  # the atoms of all cells
    for mask, closures in by_atoms.items():
        seen = mask & covered  # atoms already in some cell: those cells take ``closures`` too
        if seen != mask:
            cells.append([mask ^ seen, list(closures)])
            covered |= mask
        i = 0
        while seen:  # ends before the cells appended here (they hold no atom of ``seen``)
            cell = cells[i]
            i += 1
            common = cell[0] & seen
            if common:
                if common != cell[0]:
                    cells.append([cell[0] ^ common, cell[1][:]])
                    cell[0] = common
                cell[1].extend(closures)
                seen ^= common
    return cells


def _too_many_states(limits: AutomatonLimits, n_atoms: int, source: str) -> LimitError:
    if limits.max_subset_states * n_atoms > limits.max_table_cells:
        return LimitError(
            f"the character-level DFA needs more than {limits.max_table_cells // n_atoms:,} states "
            f"over {n_atoms:,} character classes (table limit {limits.max_table_cells:,} cells)",
            source=source,
        )
    return LimitError(
        f"the DFA needs more than {limits.max_subset_states:,} states before minimisation (limit "
        f"{limits.max_subset_states:,}, 4x --max-states); raise it with --max-states",
        source=source,
    )

"""Subset construction over atoms: Thompson NFA -> character-level DFA.

Determinisation happens on *characters* (atoms, see ``atom_partition``), not on bytes: the
alphabet is a handful of atoms instead of 256 bytes or a million code points, and a DFA
state is never split in the middle of a UTF-8 sequence, so the sets of NFA states stay
those of the regex.  The byte level comes after (``utf8_expansion``) and needs no further
subset construction.

A DFA state is the frozenset of the *important* NFA states of an epsilon closure: those with
a character edge, and the accepting state.  Two closures with the same important states
behave the same, so keying by them merges them up front.  Closures are memoised per NFA
state.  The construction stops with a ``LimitError`` as soon as it exceeds ``max_states``
states or ``max_table_cells`` table cells, before the table is allocated; it checks the time
limit at every state and the memory limit every 1,024 states (``indexc.limits``).

Each NFA state's moves are grouped once (``_StateMoves``: per target, the atoms that lead
there and the target's closure), and a subset whose states' atoms do not overlap (most of
them; the states' atoms as bit sets tell) takes those groups as they are: no set union, one
dictionary lookup per group.  Overlapping ones are merged atom by atom (``_merged``), as
before.  On the JSON Schema DFA path most NFA states fall into a single subset, so the
grouping must cost no more than the union it replaces: a Thompson state (one edge) is one
tuple, and an embedded DFA's state (one edge per live column, most of them to one target) is
joined by target first.  The table is filled from the groups at the end, by numpy unless it
is small.

Cost (best of 7-200 runs, in one process against the previous version on the same NFA): a
regex whose subsets mostly overlap pays the grouping for nothing, 5-15% (``email`` 59 -> 66
us, ``complex_phone`` 0.59 -> 0.63 ms, the https regex, 78 subsets, 0.85 -> 0.89 ms; two
other ways of merging, tried, were slower still); the others gain (``json_person`` 0.98 ->
0.45 ms, ``iso_datetime`` 0.21 -> 0.16 ms, the relation-extraction regex, 1,460 NFA states
and 454 subsets over 35 atoms, 5.8 -> 5.0 ms); ``(x|y){0,20000}`` (120,002 NFA states,
20,001 subsets) takes 0.18 s.  The schema path gains most: "any JSON value" (5,640 NFA
states, 2,632 subsets over 29 atoms) 22 -> 15 ms, MaskBench Glaiveai2K send_email (1,146
subsets, 46 atoms) 12 -> 7 ms, Github_easy o60843 (3,639 subsets, 49 atoms) 40 -> 23 ms,
Github_medium o42810 (14,724 subsets, 51 atoms) 257 -> 231 ms (its subsets overlap more).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import chain

import numpy as np

from indexc import limits as compile_limits
from indexc.automaton.atom_partition import AtomPartition
from indexc.automaton.byte_dfa import DEAD
from indexc.automaton.limits import AutomatonLimits
from indexc.automaton.nfa import NFA
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


_PYTHON_FILL_CELLS = 1_024  # tables up to this size are filled in Python (``_table``)

Group = tuple[tuple[int, ...], frozenset[int]]  # atoms, and the closed target they move to


class _StateMoves:
    """Per NFA state with edges: its moves as ``Group``s, memoised.

    A subset's moves are the union of its states' moves; precomputing them per state (the
    atoms of each set, the closure of each target) leaves the subset construction one
    dictionary lookup per group when the states' atoms do not overlap, which is most subsets
    (a bit set of each state's atoms tells)."""

    def __init__(self, nfa: NFA, closures: _Closures, set_atoms: list[tuple[int, ...]]):
        self.edges, self.closures, self.set_atoms = nfa.edges, closures, set_atoms
        self.set_masks = [sum(1 << atom for atom in atoms) for atoms in set_atoms]
        self.memo: dict[int, tuple[list[Group], int]] = {}

    def of(self, q: int) -> tuple[list[Group], int]:
        """(the groups of ``q``, all their atoms as a bit set)."""
        found = self.memo.get(q)
        if found is None:
            found = self.memo[q] = self._group(q)
        return found

    def _group(self, q: int) -> tuple[list[Group], int]:
        """One group per edge (a Thompson state has one edge); an embedded DFA's state has one
        edge per live column, often many to one target (a string body), so its edges are
        joined by target first.  Groups are merged only if two of them share an atom."""
        edges = self.edges[q]
        if len(edges) == 1:
            (set_index, target), = edges
            return [(self.set_atoms[set_index], self.closures.of(target))], self.set_masks[set_index]
        by_target: dict[int, list[int]] = {}
        mask, overlap = 0, False
        for set_index, target in edges:
            set_mask = self.set_masks[set_index]
            overlap = overlap or bool(mask & set_mask)
            mask |= set_mask
            found = by_target.get(target)
            if found is None:
                by_target[target] = [set_index]
            else:
                found.append(set_index)
        groups = [self._joined(sets, self.closures.of(target)) for target, sets in by_target.items()]
        return (_merged(groups) if overlap else groups), mask

    def _joined(self, sets: list[int], closure: frozenset[int]) -> Group:
        """The group of the edges on ``sets`` to one target."""
        if len(sets) == 1:
            return self.set_atoms[sets[0]], closure
        return tuple(chain.from_iterable(self.set_atoms[i] for i in sets)), closure


def determinize(
    nfa: NFA, partition: AtomPartition, limits: AutomatonLimits, *, source: str = "<regex>"
) -> AtomDFA:
    """The DFA of the reachable subsets, numbered in discovery order (start = 0); not trimmed."""
    closures = _Closures(nfa)
    moves = _StateMoves(nfa, closures, [tuple(a.tolist()) for a in partition.set_atoms])
    start = closures.of(nfa.start)
    index = {start: 0}
    order = [start]
    group_atoms: list[tuple[int, ...]] = []  # every state's groups in turn: their atoms, target
    group_targets: list[int] = []
    groups_per_state: list[int] = []
    n_atoms = partition.n_atoms
    max_states = min(limits.max_states, limits.max_table_cells // max(n_atoms, 1))
    guard, subset_items = compile_limits.current(), 0
    for subset in order:  # grows while iterating: breadth-first
        guard.check_time("subset construction")
        groups = _subset_moves(subset, moves)
        for atoms, target in groups:
            t = index.get(target)
            if t is None:
                t = index[target] = len(order)
                order.append(target)
                subset_items += len(target)
                if len(order) > max_states:
                    raise _too_many_states(limits, n_atoms, source)
                if len(order) % 1024 == 0:
                    guard.check_memory(_estimated_bytes(len(order), n_atoms, subset_items),
                                       "the subset construction")
            group_atoms.append(atoms)
            group_targets.append(t)
        groups_per_state.append(len(groups))
    transitions = _table(len(order), n_atoms, group_atoms, group_targets, groups_per_state)
    accepting = np.array([nfa.accept in s for s in order], dtype=bool)
    return AtomDFA(transitions, accepting)


def _table(n_states: int, n_atoms: int, group_atoms: list[tuple[int, ...]], group_targets: list[int],
           groups_per_state: list[int]) -> np.ndarray:
    """The transition table from the groups, filled by numpy (a group covers many atoms), or
    for a small table (a typical regex) in Python, which is then cheaper than the numpy calls."""
    if n_states * n_atoms <= _PYTHON_FILL_CELLS:
        rows = [[DEAD] * n_atoms for _ in range(n_states)]
        group = 0
        for row, count in zip(rows, groups_per_state):
            for atoms, target in zip(group_atoms[group:group + count], group_targets[group:group + count]):
                for atom in atoms:
                    row[atom] = target
            group += count
        return np.array(rows, dtype=np.int32).reshape(n_states, n_atoms)
    transitions = np.full((n_states, n_atoms), DEAD, dtype=np.int32)
    atoms_per_group = np.fromiter(map(len, group_atoms), dtype=np.int64, count=len(group_atoms))
    atoms = np.fromiter(chain.from_iterable(group_atoms), dtype=np.int64, count=int(atoms_per_group.sum()))
    sources = np.repeat(np.arange(n_states), groups_per_state)
    transitions[np.repeat(sources, atoms_per_group), atoms] = np.repeat(group_targets, atoms_per_group)
    return transitions


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
    for q in subset:
        state_groups, mask = moves.of(q)
        if state_groups:
            overlap = overlap or bool(seen_atoms & mask)
            seen_atoms |= mask
            groups.extend(state_groups)
    return _merged(groups) if overlap else groups


def _merged(groups: list[Group]) -> list[Group]:
    """Overlapping groups -> disjoint ones: each atom's target is the union of its groups'
    (atom by atom: tried against cutting bit sets into cells, this is as fast on the schema
    DFAs and 10-25% faster on regexes, whose few atoms make the cells overhead)."""
    by_atom: dict[int, set[int]] = {}
    for atoms, target in groups:
        for atom in atoms:
            found = by_atom.get(atom)
            if found is None:
                by_atom[atom] = set(target)
            else:
                found.update(target)
    by_target: dict[frozenset[int], list[int]] = {}
    for atom, targets in by_atom.items():
        by_target.setdefault(frozenset(targets), []).append(atom)
    return [(tuple(atoms), union) for union, atoms in by_target.items()]


def _too_many_states(limits: AutomatonLimits, n_atoms: int, source: str) -> LimitError:
    if limits.max_states * n_atoms > limits.max_table_cells:
        return LimitError(
            f"the character-level DFA needs more than {limits.max_table_cells // n_atoms:,} states "
            f"over {n_atoms:,} character classes (table limit {limits.max_table_cells:,} cells)",
            source=source,
        )
    return LimitError(
        f"the DFA needs more than {limits.max_states:,} states (limit {limits.max_states:,}); "
        "raise it with --max-states",
        source=source,
    )

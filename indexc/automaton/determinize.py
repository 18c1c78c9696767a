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

Each NFA state's moves are grouped once (``_StateMoves``: its atoms, the closure of its
target), and a subset whose states' atoms do not overlap, most of them, takes those groups as
they are: no set union, one dictionary lookup per group.  On the JSON Schema DFA path most NFA
states (8,183 for "any JSON value") fall into a single subset, so the grouping is kept as
cheap as the union it replaces (a Thompson state has one edge: no dictionary at all).

Cost: dominated by Python set unions.  The https regex (52 NFA states, 10 atoms) gives 78
subsets in 0.9 ms, the relation-extraction regex (1,460 NFA states, 35 atoms) 454 subsets in
5.8 ms; ``(x|y){0,20000}`` (120,006 NFA states) 20,001 subsets in 0.2 s.
"""

from __future__ import annotations

from dataclasses import dataclass

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
            seen, stack = {q}, [q]
            while stack:
                for r in epsilon[stack.pop()]:
                    if r not in seen:
                        seen.add(r)
                        stack.append(r)
            found = self.memo[q] = frozenset([r for r in seen if important[r]])
        return found


class _StateMoves:
    """Per NFA state with edges: its moves as ``(atoms, closed target)`` groups, memoised.

    A subset's moves are the union of its states' moves; precomputing them per state (the
    atoms of each set, the closure of each target, grouped by target) leaves the subset
    construction one dictionary lookup per group when the states' atoms do not overlap, which
    is most subsets (``mask`` is the state's atoms as a bit set, to test that)."""

    def __init__(self, nfa: NFA, closures: _Closures, set_atoms: list[tuple[int, ...]]):
        self.edges, self.closures, self.set_atoms = nfa.edges, closures, set_atoms
        self.set_masks = [sum(1 << atom for atom in atoms) for atoms in set_atoms]
        self.memo: dict[int, tuple[list[tuple[tuple[int, ...], frozenset[int]]], int]] = {}

    def of(self, q: int) -> tuple[list[tuple[tuple[int, ...], frozenset[int]]], int]:
        found = self.memo.get(q)
        if found is None:
            found = self.memo[q] = self._group(q)
        return found

    def _group(self, q: int) -> tuple[list[tuple[tuple[int, ...], frozenset[int]]], int]:
        edges = self.edges[q]
        if len(edges) == 1:  # a Thompson state: one set, one target
            (set_index, target), = edges
            return [(self.set_atoms[set_index], self.closures.of(target))], self.set_masks[set_index]
        by_atom: dict[int, frozenset[int]] = {}
        for set_index, target in self.edges[q]:
            closure = self.closures.of(target)
            for atom in self.set_atoms[set_index]:
                previous = by_atom.get(atom)
                by_atom[atom] = closure if previous is None or previous == closure else previous | closure
        by_target: dict[frozenset[int], list[int]] = {}
        for atom, closure in by_atom.items():
            by_target.setdefault(closure, []).append(atom)
        mask = 0
        for atom in by_atom:
            mask |= 1 << atom
        return [(tuple(atoms), closure) for closure, atoms in by_target.items()], mask


def determinize(
    nfa: NFA, partition: AtomPartition, limits: AutomatonLimits, *, source: str = "<regex>"
) -> AtomDFA:
    closures = _Closures(nfa)
    moves = _StateMoves(nfa, closures, [tuple(a.tolist()) for a in partition.set_atoms])
    start = closures.of(nfa.start)
    index = {start: 0}
    order = [start]
    rows: list[list[int]] = []
    n_atoms = partition.n_atoms
    max_states = min(limits.max_states, limits.max_table_cells // max(n_atoms, 1))
    guard, subset_items = compile_limits.current(), 0
    for subset in order:  # grows while iterating: breadth-first
        guard.check_time("subset construction")
        row = [DEAD] * n_atoms
        for atoms, target in _subset_moves(subset, moves):
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
            for atom in atoms:
                row[atom] = t
        rows.append(row)
    transitions = np.array(rows, dtype=np.int32).reshape(len(rows), n_atoms)
    accepting = np.array([nfa.accept in s for s in order], dtype=bool)
    return AtomDFA(transitions, accepting)


def _estimated_bytes(n_states: int, n_atoms: int, subset_items: int) -> int:
    """Rows as Python lists (a pointer and an int object per cell), subsets (a hash slot per item)."""
    return n_states * (n_atoms * 36 + 200) + subset_items * 40


def _subset_moves(subset: frozenset[int], moves: _StateMoves) -> list[tuple[tuple[int, ...], frozenset[int]]]:
    """``(atoms, closed target)`` groups of one DFA state, atoms disjoint across groups."""
    groups: list[tuple[tuple[int, ...], frozenset[int]]] = []
    seen_atoms = 0
    overlap = False
    for q in subset:
        state_groups, mask = moves.of(q)
        if state_groups:
            overlap = overlap or bool(seen_atoms & mask)
            seen_atoms |= mask
            groups.extend(state_groups)
    return _merged(groups) if overlap else groups


def _merged(groups: list[tuple[tuple[int, ...], frozenset[int]]]) -> list[tuple[tuple[int, ...], frozenset[int]]]:
    """Overlapping groups -> disjoint ones: each atom's target is the union of its groups'."""
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
    return [(tuple(atoms), target) for target, atoms in by_target.items()]


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

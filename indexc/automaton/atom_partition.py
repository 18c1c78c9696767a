"""Alphabet compression: the code points a regex cannot tell apart form one *atom*.

The character sets of a regex cut the code-point line at their range ends into elementary
intervals.  Intervals covered by exactly the same sets are interchangeable everywhere in the
regex, so they are merged into one atom; the character-level DFA then has one column per atom
(the phone regex has 5 atoms, the relation-extraction regex 35, the https regex 10) instead
of one per code point, and every set is a list of atoms.

Atoms are computed exactly and vectorised: each (set, interval) membership pair is listed
(``np.repeat`` over the ranges), the pairs are sorted by interval, and the intervals are
refined round by round by the k-th set that covers them (rounds = the largest number of sets
covering one interval, usually 2 or 3): 0.3-0.7 ms for the benchmark regexes, 3 ms for the
https regex whose ``\\w`` brings 1,468 cuts.  Most of those 0.3 ms are numpy's per-call
overhead, not work: when the sets hold at most ``SMALL_RANGES`` (128) ranges in all (no
``\\w``-like class), a plain sweep over the cuts in Python gives the same arrays, at ~2 us a
range: ``date`` 0.42 -> 0.06 ms, ``time`` (``\\d \\s``: 81 ranges) 0.39 -> 0.17 ms; the sweep
would take 1.5 ms where ``\\w``'s 734 ranges take the vectorised path 0.3-0.6 ms.  A JSON
Schema's sets are the other way round: many (60-120: each key's letters, string bodies, digits)
over 140-350 ranges, but they cut the line into few intervals (60-100), covered by many sets at
once, so the vectorised path has many rounds.  Up to ``FEW_INTERVALS`` (256) intervals the sweep
runs whatever the ranges: the 61 such partitions of every 20th MaskBench file, 0.8-4.0 ms ->
0.3-1.2 ms, every one faster (min of 5); ``\\w`` (1,471 intervals) and the URL regex (1,508)
stay vectorised.  Intervals covered by no set (including the
surrogates and the code points past U+10FFFF that the UTF-8 block tree addresses) get atom
``NO_ATOM``: nothing in the regex matches them.

The universe is ``[0, UNIVERSE_END)`` = ``[0, 0x140000)``: four UTF-8 lead bytes F0-F4
address 0x140000 code points, the last 0x30000 of which are invalid.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from indexc.arrays import sorted_unique
from indexc.automaton.code_point_sets import CodePointSet

SMALL_RANGES = 128  # up to this many ranges in all, the pure-Python sweep is faster
FEW_INTERVALS = 256  # up to this many intervals, too (however many sets and ranges cut them)

NO_ATOM = -1
UNIVERSE_END = 0x140000


@dataclass(frozen=True)
class AtomPartition:
    starts: np.ndarray  # int64 (n_intervals,): first code point of each elementary interval
    interval_atom: np.ndarray  # int64 (n_intervals,): its atom, or NO_ATOM
    set_atoms: tuple[np.ndarray, ...]  # the atoms of each character set
    n_atoms: int

    def atom_of(self, code_points: np.ndarray) -> np.ndarray:
        """The atom of each code point (vectorised)."""
        return self.interval_atom[np.searchsorted(self.starts, code_points, side="right") - 1]

    @classmethod
    def of_sets(cls, sets: tuple[CodePointSet, ...]) -> AtomPartition:
        """Atoms numbered by their covering sets' indices, as ascending tuples in lexicographic
        order (both paths number them so)."""
        if sum(s.n_ranges for s in sets) <= SMALL_RANGES:
            return _of_few_ranges(sets)
        starts = _interval_starts(sets)
        if len(starts) <= FEW_INTERVALS:
            return _swept(sets, starts.tolist())
        interval, member = _memberships(sets, starts)
        interval_atom, n_atoms = _refine(len(starts), interval, member)
        set_atoms = tuple(sorted_unique(interval_atom[interval[member == k]]) for k in range(len(sets)))
        return cls(starts, interval_atom, set_atoms, n_atoms)


def _of_few_ranges(sets: tuple[CodePointSet, ...]) -> AtomPartition:
    """The partition by a sweep in Python, its cuts found in Python too."""
    cuts = {0}
    for chars in sets:
        cuts.update(chars.bounds[0::2])
        cuts.update(hi + 1 for hi in chars.bounds[1::2])
    return _swept(sets, sorted(cuts))


def _swept(sets: tuple[CodePointSet, ...], starts: list[int]) -> AtomPartition:
    """The partition by a sweep in Python over the intervals starting at ``starts`` (every
    range bound of ``sets`` among them): each interval lists the sets covering it."""
    first_interval = {start: i for i, start in enumerate(starts)}
    covering: list[list[int]] = [[] for _ in starts]
    for k, chars in enumerate(sets):
        for lo, hi in chars.pairs():
            for i in range(first_interval[lo], first_interval[hi + 1]):
                covering[i].append(k)
    keys = [tuple(c) for c in covering]
    atom_of_key = {key: atom for atom, key in enumerate(sorted(set(keys) - {()}))}
    interval_atom = [atom_of_key.get(key, NO_ATOM) for key in keys]
    atoms_of_set: list[set[int]] = [set() for _ in sets]
    for key, atom in zip(keys, interval_atom):
        for k in key:
            atoms_of_set[k].add(atom)
    set_atoms = tuple(np.array(sorted(atoms), dtype=np.int64) for atoms in atoms_of_set)
    return AtomPartition(np.array(starts, dtype=np.int64), np.array(interval_atom, dtype=np.int64), set_atoms,
                         len(atom_of_key))


def _interval_starts(sets: tuple[CodePointSet, ...]) -> np.ndarray:
    cuts = [np.array([0, UNIVERSE_END], dtype=np.int64)]
    cuts += [s.ranges[:, 0] for s in sets] + [s.ranges[:, 1] + 1 for s in sets]
    starts = sorted_unique(np.concatenate(cuts))
    return starts[starts < UNIVERSE_END]


def _memberships(sets: tuple[CodePointSet, ...], starts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """All (interval, set) pairs with the interval inside the set, sorted by interval."""
    ranges = np.concatenate([s.ranges for s in sets] or [np.empty((0, 2), np.int64)])
    owner = np.repeat(np.arange(len(sets)), [len(s.ranges) for s in sets])
    first = np.searchsorted(starts, ranges[:, 0])
    stop = np.searchsorted(starts, ranges[:, 1] + 1)
    counts = stop - first
    offsets = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
    interval = np.repeat(first, counts) + offsets
    member = np.repeat(owner, counts)
    order = np.lexsort((member, interval))
    return interval[order], member[order]


def _refine(n_intervals: int, interval: np.ndarray, member: np.ndarray) -> tuple[np.ndarray, int]:
    """Group intervals by the exact list of sets covering them."""
    group_start = np.concatenate(([0], np.flatnonzero(np.diff(interval)) + 1))
    rank = np.arange(len(interval)) - np.repeat(group_start, np.diff(np.append(group_start, len(interval))))
    label = np.zeros(n_intervals, dtype=np.int64)
    for k in range(int(rank.max()) + 1 if len(rank) else 0):
        kth = np.full(n_intervals, -1, dtype=np.int64)
        kth[interval[rank == k]] = member[rank == k]
        # Number the (label, kth) pairs in the order ``np.unique(..., axis=0)`` would, from one
        # int64 key per pair: row-wise unique costs ~0.17 ms a call, this ~15 us.
        width = int(kth.max()) + 2
        _, label = np.unique(label * width + (kth + 1), return_inverse=True)
        label = label.reshape(-1)
    covered = np.zeros(n_intervals, dtype=bool)
    covered[interval] = True
    atoms, atom_of_label = np.unique(label[covered], return_inverse=True)
    interval_atom = np.full(n_intervals, NO_ATOM, dtype=np.int64)
    interval_atom[covered] = atom_of_label.reshape(-1)
    return interval_atom, len(atoms)

"""``AtomPartition``: the Python sweep (few ranges) and the vectorised refinement (many) give
the same arrays, atoms numbered the same way, and each atom is one class of the sets."""

from __future__ import annotations

import random

import numpy as np
import pytest

from indexc.automaton import atom_partition
from indexc.automaton.atom_partition import NO_ATOM, AtomPartition
from indexc.automaton.code_point_sets import CodePointSet
from indexc.automaton.unicode_classes import class_escape_set


def random_sets(rng: random.Random) -> tuple[CodePointSet, ...]:
    sets = []
    for _ in range(rng.randint(1, 8)):
        if rng.random() < 0.05:
            sets.append(CodePointSet.empty())
            continue
        ends = sorted(rng.sample(range(0, 120), rng.randint(1, 6)))
        if rng.random() < 0.2:
            ends.append(0x10FFFF)
        sets.append(CodePointSet.from_pairs(zip(ends[0::2], ends[1::2])))
    return tuple(sets)


def vectorised(sets: tuple[CodePointSet, ...]) -> AtomPartition:
    saved = atom_partition.SMALL_RANGES, atom_partition.FEW_INTERVALS
    atom_partition.SMALL_RANGES = atom_partition.FEW_INTERVALS = -1
    try:
        return AtomPartition.of_sets(sets)
    finally:
        atom_partition.SMALL_RANGES, atom_partition.FEW_INTERVALS = saved


def many_sets_over_few_intervals(rng: random.Random) -> tuple[CodePointSet, ...]:
    """A JSON Schema's kind of sets: dozens, more than ``SMALL_RANGES`` ranges in all, cutting
    the line at a few points only (each key's letters, string bodies, digits)."""
    points = sorted(rng.sample(range(0, 200), 40)) + [0x10FFFF]
    sets = []
    while sum(s.n_ranges for s in sets) <= atom_partition.SMALL_RANGES:
        ends = sorted(rng.sample(points, 2 * rng.randint(1, 4)))
        sets.append(CodePointSet.from_pairs(zip(ends[0::2], ends[1::2])))
    return tuple(sets)


def assert_same(a: AtomPartition, b: AtomPartition) -> None:
    assert a.n_atoms == b.n_atoms
    assert np.array_equal(a.starts, b.starts) and np.array_equal(a.interval_atom, b.interval_atom)
    assert len(a.set_atoms) == len(b.set_atoms)
    for x, y in zip(a.set_atoms, b.set_atoms):
        assert x.dtype == y.dtype == np.int64 and np.array_equal(x, y)


@pytest.mark.parametrize("seed", range(4))
def test_sweep_and_refinement_agree(seed):
    rng = random.Random(seed)
    for _ in range(150):
        sets = random_sets(rng)
        assert_same(AtomPartition.of_sets(sets), vectorised(sets))


@pytest.mark.parametrize("seed", range(2))
def test_many_ranges_over_few_intervals_are_swept_and_agree(seed, monkeypatch):
    rng = random.Random(seed)
    swept = []
    monkeypatch.setattr(atom_partition, "_swept", lambda *args: swept.append(1) or _swept(*args))
    for _ in range(40):
        sets = many_sets_over_few_intervals(rng)
        assert_same(AtomPartition.of_sets(sets), vectorised(sets))
    assert len(swept) == 40  # the vectorised reference took none


_swept = atom_partition._swept


def test_atoms_separate_exactly_what_the_sets_separate():
    rng = random.Random(7)
    for _ in range(100):
        sets = random_sets(rng)
        partition = AtomPartition.of_sets(sets)
        probes = np.arange(0, 130)
        atoms = partition.atom_of(probes)
        signature = [tuple(cp in s for s in sets) for cp in probes.tolist()]
        for i in range(len(probes)):
            for j in range(len(probes)):
                assert (atoms[i] == atoms[j]) == (signature[i] == signature[j]) or NO_ATOM in (atoms[i], atoms[j])
            assert (atoms[i] == NO_ATOM) == (not any(signature[i]))
            assert all((atoms[i] in partition.set_atoms[k]) == signature[i][k] for k in range(len(sets)))


def test_unicode_classes_take_the_vectorised_path_and_give_the_same_atoms():
    sets = (class_escape_set("w"), CodePointSet.of(0x5F), class_escape_set("d"), CodePointSet.of(0x61))
    assert sum(len(s.bounds) for s in sets) > 2 * atom_partition.SMALL_RANGES
    partition = AtomPartition.of_sets(sets)
    assert partition.n_atoms == 4  # \w but none of the others, "_", digits, "a"
    assert partition.atom_of(np.array([0x5F, 0x61, 0x30, 0x62])).tolist() == [1, 3, 2, 0]

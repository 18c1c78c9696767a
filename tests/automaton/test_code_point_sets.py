"""``CodePointSet``: the pure-Python path (small operands) and the numpy path (large ones)
compute the same canonical sets, and both agree with a plain model of the members."""

from __future__ import annotations

import random

import numpy as np
import pytest

from indexc.automaton import code_point_sets
from indexc.automaton.code_point_sets import MAX_CODE_POINT, SURROGATE_HI, SURROGATE_LO, CodePointSet
from indexc.automaton.unicode_classes import class_escape_set

PROBES = np.array(sorted({0, 1, 0x2F, 0x30, 0x39, 0x3A, 0x7F, 0x80, SURROGATE_LO - 1, SURROGATE_LO,
                          SURROGATE_HI, SURROGATE_HI + 1, 0xFFFF, 0x10000, MAX_CODE_POINT, *range(90, 130)}))


def random_set(rng: random.Random) -> CodePointSet:
    roll = rng.random()
    if roll < 0.1:
        return class_escape_set(rng.choice("dDsSwW"))
    if roll < 0.15:
        return CodePointSet.empty()
    ends = sorted(rng.sample(range(0, 200), rng.randint(1, 10)))
    ends += rng.choice([[], [SURROGATE_LO - 3, SURROGATE_HI + 3], [0x10000, MAX_CODE_POINT]])
    return CodePointSet.from_pairs(zip(ends[0::2], ends[1::2]))


def members(chars: CodePointSet) -> set[int]:
    return {int(cp) for cp in PROBES if cp in chars}


def numpy_only(operation, *operands):
    """``operation`` with the pure-Python path switched off."""
    saved = code_point_sets.SMALL_RANGES
    code_point_sets.SMALL_RANGES = -1
    try:
        return operation(*operands)
    finally:
        code_point_sets.SMALL_RANGES = saved


OPERATIONS = {
    "union": lambda a, b: a.union(b),
    "intersection": lambda a, b: a.intersection(b),
    "difference": lambda a, b: a.difference(b),
    "complement": lambda a, b: a.complement(),
    "raw_complement": lambda a, b: a.raw_complement(),
}
MODEL = {
    "union": lambda a, b: a | b,
    "intersection": lambda a, b: a & b,
    "difference": lambda a, b: a - b,
    "complement": lambda a, b: SCALAR_PROBES - a,
    "raw_complement": lambda a, b: set(PROBES.tolist()) - a,
}
SCALAR_PROBES = {int(cp) for cp in PROBES if not SURROGATE_LO <= cp <= SURROGATE_HI}


@pytest.mark.parametrize("name", sorted(OPERATIONS))
def test_both_paths_agree_with_each_other_and_the_model(name):
    rng = random.Random(name)
    for _ in range(300):
        a, b = random_set(rng), random_set(rng)
        fast, vectorised = OPERATIONS[name](a, b), numpy_only(OPERATIONS[name], a, b)
        assert fast == vectorised and fast.bounds == vectorised.bounds
        assert np.array_equal(fast.ranges, vectorised.ranges)
        assert members(fast) == MODEL[name](members(a), members(b))


def test_sets_are_canonical_whatever_builds_them():
    built = CodePointSet.from_pairs([(5, 9), (0, 3), (4, 4), (20, 10), (12, 15), (13, 14)])
    assert built.bounds == (0, 9, 12, 15)
    assert built == CodePointSet(np.array([[12, 15], [0, 9]])) and hash(built) == hash(CodePointSet([(0, 9), (12, 15)]))
    assert len(built) == 14 and 9 in built and 10 not in built and 12 in built and 16 not in built


def test_surrogates_never_enter_a_set():
    assert CodePointSet.from_pairs([(0xD000, 0xE000)]).bounds == (0xD000, SURROGATE_LO - 1, SURROGATE_HI + 1, 0xE000)
    assert CodePointSet.of(SURROGATE_LO, 0x41).bounds == (0x41, 0x41)
    assert CodePointSet.all_scalars().bounds == (0, SURROGATE_LO - 1, SURROGATE_HI + 1, MAX_CODE_POINT)
    assert CodePointSet.of(0x41).complement().bounds == (0, 0x40, 0x42, SURROGATE_LO - 1, SURROGATE_HI + 1, MAX_CODE_POINT)


def test_ranges_array_is_read_only_and_matches_the_bounds():
    chars = class_escape_set("w").union(CodePointSet.of(0x2D))
    assert chars.ranges.flags.writeable is False
    assert tuple(chars.ranges.ravel().tolist()) == chars.bounds
    assert chars.contains_all(PROBES).tolist() == [int(cp) in chars for cp in PROBES]


def test_identity_does_not_depend_on_the_path_across_the_tuple_key_size():
    singles = CodePointSet.from_pairs((2 * k + 1, 2 * k + 1) for k in range(32))  # 32 ranges: Python merges
    for chars in (singles.raw_complement(), singles.complement(), singles, singles.union(CodePointSet.of(100))):
        vectorised = numpy_only(lambda c: CodePointSet(c.ranges.copy()), chars)
        assert chars == vectorised and hash(chars) == hash(vectorised) and chars.bounds == vectorised.bounds
        assert len({chars, vectorised}) == 1 and len(chars) == len(vectorised)
    assert singles.raw_complement().n_ranges == 33 and len(singles) == 32

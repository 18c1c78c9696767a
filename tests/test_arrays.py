"""The shared numpy helpers against the numpy calls they replace."""

from __future__ import annotations

import numpy as np
import pytest

import indexc.arrays as arrays


@pytest.mark.parametrize("values", [[], [3], [3, 1, 3, 2, 1], list(range(10))[::-1]])
def test_sorted_unique_is_np_unique(values):
    a = np.array(values, dtype=np.int64)
    assert np.array_equal(arrays.sorted_unique(a), np.unique(a))


def test_expand_runs():
    owner, positions = arrays.expand_runs(np.array([5, 0, 9]), np.array([2, 0, 3]))
    assert owner.tolist() == [0, 0, 2, 2, 2]
    assert positions.tolist() == [5, 6, 9, 10, 11]


def _same_grouping(rows, first, inverse):
    assert np.array_equal(rows[first][inverse], rows)
    expected = np.unique(rows, axis=0, return_inverse=True)[1].reshape(-1)
    # the same partition of the rows, whatever the order of the groups
    assert len(set(zip(inverse.tolist(), expected.tolist()))) == len(set(expected.tolist())) == len(first)


def test_unique_rows_groups_like_np_unique():
    rows = np.random.default_rng(1).integers(-1, 3, size=(256, 7)).astype(np.int32)
    _same_grouping(rows, *arrays.unique_rows(rows))


def test_groups_by_first_appearance_agrees_with_a_loop_whatever_the_keys_range():
    from indexc.arrays import groups_by_first_appearance

    rng = np.random.default_rng(5)
    cases = [rng.integers(-3, 3, 200),  # packed below the index
             rng.integers(0, 2**64 - 1, 300, dtype=np.uint64) | np.uint64(1 << 63),  # too wide: the argsort path
             np.array([2**62, -2**62, 0, 2**62]), rng.integers(0, 7, 50).astype(np.int32)]
    for keys in cases:
        seen: dict = {}
        expected_rank = [seen.setdefault(key, len(seen)) for key in keys.tolist()]
        first, rank = groups_by_first_appearance(keys)
        assert rank.tolist() == expected_rank
        assert first.tolist() == [expected_rank.index(group) for group in range(len(seen))]


def test_unique_rows_first_is_each_groups_first_occurrence():
    rng = np.random.default_rng(2)
    rows = rng.integers(-2, 2, size=(500, 5)) * (1 << 40)  # int64 values past 32 bits, negative ones too
    first, inverse = arrays.unique_rows(rows)
    _same_grouping(rows, first, inverse)
    for group, row in enumerate(first.tolist()):
        assert np.flatnonzero(inverse == group)[0] == row
    assert [a.size for a in arrays.unique_rows(np.zeros((0, 3), np.int64))] == [0, 0]


def test_unique_rows_falls_back_on_a_hash_collision(monkeypatch):
    monkeypatch.setattr(arrays, "splitmix64", lambda n: np.zeros(n, dtype=np.uint64))  # weights 1: sums collide
    rows = np.array([[1, 2], [2, 1], [1, 2], [0, 3]], dtype=np.int32)
    first, inverse = arrays.unique_rows(rows)
    _same_grouping(rows, first, inverse)
    assert rows[first[inverse[0]]].tolist() == [1, 2] and inverse[0] == inverse[2] != inverse[1]


def test_stable_argsort_is_numpys_stable_argsort():
    from indexc.arrays import stable_argsort

    rng = np.random.default_rng(3)
    cases = [rng.integers(0, 10, 1000), rng.integers(0, 80_000, 5000), rng.integers(0, 2**31, 5000),
             np.zeros(0, np.int64), rng.integers(-5, 5, 100), rng.integers(0, 3, 7).astype(np.uint8),
             np.array([2**40, 3]), rng.integers(0, 70_000, 100).astype(np.int32)]
    for values in cases:
        assert np.array_equal(stable_argsort(values), np.argsort(values, kind="stable"))


def test_groups_by_first_appearance_numbers_keys_in_order_of_first_use():
    from indexc.arrays import groups_by_first_appearance

    keys = np.array([7, 3, 7, 9, 3, 3, 1])
    first, rank = groups_by_first_appearance(keys)
    assert first.tolist() == [0, 1, 3, 6] and rank.tolist() == [0, 1, 0, 2, 1, 1, 3]
    rng = np.random.default_rng(4)
    keys = rng.integers(0, 50, 2000)
    first, rank = groups_by_first_appearance(keys)
    assert np.array_equal(keys[first][rank], keys)  # each element's group holds its key
    assert np.all(np.diff(first) > 0)  # groups in order of first appearance


def test_set_hashes_depend_on_the_set_only():
    sets = [[], [0], [-5, 2], [1], [-5, 2], [], [0, 1, 7], [1]]
    offsets = arrays.offsets_of(np.array([len(s) for s in sets]))
    data = np.array([v for s in sets for v in s], dtype=np.int32)
    hashes = arrays.set_hashes(offsets, data).tolist()
    for i, a in enumerate(sets):
        for j, b in enumerate(sets):
            assert (hashes[i] == hashes[j]) == (a == b)
    # hashed apart (another chunk, int64), a set hashes the same
    alone = arrays.set_hashes(np.array([0, 2]), np.array([-5, 2], dtype=np.int64))
    assert alone.tolist() == [hashes[2]]
    first, group = arrays.ragged_groups(offsets, data, arrays.set_hashes(offsets, data))
    assert group.tolist() == [0, 1, 2, 3, 2, 0, 4, 3] and first.tolist() == [0, 1, 2, 3, 6]


@pytest.mark.parametrize("rows", [[[1, 2], [3], [1, 2], [3]], [[1, 2], [1, 3], [1, 2]], [[4], [4, 4], []]])
def test_ragged_groups_compare_rows_that_share_a_hash(rows):
    """Every row given the same hash: the grouping is still exact (rows compared element by element)."""
    offsets = arrays.offsets_of(np.array([len(r) for r in rows]))
    data = np.array([v for r in rows for v in r], dtype=np.int32)
    first, group = arrays.ragged_groups(offsets, data, np.zeros(len(rows), dtype=np.uint64))
    distinct = list(dict.fromkeys(map(tuple, rows)))
    assert group.tolist() == [distinct.index(tuple(r)) for r in rows]
    assert [tuple(rows[f]) for f in first.tolist()] == distinct


@pytest.mark.parametrize("n_classes", [1, 7, 8, 9, 55, 64, 65])
def test_sorted_bool_rows_is_np_unique_of_the_rows(n_classes):
    from indexc.arrays import sorted_bool_rows

    rows = np.random.default_rng(n_classes).random((300, n_classes)) < 0.3
    rows[150:] = rows[:150]
    expected_sets, expected_inverse = np.unique(rows, axis=0, return_inverse=True)
    sets, inverse = sorted_bool_rows(rows)
    assert sets.dtype == bool and np.array_equal(sets, expected_sets)
    assert np.array_equal(inverse, expected_inverse.reshape(-1))


def test_a_row_grouping_renumbered_by_first_appearance_is_groups_by_first_appearance():
    rows = np.random.default_rng(6).integers(0, 3, size=(400, 3))
    first, inverse = arrays.unique_rows(rows)
    expected = arrays.groups_by_first_appearance(inverse)
    got = arrays.in_first_appearance_order(first, inverse)
    assert all(np.array_equal(a, b) for a, b in zip(got, expected))

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


def test_unique_rows_falls_back_on_a_hash_collision(monkeypatch):
    monkeypatch.setattr(arrays, "splitmix64", lambda n: np.zeros(n, dtype=np.uint64))  # weights 1: sums collide
    rows = np.array([[1, 2], [2, 1], [1, 2], [0, 3]], dtype=np.int32)
    first, inverse = arrays.unique_rows(rows)
    _same_grouping(rows, first, inverse)
    assert rows[first[inverse[0]]].tolist() == [1, 2] and inverse[0] == inverse[2] != inverse[1]

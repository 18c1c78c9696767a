"""The token rows' layout choice: the group numbering and the shared layout's floor change speed, never the result."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from indexc.arrays import groups_by_first_appearance, ragged_unique
from indexc.artifact.token_rows import first_appearance, shared_size_floor, token_rows
from indexc_runtime.format import TOKEN_ROWS_BY_ID

ROWS = st.lists(st.lists(st.integers(0, 2), min_size=1, max_size=3), min_size=1, max_size=60)


def _csr(rows: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    offsets = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum([len(row) for row in rows], out=offsets[1:])
    return offsets, np.array([c for row in rows for c in row], dtype=np.uint8)


def _exact_numbers(rows: list[list[int]]) -> np.ndarray:
    numbering: dict[tuple, int] = {}
    return np.array([numbering.setdefault(tuple(row), 3 * len(numbering) + 1) for row in rows], dtype=np.int64)


def _coarse_numbers(rows: list[list[int]], unknown: list[bool]) -> np.ndarray:
    """Rows merged by (length, first class): equal rows get equal numbers, not conversely; some -1."""
    numbers = np.array([len(row) * 3 + row[0] for row in rows], dtype=np.int64)
    return np.where(np.array(unknown[:len(rows)] + [False] * (len(rows) - len(unknown)), dtype=bool), -1, numbers)


@settings(max_examples=80, deadline=None)
@given(numbers=st.lists(st.integers(0, 300), max_size=200))
def test_first_appearance_matches_the_sorting_version(numbers):
    keys = np.array(numbers, dtype=np.int64)
    first, rank = first_appearance(keys)
    expected_first, expected_rank = groups_by_first_appearance(keys)
    assert np.array_equal(first, expected_first) and np.array_equal(rank, expected_rank)


def test_first_appearance_falls_back_on_negative_or_huge_numbers():
    for keys in (np.array([5, -1, 5, 2]), np.array([1 << 40, 3, 1 << 40])):
        first, rank = first_appearance(keys)
        expected_first, expected_rank = groups_by_first_appearance(keys)
        assert np.array_equal(first, expected_first) and np.array_equal(rank, expected_rank)


@settings(max_examples=80, deadline=None)
@given(rows=ROWS, unknown=st.lists(st.booleans(), max_size=60))
def test_the_floor_is_never_above_the_shared_size(rows, unknown):
    offsets, data = _csr(rows)
    vocab_size = 4 * len(rows)
    first, _ = ragged_unique(offsets, data)
    lengths = np.diff(offsets)
    exact = 2 * vocab_size + 4 * (first.size + 2) + int(lengths[first].sum())
    assert shared_size_floor(_coarse_numbers(rows, unknown), lengths, vocab_size) <= exact
    assert shared_size_floor(_exact_numbers(rows), lengths, vocab_size) == exact  # exact numbers: the size itself


@settings(max_examples=80, deadline=None)
@given(rows=ROWS, unknown=st.lists(st.booleans(), max_size=60), spread=st.integers(1, 40))
def test_coarse_groups_never_change_the_rows(rows, unknown, spread):
    """Same layout and arrays with or without the floor, whichever layout wins (the vocabulary's
    size, relative to the live tokens, moves the winner)."""
    offsets, data = _csr(rows)
    live = np.arange(len(rows), dtype=np.int64) * spread
    vocab_size = int(live[-1]) + 1
    plain = token_rows(live, offsets, data, vocab_size, groups=lambda: _exact_numbers(rows))
    floored = token_rows(live, offsets, data, vocab_size, groups=lambda: _exact_numbers(rows),
                         coarse_groups=lambda: _coarse_numbers(rows, unknown))
    hashed = token_rows(live, offsets, data, vocab_size)
    for other in (floored, hashed):
        assert other.layout == plain.layout
        for name in ("live_tokens", "offsets", "data", "row_of_id"):
            a, b = getattr(plain, name), getattr(other, name)
            assert a.dtype == b.dtype and np.array_equal(a, b), name


def test_token_id_offsets_are_the_files_int32_sums():
    """The ``token_id`` layout's offsets: row k is id k's classes (empty unless live), summed in
    the file's dtype (the writer then neither checks nor converts them)."""
    offsets, data = _csr([[1, 2], [3], [1, 2, 3, 4]])
    live = np.array([2, 5, 6], dtype=np.int64)
    rows = token_rows(live, offsets, data, 8, TOKEN_ROWS_BY_ID)
    assert rows.offsets.dtype == np.int32
    assert rows.offsets.tolist() == [0, 0, 0, 2, 2, 2, 3, 7, 7]

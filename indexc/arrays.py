"""Small numpy helpers shared by every stage of the compiler.

- ``expand_runs``: the CSR idiom every level of every trie walk uses (one ``np.repeat``
  and one ``np.cumsum`` instead of a Python loop over runs); ``run_positions``: its positions
  alone (``expand_runs`` adds the run index to them);
- ``unique_rows``: ``np.unique(rows, axis=0)`` 5-10x faster, by hashing each row to one
  uint64 and verifying the grouping exactly (the slow path on a collision, never observed);
- ``ragged_unique``: the same for CSR rows of different lengths (token class sequences);
- ``set_hashes``: an order-free hash per CSR row of sorted values (the walk's hit sets);
- ``sorted_unique``: ``np.unique(a)``; ``sorted_bool_rows``: ``np.unique(rows, axis=0)`` for bool rows;
- ``stable_argsort``: ``np.argsort(a, kind="stable")`` for non-negative integers below 2**32,
  as one or two radix passes over 16-bit digits (274k class-node ids: 39 -> 8 ms);
- ``groups_by_first_appearance``: distinct keys numbered in order of first appearance
  (``in_first_appearance_order``: any grouping renumbered so);
- ``offsets_of``: the CSR offsets of groups of given sizes.

``sorted_unique`` exists because ``np.unique(a)`` without return flags calls
``np.ma.is_masked`` (numpy 2.x), whose first use imports ``numpy.ma`` and ``numpy.matrixlib``:
25-30 ms once per process, which is more than a whole compile of a small regex in a fresh
``indexc compile`` process.  A sort and a neighbour comparison give the same result.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np


def sorted_unique(values: np.ndarray) -> np.ndarray:
    """The distinct values of ``values`` (flattened), ascending: ``np.unique(values)`` without
    its first-use import of ``numpy.ma`` (see the module note)."""
    ordered = np.sort(np.asarray(values).ravel())
    if ordered.size < 2:
        return ordered
    keep = np.empty(ordered.size, dtype=bool)
    keep[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=keep[1:])
    return ordered[keep]


def sorted_bool_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(rows, axis=0, return_inverse=True)`` for bool rows, the same arrays (the loop
    sets of ``masks.loop_regions`` and ``masks.loop_jumps`` are numbered in this order).  Up to
    64 columns a row is packed into one big-endian uint64, whose order is the rows'
    lexicographic order, and the uint64s are sorted instead of structured rows (~1,100 rows of
    ~55 classes: ~3.4 -> ~0.09 ms)."""
    n_columns = rows.shape[1]
    if n_columns > 64 or not rows.shape[0]:
        sets, inverse = np.unique(rows, axis=0, return_inverse=True)
        return sets, inverse.reshape(-1)
    packed = np.zeros((rows.shape[0], 8), dtype=np.uint8)
    packed[:, :(n_columns + 7) // 8] = np.packbits(rows, axis=1)
    codes = packed.view(">u8").reshape(-1).astype(np.uint64)  # native order: the first column is the top bit
    distinct, inverse = np.unique(codes, return_inverse=True)
    sets = np.unpackbits(distinct.astype(">u8").view(np.uint8).reshape(-1, 8), axis=1, count=n_columns)
    return sets.astype(bool), inverse.reshape(-1)


def stable_argsort(values: np.ndarray) -> np.ndarray:
    """``np.argsort(values, kind="stable")`` for integers in ``[0, 2**32)``: numpy's stable sort
    is a radix sort only for 16-bit keys, so sort by the low 16 bits, then (stably) by the high
    ones; other values take numpy's merge sort."""
    values = np.asarray(values)
    if values.size == 0 or values.dtype.kind not in "iu" or int(values.min()) < 0 or int(values.max()) >= 1 << 32:
        return np.argsort(values, kind="stable")
    values = values.astype(np.int64, copy=False)
    order = np.argsort((values & 0xFFFF).astype(np.uint16), kind="stable")
    if int(values.max()) < 1 << 16:
        return order
    high = (values[order] >> 16).astype(np.uint16)
    return order[np.argsort(high, kind="stable")]


def offsets_of(counts: np.ndarray) -> np.ndarray:
    """int64 CSR offsets of consecutive groups of ``counts`` members: ``[0, c0, c0 + c1, ...]``."""
    offsets = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    return offsets


def expand_runs(starts: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For every element of the runs ``[starts[i], starts[i] + counts[i])``, in order: the
    index ``i`` of its run and its position."""
    return np.repeat(np.arange(counts.size), counts), run_positions(starts, counts)


def run_positions(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """``expand_runs(starts, counts)[1]`` without the run index: the shifts repeated, not
    gathered through it (75k positions in 1,000 runs, a long mask's hit set: ~0.49 -> ~0.31 ms)."""
    ends = np.cumsum(counts)
    positions = np.arange(int(ends[-1]) if ends.size else 0)
    shift = starts - ends + counts  # per run: its start minus its first output index
    if shift.dtype != positions.dtype:  # e.g. unsigned starts: numpy's promotion, as written out
        return positions + np.repeat(shift, counts)
    positions += np.repeat(shift, counts)  # in place: one temporary fewer (the walk calls this ~600 times a schema)
    return positions


def splitmix64(n: int) -> np.ndarray:
    """``n`` well-mixed 64-bit constants (SplitMix64), without importing ``numpy.random``
    (10 ms per process)."""
    return mix64(np.arange(1, n + 1, dtype=np.uint64))


def mix64(keys: np.ndarray) -> np.ndarray:
    """SplitMix64 of each key (the golden-ratio step, then its finaliser): well-spread uint64s,
    so that sums of them collide rarely (``automaton.round_refinement``'s signatures)."""
    with np.errstate(over="ignore"):
        z = keys.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def unique_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(index of the first occurrence of each distinct row, row -> its group), exactly.

    The distinct rows are ``rows[first]``, ordered by hash (not by value); ``inverse`` maps
    every row to its position in ``first``.

    The hash is one uint64 matrix-vector product (the rows' values times odd weights, summed
    modulo 2**64), the groups come from one unstable sort with each group's first row as the
    minimum of its members (what ``np.unique(return_index=True)``'s merge sort gives), and only
    the rows that are not their group's first are compared with it.  The refinements of
    ``masks.equivalence`` call this ~100 times a JSON Schema on ~1,100 x 58 rows: ~545 -> ~150 us
    a call, where the elementwise product and its temporaries cost most (a fresh 0.5 MB array is
    page-faulted in on every call).
    """
    hashes = _row_hashes(rows)
    if not hashes.size:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    first, inverse = _sorted_groups(hashes)
    later = np.flatnonzero(first[inverse] != np.arange(hashes.size))
    if later.size and not np.array_equal(rows[later], rows[first[inverse[later]]]):
        _, first, inverse = np.unique(rows, axis=0, return_index=True, return_inverse=True)
        inverse = inverse.reshape(-1)
    return first, inverse


def _row_hashes(rows: np.ndarray) -> np.ndarray:
    """uint64 per row: the sum of its values (as uint64: negative ones wrap) times the column
    weights, modulo 2**64, as one matrix-vector product (no elementwise temporary)."""
    if rows.dtype != np.uint64:
        rows = (rows if rows.dtype == np.int64 else rows.astype(np.int64)).view(np.uint64)
    return rows @ _row_weights(rows.shape[1])


@lru_cache(maxsize=64)
def _row_weights(width: int) -> np.ndarray:
    """``unique_rows``' odd weight per column, made once per width: the refinements call it a few
    thousand times a compile on narrow rows, where making them cost ~30 us a call."""
    weights = splitmix64(width) | np.uint64(1)
    weights.flags.writeable = False
    return weights


def ragged_unique(offsets: np.ndarray, data: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``unique_rows`` for CSR rows (row i is ``data[offsets[i]:offsets[i+1]]``), exactly.

    Returns (index of the first occurrence of each distinct row, in order of first
    appearance; row -> its group).  Each row hashes to one uint64 (``ragged_hashes``), and
    every row that is not its group's first is then compared with that first row element by
    element (``ragged_groups``).
    """
    return ragged_groups(offsets, data, ragged_hashes(offsets, data))


def ragged_hashes(offsets: np.ndarray, data: np.ndarray) -> np.ndarray:
    """One uint64 per CSR row: a weight per position in the row (``splitmix64``: the same
    weights whatever the longest row, so hashes of separately hashed parts agree), plus its
    length."""
    offsets = np.asarray(offsets, dtype=np.int64)
    lengths = np.diff(offsets)
    if lengths.size == 0:
        return np.zeros(0, np.uint64)
    if int(offsets[0]) == 0 and int(offsets[-1]) == data.size:  # rows back to back: no gather
        values = data
        within = np.arange(data.size, dtype=np.int64) - np.repeat(offsets[:-1], lengths)
    else:
        row_of, position = expand_runs(offsets[:-1], lengths)
        values = data[position]
        within = position - offsets[row_of]
    weights = splitmix64(int(lengths.max()) + 2) | np.uint64(1)
    with np.errstate(over="ignore"):
        terms = (values.astype(np.uint64) + np.uint64(1)) * weights[within + 1]
        running = np.concatenate(([np.uint64(0)], np.cumsum(terms, dtype=np.uint64)))
        return running[offsets[1:]] - running[offsets[:-1]] + lengths.astype(np.uint64) * weights[0]


def set_hashes(offsets: np.ndarray, data: np.ndarray) -> np.ndarray:
    """One uint64 per CSR row of sorted distinct values (a set): the sum of each value's mix
    (a multiply, xor-shift, multiply, xor-shift), so order-free and with no per-position weight:
    a set is hashed from its values alone, plus its length, ~4x as fast as ``ragged_hashes`` (2M values in 3,000
    rows: 46 -> 12 ms).  Equal sets get equal hashes wherever they were hashed; the grouping
    that uses them (``ragged_groups``) still compares rows, so a collision costs time, never a
    wrong answer; hence two rounds, not ``mix64``'s three (2M values: ~10 -> ~14 ms with it).
    int32 or int64 values, negative ones too (they wrap to uint64)."""
    offsets = np.asarray(offsets, dtype=np.int64)
    hashes = np.zeros(offsets.size - 1, dtype=np.uint64)
    if not data.size:
        return hashes
    with np.errstate(over="ignore"):  # rows back to back from 0 (``offsets[-1] == data.size``)
        mixed = data.astype(np.uint64)
        mixed *= np.uint64(0x9E3779B97F4A7C15)
        mixed ^= mixed >> np.uint64(29)
        mixed *= np.uint64(0xBF58476D1CE4E5B9)
        mixed ^= mixed >> np.uint64(32)
    lengths = np.diff(offsets)
    filled = np.flatnonzero(lengths)  # ``reduceat`` reads an empty row as one element
    hashes[filled] = np.add.reduceat(mixed, offsets[filled])
    with np.errstate(over="ignore"):
        return hashes + lengths.astype(np.uint64) * np.uint64(0x94D049BB133111EB)  # {0} is not the empty set


def ragged_groups(offsets: np.ndarray, data: np.ndarray, hashes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``ragged_unique`` from the rows' hashes: group by hash, then compare every row that is not
    its group's first with that first row (rows alone in their group need no check: with
    mostly distinct rows, as the walk's hit sets are, that skips almost all of the data); on a
    collision (never observed) a dict over the rows' bytes decides."""
    offsets = np.asarray(offsets, dtype=np.int64)
    lengths = np.diff(offsets)
    if lengths.size == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    first, inverse = groups_by_first_appearance(hashes)
    later = np.flatnonzero(first[inverse] != np.arange(lengths.size))
    if later.size and not _same_rows(offsets, lengths, data, later, first[inverse[later]]):
        return _ragged_unique_exact(offsets, data)
    return first, inverse


def groups_by_first_appearance(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(index of the first element of each distinct key, in order of first appearance;
    element -> the rank of its key in that order).

    One unstable sort, and each group's first index as the minimum of its members' indices
    (``minimum.reduceat``): 2-3x faster than ``np.unique(return_index=True)``, whose stable
    sort is a merge sort (124k keys: 25 -> 14 ms).  Integer keys whose range leaves room for
    the index below them are sorted as one packed value each (``_first_of_packed``).
    """
    keys = np.asarray(keys)
    if keys.size == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    packed = _first_of_packed(keys)
    if packed is not None:
        first, group = packed
    else:
        first, group = _sorted_groups(keys)
    return in_first_appearance_order(first, group)


def _sorted_groups(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Groups of equal keys in key order: each group's smallest index, and each key's group
    (one argsort; ``keys`` not empty)."""
    order = np.argsort(keys)
    ordered = keys[order]
    starts_here = np.empty(keys.size, dtype=bool)
    starts_here[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=starts_here[1:])
    first = np.minimum.reduceat(order, np.flatnonzero(starts_here))
    group = np.empty(keys.size, dtype=np.int64)
    group[order] = np.cumsum(starts_here) - 1
    return first, group


def in_first_appearance_order(first: np.ndarray, group: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A grouping (each group's first element, element -> group) renumbered so that groups come
    in order of their first element: what ``groups_by_first_appearance`` of ``group`` gives, with
    a sort of the groups' first elements only (``unique_rows``' groups, then numbered in order:
    a refinement round of ``masks.equivalence`` sorted all its rows twice)."""
    by_appearance = stable_argsort(first)
    rank = np.empty_like(by_appearance)
    rank[by_appearance] = np.arange(by_appearance.size)
    return first[by_appearance], rank[group]


def _first_of_packed(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """(each distinct key's first index, in key order; element -> its key's rank), from one
    value sort of ``(key - min) << bits | index`` when that fits 63 bits (None otherwise): no
    ties, so the first of a group is where it starts, and numpy's vectorised value sort is
    ~2x its argsort (the walk's start numbering: ~4,800 keys of ~30 bits, 25 calls a schema)."""
    if keys.dtype.kind not in "iu":
        return None
    low, high = int(keys.min()), int(keys.max())
    bits = max(1, (keys.size - 1).bit_length())
    if (high - low) >> (62 - bits):
        return None
    packed = (keys - keys.dtype.type(low)).astype(np.int64)
    packed <<= bits
    packed |= np.arange(keys.size, dtype=np.int64)
    packed.sort()
    order = packed & ((1 << bits) - 1)
    packed >>= bits
    starts_here = np.empty(keys.size, dtype=bool)
    starts_here[0] = True
    np.not_equal(packed[1:], packed[:-1], out=starts_here[1:])
    group = np.empty(keys.size, dtype=np.int64)
    group[order] = np.cumsum(starts_here) - 1
    return order[starts_here], group


def _same_rows(offsets: np.ndarray, lengths: np.ndarray, data: np.ndarray, rows: np.ndarray,
               representative: np.ndarray) -> bool:
    """Is each row ``rows[i]`` equal to the row ``representative[i]``?

    Positions as int32 where the data allows (half the memory traffic of ``expand_runs``' int64),
    the representative's as an offset of the row's: the walk's duplicate hit sets are most of its
    hits (21M of 25M on 25 median MaskBench schemas), so this is ~2x faster there (3.2M
    elements: 80 -> 35 ms)."""
    counts = lengths[rows]
    if not np.array_equal(lengths[representative], counts):
        return False
    index_type = np.int32 if data.size < 1 << 31 else np.int64
    mine = np.repeat((offsets[rows] - (np.cumsum(counts) - counts)).astype(index_type), counts)
    mine += np.arange(int(counts.sum()), dtype=index_type)
    theirs = np.repeat((offsets[representative] - offsets[rows]).astype(index_type), counts)
    theirs += mine
    return bool(np.array_equal(data.take(mine), data.take(theirs)))


def _ragged_unique_exact(offsets: np.ndarray, data: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    groups: dict[bytes, int] = {}
    first: list[int] = []
    inverse = np.empty(offsets.size - 1, dtype=np.int64)
    for row in range(offsets.size - 1):
        key = data[offsets[row]:offsets[row + 1]].tobytes()
        group = groups.setdefault(key, len(first))
        if group == len(first):
            first.append(row)
        inverse[row] = group
    return np.array(first, dtype=np.int64), inverse

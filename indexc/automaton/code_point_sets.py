"""Sets of Unicode code points as sorted ranges.

Every character-matching piece of a regex (a literal, ``.``, ``[a-z]``, ``\\w``, ``[^|\\n]``)
becomes a ``CodePointSet``: sorted, disjoint, non-adjacent, inclusive ``[lo, hi]`` ranges.
Unicode classes are big as sets of characters (``\\w`` holds 133,548 code points in Unicode 14)
but small as ranges (734 pairs), so all set algebra works on the ranges and never enumerates
characters.

Two sizes, two engines.  Almost every set of a real regex is a few ranges (a literal, ``[0-9]``,
``[^"]`` = 3 ranges once the surrogates are cut out), and for those a numpy call costs more
than the work: building ``[1-9]`` took ~25 us in five numpy calls (canonicalise, the surrogate
test, ...), and normalising the ``date`` regex (28 such classes) 1.1 ms.  So the identity of a
set is the flat tuple ``bounds = (lo0, hi0, lo1, hi1, ...)`` of Python ints, and the algebra runs
as plain merges over it while the operands hold at most ``SMALL_RANGES`` ranges (~1-3 us per
operation); larger operands (``\\w``, ``\\D``, their unions) go through the vectorised numpy
path.  Both paths produce the canonical form, so equal sets are equal tuples whichever path
built them.  ``ranges``, the ``(k, 2)`` int64 array the vectorised consumers read (atom
partition, case folding, JSON text rendering), is built on first use and kept.

Only Unicode scalar values can occur in UTF-8 text: the surrogates ``D800-DFFF`` are removed
from every set built here (``scalars``), so a negated class is the complement within
``[0, 10FFFF]`` minus the surrogates, and a class such as ``[\\u0000-\\uffff]`` silently loses
them.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable

import numpy as np

MAX_CODE_POINT = 0x10FFFF
SURROGATE_LO, SURROGATE_HI = 0xD800, 0xDFFF
SMALL_RANGES = 32  # operands with at most this many ranges in all use the pure-Python merges

Bounds = tuple[int, ...]  # (lo0, hi0, lo1, hi1, ...), canonical


class CodePointSet:
    """An immutable set of code points; ``bounds`` is its canonical flat tuple of range ends."""

    __slots__ = ("bounds", "_array", "_hash")

    bounds: Bounds

    def __init__(self, ranges: np.ndarray | Iterable[tuple[int, int]]):
        """Any ``(k, 2)`` array or pairs of inclusive ends, in any order, overlapping or empty."""
        array = _canonical(np.asarray(ranges, dtype=np.int64).reshape(-1, 2))
        self._assign(tuple(array.ravel().tolist()), array)

    def _assign(self, bounds: Bounds, array: np.ndarray | None) -> None:
        self.bounds = bounds
        self._hash = hash(bounds)
        self._array = array
        if array is not None:
            array.setflags(write=False)

    @classmethod
    def _of_bounds(cls, bounds: Bounds, array: np.ndarray | None = None) -> CodePointSet:
        """A set from bounds that are already canonical (no checks)."""
        chars = cls.__new__(cls)
        chars._assign(bounds, array)
        return chars

    @classmethod
    def _of_array(cls, array: np.ndarray) -> CodePointSet:
        """A set from a canonical ``(k, 2)`` array."""
        return cls._of_bounds(tuple(array.ravel().tolist()), array)

    # -- construction ------------------------------------------------------------------
    @classmethod
    def of(cls, *code_points: int) -> CodePointSet:
        return cls.from_pairs((cp, cp) for cp in code_points)

    @classmethod
    def from_pairs(cls, pairs: Iterable[tuple[int, int]]) -> CodePointSet:
        pairs = [(int(lo), int(hi)) for lo, hi in pairs]
        if len(pairs) <= SMALL_RANGES:
            return cls._of_bounds(_merged(pairs)).scalars()
        return cls(np.array(pairs, dtype=np.int64).reshape(-1, 2)).scalars()

    @classmethod
    def from_mask(cls, mask: np.ndarray) -> CodePointSet:
        """The set of indices where a boolean array over code points is true."""
        padded = np.concatenate(([False], mask.astype(bool), [False])).astype(np.int8)
        edges = np.flatnonzero(np.diff(padded))
        return cls(np.stack([edges[0::2], edges[1::2] - 1], axis=1)).scalars()

    @classmethod
    def empty(cls) -> CodePointSet:
        return cls._of_bounds(())

    @classmethod
    def all_scalars(cls) -> CodePointSet:
        return cls._of_bounds((0, MAX_CODE_POINT)).scalars()

    # -- algebra -----------------------------------------------------------------------
    def union(self, *others: CodePointSet) -> CodePointSet:
        operands = (self, *others)
        if sum(len(o.bounds) for o in operands) <= 2 * SMALL_RANGES:
            pairs = [pair for o in operands for pair in o.pairs()]
            return CodePointSet._of_bounds(_merged(pairs))
        return CodePointSet(np.concatenate([o.ranges for o in operands]))

    def raw_complement(self) -> CodePointSet:
        """Complement within ``[0, MAX_CODE_POINT]`` (surrogates included)."""
        if len(self.bounds) <= 2 * SMALL_RANGES:
            return CodePointSet._of_bounds(_complemented(self.bounds))
        r = self.ranges
        starts = np.concatenate(([0], r[:, 1] + 1))
        ends = np.concatenate((r[:, 0] - 1, [MAX_CODE_POINT]))
        keep = starts <= ends
        return CodePointSet._of_array(np.stack([starts[keep], ends[keep]], axis=1))

    def complement(self) -> CodePointSet:
        """Every Unicode scalar value not in the set (what a negated class matches)."""
        return self.union(_SURROGATES_SET).raw_complement()

    def intersection(self, other: CodePointSet) -> CodePointSet:
        if len(self.bounds) + len(other.bounds) <= 2 * SMALL_RANGES:
            return CodePointSet._of_bounds(_intersected(self.bounds, other.bounds))
        return self.raw_complement().union(other.raw_complement()).raw_complement()

    def difference(self, other: CodePointSet) -> CodePointSet:
        return self.intersection(other.raw_complement())

    def scalars(self) -> CodePointSet:
        """The set without surrogates (they cannot be encoded in UTF-8)."""
        b = self.bounds
        i = bisect_right(b, SURROGATE_HI)  # bounds <= DFFF; a range reaches the block iff
        if i == 0 or (i % 2 == 0 and b[i - 1] < SURROGATE_LO):  # the last of them is a start
            return self  # or an end inside the block
        return self.difference(_SURROGATES_SET)

    # -- queries -----------------------------------------------------------------------
    @property
    def ranges(self) -> np.ndarray:
        """The ranges as a read-only int64 ``(k, 2)`` array (built on first use)."""
        if self._array is None:
            self._array = np.array(self.bounds, dtype=np.int64).reshape(-1, 2)
            self._array.setflags(write=False)
        return self._array

    def pairs(self) -> Iterable[tuple[int, int]]:
        """The ``(lo, hi)`` ranges as Python ints."""
        b = self.bounds
        return zip(b[0::2], b[1::2])

    def __len__(self) -> int:
        b = self.bounds
        return sum(b[1::2]) - sum(b[0::2]) + len(b) // 2

    def is_empty(self) -> bool:
        return not self.bounds

    def __contains__(self, code_point: int) -> bool:
        i = bisect_right(self.bounds, code_point)  # odd: inside a range; even: past a range end
        return i % 2 == 1 or (i > 0 and self.bounds[i - 1] == code_point)

    def contains_all(self, code_points: np.ndarray) -> np.ndarray:
        """Vectorised membership of many code points."""
        cps = np.asarray(code_points, dtype=np.int64)
        i = np.searchsorted(self.ranges[:, 0], cps, side="right") - 1
        ok = i >= 0
        ok[ok] = cps[ok] <= self.ranges[i[ok], 1]
        return ok

    def code_points(self) -> np.ndarray:
        """Every member (for small sets and tests only)."""
        return np.concatenate([np.arange(lo, hi + 1) for lo, hi in self.pairs()] or [np.empty(0, np.int64)])

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CodePointSet) and self.bounds == other.bounds

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        pairs = list(self.pairs())
        shown = ", ".join(f"{lo:X}-{hi:X}" if lo != hi else f"{lo:X}" for lo, hi in pairs[:6])
        more = f", ... ({len(pairs)} ranges)" if len(pairs) > 6 else ""
        return f"CodePointSet({shown}{more})"


# -- the small-set merges (canonical in, canonical out) ------------------------------------
def _merged(pairs: list[tuple[int, int]]) -> Bounds:
    """Sort, drop empty pairs, merge overlapping or adjacent pairs."""
    pairs.sort()
    out: list[int] = []
    for lo, hi in pairs:
        if lo > hi:
            continue
        if out and lo <= out[-1] + 1:
            if hi > out[-1]:
                out[-1] = hi
        else:
            out += (lo, hi)
    return tuple(out)


def _complemented(bounds: Bounds) -> Bounds:
    """The gaps between the ranges, within ``[0, MAX_CODE_POINT]``."""
    edges = (-1, *bounds, MAX_CODE_POINT + 1)  # gap k runs from edges[2k] + 1 to edges[2k + 1] - 1
    out: list[int] = []
    for k in range(0, len(edges), 2):
        lo, hi = edges[k] + 1, edges[k + 1] - 1
        if lo <= hi:
            out += (lo, hi)
    return tuple(out)


def _intersected(a: Bounds, b: Bounds) -> Bounds:
    """Two-pointer sweep; the pieces of canonical operands are never adjacent, so stay canonical."""
    out: list[int] = []
    i = j = 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i], b[j]), min(a[i + 1], b[j + 1])
        if lo <= hi:
            out += (lo, hi)
        if a[i + 1] < b[j + 1]:
            i += 2
        else:
            j += 2
    return tuple(out)


# -- the vectorised path -------------------------------------------------------------------
def _canonical(r: np.ndarray) -> np.ndarray:
    """Sort, drop empty pairs, merge overlapping or adjacent pairs (vectorised)."""
    r = r[r[:, 0] <= r[:, 1]]
    if len(r) <= 1:
        return r.copy()
    r = r[np.argsort(r[:, 0], kind="stable")]
    reach = np.maximum.accumulate(r[:, 1])
    starts_run = np.concatenate(([True], r[1:, 0] > reach[:-1] + 1))
    run_starts = np.flatnonzero(starts_run)
    run_ends = np.concatenate((run_starts[1:], [len(r)])) - 1
    return np.stack([r[run_starts, 0], reach[run_ends]], axis=1)


_SURROGATES_SET = CodePointSet._of_bounds((SURROGATE_LO, SURROGATE_HI))

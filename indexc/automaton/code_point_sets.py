"""Sets of Unicode code points as sorted ranges.

Every character-matching piece of a regex (a literal, ``.``, ``[a-z]``, ``\\w``, ``[^|\\n]``)
becomes a ``CodePointSet``: sorted, disjoint, non-adjacent, inclusive ``[lo, hi]`` ranges.
Unicode classes are big as sets of characters (``\\w`` holds 133,548 code points in Unicode 14)
but small as ranges (734 pairs), so all set algebra works on the ranges and never enumerates
characters.

Two sizes, two engines.  Almost every set of a real regex is a few ranges (a literal, ``[0-9]``,
``[^"]`` = 3 ranges once the surrogates are cut out), and for those a numpy call costs more
than the work: building ``[1-9]`` took ~25 us in five numpy calls (canonicalise, the surrogate
test, ...), and normalising the ``date`` regex (28 such classes) 1.1 ms.  So a small set is
the flat tuple ``bounds = (lo0, hi0, lo1, hi1, ...)`` of Python ints, and the algebra runs as
plain merges over it while the operands hold at most ``SMALL_RANGES`` ranges in all (~1-3 us
per operation).  Larger operands (``\\w``, ``\\D``, their unions) go through the vectorised
numpy path over ``ranges``, the ``(k, 2)`` int64 array, and stay arrays: turning ``\\w``'s 734
pairs into a tuple costs 38 us, more than the union that made them.  Each form is built from
the other on first use and kept.  Both paths produce the canonical form, and the identity
(``==``, ``hash``) is the tuple up to 32 ranges and the array's bytes above, a choice that
depends only on the set, so equal sets are equal whichever path built them.

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
_TUPLE_KEY_RANGES = 32  # sets with at most this many ranges are identified by their bounds tuple

Bounds = tuple[int, ...]  # (lo0, hi0, lo1, hi1, ...), canonical


class CodePointSet:
    """An immutable set of code points as canonical ranges (``bounds`` and/or ``ranges``)."""

    __slots__ = ("_bounds", "_array", "_key", "_hash")

    def __init__(self, ranges: np.ndarray | Iterable[tuple[int, int]]):
        """Any ``(k, 2)`` array or pairs of inclusive ends, in any order, overlapping or empty."""
        self._assign(None, _canonical(np.asarray(ranges, dtype=np.int64).reshape(-1, 2)))

    def _assign(self, bounds: Bounds | None, array: np.ndarray | None) -> None:
        """Keep whichever forms are given (at least one) and derive the identity key."""
        if array is not None:
            array.setflags(write=False)
        small = (len(bounds) // 2 if bounds is not None else len(array)) <= _TUPLE_KEY_RANGES
        if small and bounds is None:
            bounds = tuple(array.ravel().tolist())
        if not small and array is None:
            array = np.array(bounds, dtype=np.int64).reshape(-1, 2)
            array.setflags(write=False)
        self._bounds, self._array = bounds, array
        self._key = bounds if small else array.tobytes()
        self._hash = hash(self._key)

    @classmethod
    def _of_bounds(cls, bounds: Bounds) -> CodePointSet:
        """A set from bounds that are already canonical (no checks)."""
        chars = cls.__new__(cls)
        chars._assign(bounds, None)
        return chars

    @classmethod
    def _of_array(cls, array: np.ndarray) -> CodePointSet:
        """A set from a canonical ``(k, 2)`` array."""
        chars = cls.__new__(cls)
        chars._assign(None, array)
        return chars

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
        if sum(o.n_ranges for o in operands) <= SMALL_RANGES:
            pairs = [pair for o in operands for pair in o.pairs()]
            return CodePointSet._of_bounds(_merged(pairs))
        return CodePointSet(np.concatenate([o.ranges for o in operands]))

    def raw_complement(self) -> CodePointSet:
        """Complement within ``[0, MAX_CODE_POINT]`` (surrogates included)."""
        if self.n_ranges <= SMALL_RANGES:
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
        if self.n_ranges + other.n_ranges <= SMALL_RANGES:
            return CodePointSet._of_bounds(_intersected(self.bounds, other.bounds))
        return self.raw_complement().union(other.raw_complement()).raw_complement()

    def difference(self, other: CodePointSet) -> CodePointSet:
        return self.intersection(other.raw_complement())

    def scalars(self) -> CodePointSet:
        """The set without surrogates (they cannot be encoded in UTF-8)."""
        if self.n_ranges <= SMALL_RANGES:
            # Of the bounds up to DFFF, the last is a range start (odd count: that range goes
            # on past DFFF) or a range end, inside the block or before it.
            b = self.bounds
            i = bisect_right(b, SURROGATE_HI)
            clear = i == 0 or (i % 2 == 0 and b[i - 1] < SURROGATE_LO)
        else:
            r = self.ranges
            clear = not np.any((r[:, 0] <= SURROGATE_HI) & (r[:, 1] >= SURROGATE_LO))
        return self if clear else self.difference(_SURROGATES_SET)

    # -- queries -----------------------------------------------------------------------
    @property
    def ranges(self) -> np.ndarray:
        """The ranges as a read-only int64 ``(k, 2)`` array (built on first use)."""
        if self._array is None:
            self._array = np.array(self._bounds, dtype=np.int64).reshape(-1, 2)
            self._array.setflags(write=False)
        return self._array

    @property
    def bounds(self) -> Bounds:
        """The ranges as the flat tuple ``(lo0, hi0, lo1, hi1, ...)`` (built on first use)."""
        if self._bounds is None:
            self._bounds = tuple(self._array.ravel().tolist())
        return self._bounds

    @property
    def n_ranges(self) -> int:
        return len(self._bounds) // 2 if self._bounds is not None else len(self._array)

    def pairs(self) -> Iterable[tuple[int, int]]:
        """The ``(lo, hi)`` ranges as Python ints."""
        b = self.bounds
        return zip(b[0::2], b[1::2])

    def __len__(self) -> int:
        if self._bounds is None:
            return int((self._array[:, 1] - self._array[:, 0] + 1).sum())
        b = self._bounds
        return sum(b[1::2]) - sum(b[0::2]) + len(b) // 2

    def is_empty(self) -> bool:
        return self.n_ranges == 0

    def __contains__(self, code_point: int) -> bool:
        if self._bounds is None:
            return bool(self.contains_all(np.array([code_point]))[0])
        i = bisect_right(self._bounds, code_point)  # odd: inside a range; even: past a range end
        return i % 2 == 1 or (i > 0 and self._bounds[i - 1] == code_point)

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
        return isinstance(other, CodePointSet) and self._key == other._key

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        pairs = self.ranges[:6].tolist()
        shown = ", ".join(f"{lo:X}-{hi:X}" if lo != hi else f"{lo:X}" for lo, hi in pairs)
        more = f", ... ({self.n_ranges} ranges)" if self.n_ranges > 6 else ""
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

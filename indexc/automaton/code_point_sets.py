"""Sets of Unicode code points as sorted ranges.

Every character-matching piece of a regex (a literal, ``.``, ``[a-z]``, ``\\w``, ``[^|\\n]``)
becomes a ``CodePointSet``: a sorted array of disjoint, non-adjacent, inclusive ``[lo, hi]``
pairs.  Unicode classes are big as sets of characters (``\\w`` holds 133,548 code points in
Unicode 14) but small as ranges (734 pairs), so all set algebra works on the pairs with numpy
and never enumerates characters.

Only Unicode scalar values can occur in UTF-8 text: the surrogates ``D800-DFFF`` are removed
from every set built here (``scalars``), so a negated class is the complement within
``[0, 10FFFF]`` minus the surrogates, and a class such as ``[\\u0000-\\uffff]`` silently loses
them.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

MAX_CODE_POINT = 0x10FFFF
SURROGATE_LO, SURROGATE_HI = 0xD800, 0xDFFF


class CodePointSet:
    """An immutable set of code points; ``ranges`` is int64 ``(k, 2)``, canonical."""

    __slots__ = ("ranges", "_key")

    def __init__(self, ranges: np.ndarray):
        self.ranges = _canonical(np.asarray(ranges, dtype=np.int64).reshape(-1, 2))
        self.ranges.setflags(write=False)
        self._key = self.ranges.tobytes()

    # -- construction ------------------------------------------------------------------
    @classmethod
    def of(cls, *code_points: int) -> CodePointSet:
        cps = np.asarray(code_points, dtype=np.int64)
        return cls(np.stack([cps, cps], axis=1)).scalars()

    @classmethod
    def from_pairs(cls, pairs: Iterable[tuple[int, int]]) -> CodePointSet:
        return cls(np.array(list(pairs), dtype=np.int64).reshape(-1, 2)).scalars()

    @classmethod
    def from_mask(cls, mask: np.ndarray) -> CodePointSet:
        """The set of indices where a boolean array over code points is true."""
        padded = np.concatenate(([False], mask.astype(bool), [False])).astype(np.int8)
        edges = np.flatnonzero(np.diff(padded))
        return cls(np.stack([edges[0::2], edges[1::2] - 1], axis=1)).scalars()

    @classmethod
    def empty(cls) -> CodePointSet:
        return cls(np.empty((0, 2), dtype=np.int64))

    @classmethod
    def all_scalars(cls) -> CodePointSet:
        return cls(np.array([[0, MAX_CODE_POINT]])).scalars()

    # -- algebra -----------------------------------------------------------------------
    def union(self, *others: CodePointSet) -> CodePointSet:
        return CodePointSet(np.concatenate([self.ranges, *(o.ranges for o in others)]))

    def raw_complement(self) -> CodePointSet:
        """Complement within ``[0, MAX_CODE_POINT]`` (surrogates included)."""
        r = self.ranges
        starts = np.concatenate(([0], r[:, 1] + 1))
        ends = np.concatenate((r[:, 0] - 1, [MAX_CODE_POINT]))
        keep = starts <= ends
        return CodePointSet(np.stack([starts[keep], ends[keep]], axis=1))

    def complement(self) -> CodePointSet:
        """Every Unicode scalar value not in the set (what a negated class matches)."""
        return self.union(_SURROGATES_SET).raw_complement()

    def intersection(self, other: CodePointSet) -> CodePointSet:
        return self.raw_complement().union(other.raw_complement()).raw_complement()

    def difference(self, other: CodePointSet) -> CodePointSet:
        return self.intersection(other.raw_complement())

    def scalars(self) -> CodePointSet:
        """The set without surrogates (they cannot be encoded in UTF-8)."""
        r = self.ranges
        if not len(r) or not np.any((r[:, 0] <= SURROGATE_HI) & (r[:, 1] >= SURROGATE_LO)):
            return self
        return self.intersection(_SURROGATES_SET.raw_complement())

    # -- queries -----------------------------------------------------------------------
    def __len__(self) -> int:
        return int((self.ranges[:, 1] - self.ranges[:, 0] + 1).sum())

    def is_empty(self) -> bool:
        return not len(self.ranges)

    def __contains__(self, code_point: int) -> bool:
        i = int(np.searchsorted(self.ranges[:, 0], code_point, side="right")) - 1
        return i >= 0 and code_point <= self.ranges[i, 1]

    def contains_all(self, code_points: np.ndarray) -> np.ndarray:
        """Vectorised membership of many code points."""
        cps = np.asarray(code_points, dtype=np.int64)
        i = np.searchsorted(self.ranges[:, 0], cps, side="right") - 1
        ok = i >= 0
        ok[ok] = cps[ok] <= self.ranges[i[ok], 1]
        return ok

    def code_points(self) -> np.ndarray:
        """Every member (for small sets and tests only)."""
        return np.concatenate([np.arange(lo, hi + 1) for lo, hi in self.ranges] or [np.empty(0, np.int64)])

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CodePointSet) and self._key == other._key

    def __hash__(self) -> int:
        return hash(self._key)

    def __repr__(self) -> str:
        shown = ", ".join(f"{lo:X}-{hi:X}" if lo != hi else f"{lo:X}" for lo, hi in self.ranges[:6])
        more = f", ... ({len(self.ranges)} ranges)" if len(self.ranges) > 6 else ""
        return f"CodePointSet({shown}{more})"


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


_SURROGATES_SET = CodePointSet(np.array([[SURROGATE_LO, SURROGATE_HI]]))

"""``\\d \\w \\s`` (and their negations) as Python's ``re`` defines them for str patterns.

Definitions (CPython ``_sre``, Unicode mode, the default for str patterns):
- ``\\d``: ``Py_UNICODE_ISDECIMAL``, i.e. ``str.isdecimal()`` (general category Nd), 660
  code points in Unicode 14;
- ``\\w``: ``Py_UNICODE_ISALNUM`` or ``_``, i.e. ``str.isalnum()`` plus the underscore
  (133,548 code points, 734 ranges);
- ``\\s``: ``Py_UNICODE_ISSPACE``, i.e. ``str.isspace()`` (29 code points);
- ``\\D \\W \\S``: the complements within the Unicode scalar values.

The tables are derived from the running interpreter's Unicode database (``unicodedata``
14.0.0 on Python 3.11), so they always agree with the ``re`` module of the same interpreter.
The derivation runs numpy's vectorised string predicates over all 1,114,112 code points at
once (the code points viewed as a ``U1`` array): 10-35 ms per class.  (A Python loop over
``chr(c).isalnum()`` takes 0.2 s per class.)  Every ``indexc compile`` is a fresh process, so
that cost would be paid by every compile that uses a class: the derived ranges are therefore
also shipped, for the Unicode version they were derived with, in
``data/unicode-classes-<version>.npy`` (one int64 array: the three range counts, then the
ranges of ``\\d``, ``\\s``, ``\\w``; 12 KB; ``python -m indexc.automaton.unicode_classes``
writes it, and a test checks it equals a fresh derivation).  A plain ``.npy`` and not an
``.npz``: reading an ``.npz`` imports ``zipfile`` (6-11 ms, most of the first ``\\d`` of a
process).  A run on an interpreter with another Unicode version derives its own tables
instead of using a stale file.
"""

from __future__ import annotations

import functools
import unicodedata
from pathlib import Path

import numpy as np

from indexc.automaton.code_point_sets import MAX_CODE_POINT, CodePointSet

UNICODE_VERSION = unicodedata.unidata_version

CLASS_ESCAPES = frozenset("dDwWsS")


@functools.cache
def all_characters() -> np.ndarray:
    """Every code point as a one-character numpy string (UCS-4 storage is the code point)."""
    return np.arange(MAX_CODE_POINT + 1, dtype=np.uint32).view("U1")


SHIPPED_TABLES = Path(__file__).resolve().parent / "data" / f"unicode-classes-{UNICODE_VERSION}.npy"
SHIPPED_LETTERS = "dsw"  # the order of the tables in the file


@functools.cache
def class_escape_set(letter: str) -> CodePointSet:
    """The code points matched by ``\\<letter>`` (``letter`` in ``dDwWsS``)."""
    if letter not in CLASS_ESCAPES:
        raise ValueError(f"not a class escape: \\{letter}")
    if letter.isupper():
        return class_escape_set(letter.lower()).complement()
    shipped = _shipped_tables()
    if letter in shipped:
        return CodePointSet(shipped[letter])
    return derive_class_escape_set(letter)


@functools.cache
def _shipped_tables() -> dict[str, np.ndarray]:
    """The shipped ranges of ``\\d \\s \\w`` for this Unicode version, or {} (then derive)."""
    try:
        packed = np.load(SHIPPED_TABLES, allow_pickle=False)
    except (OSError, ValueError):
        return {}
    counts = packed[: len(SHIPPED_LETTERS)]
    ranges = packed[len(SHIPPED_LETTERS):]
    if packed.ndim != 1 or int(counts.min()) < 0 or 2 * int(counts.sum()) != ranges.size:
        return {}
    ends = np.cumsum(2 * counts)
    return {letter: ranges[end - 2 * count:end].reshape(-1, 2).astype(np.int64)
            for letter, count, end in zip(SHIPPED_LETTERS, counts.tolist(), ends.tolist())}


def derive_class_escape_set(letter: str) -> CodePointSet:
    """``\\d``, ``\\s`` or ``\\w`` from ``unicodedata`` through numpy's string predicates."""
    chars = all_characters()
    if letter == "d":
        mask = np.char.isdecimal(chars)
    elif letter == "s":
        mask = np.char.isspace(chars)
    else:
        mask = np.char.isalnum(chars)
        mask[ord("_")] = True
    return CodePointSet.from_mask(mask)


def write_shipped_tables() -> Path:
    """Derive ``\\d \\s \\w`` and write them for this interpreter's Unicode version."""
    SHIPPED_TABLES.parent.mkdir(exist_ok=True)
    tables = [np.asarray(derive_class_escape_set(letter).ranges, dtype=np.int64) for letter in SHIPPED_LETTERS]
    counts = np.array([table.shape[0] for table in tables], dtype=np.int64)
    np.save(SHIPPED_TABLES, np.concatenate([counts, *(table.reshape(-1) for table in tables)]), allow_pickle=False)
    return SHIPPED_TABLES


if __name__ == "__main__":
    print(write_shipped_tables())

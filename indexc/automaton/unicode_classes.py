"""``\\d \\w \\s`` (and their negations) as Python's ``re`` defines them for str patterns.

Definitions (CPython ``_sre``, Unicode mode, the default for str patterns):
- ``\\d``: ``Py_UNICODE_ISDECIMAL``, i.e. ``str.isdecimal()`` (general category Nd), 660
  code points in Unicode 14;
- ``\\w``: ``Py_UNICODE_ISALNUM`` or ``_``, i.e. ``str.isalnum()`` plus the underscore
  (133,548 code points, 734 ranges);
- ``\\s``: ``Py_UNICODE_ISSPACE``, i.e. ``str.isspace()`` (29 code points);
- ``\\D \\W \\S``: the complements within the Unicode scalar values.

The tables are derived from the running interpreter's Unicode database (``unicodedata``
14.0.0 on Python 3.11) the first time a class is used, so they always agree with the ``re``
module of the same interpreter; nothing is shipped.  The derivation runs numpy's vectorised
string predicates over all 1,114,112 code points at once (the code points viewed as a
``U1`` array): about 16 ms per class, once per process; afterwards a class costs a dict
lookup.  (A Python loop over ``chr(c).isalnum()`` takes 0.2 s per class.)
"""

from __future__ import annotations

import functools
import unicodedata

import numpy as np

from indexc.automaton.code_point_sets import MAX_CODE_POINT, CodePointSet

UNICODE_VERSION = unicodedata.unidata_version

CLASS_ESCAPES = frozenset("dDwWsS")


@functools.cache
def all_characters() -> np.ndarray:
    """Every code point as a one-character numpy string (UCS-4 storage is the code point)."""
    return np.arange(MAX_CODE_POINT + 1, dtype=np.uint32).view("U1")


@functools.cache
def class_escape_set(letter: str) -> CodePointSet:
    """The code points matched by ``\\<letter>`` (``letter`` in ``dDwWsS``)."""
    if letter not in CLASS_ESCAPES:
        raise ValueError(f"not a class escape: \\{letter}")
    if letter.isupper():
        return class_escape_set(letter.lower()).complement()
    chars = all_characters()
    if letter == "d":
        mask = np.char.isdecimal(chars)
    elif letter == "s":
        mask = np.char.isspace(chars)
    else:
        mask = np.char.isalnum(chars)
        mask[ord("_")] = True
    return CodePointSet.from_mask(mask)

"""Case-insensitive matching (``(?i)``) as Python's ``re`` does it for str patterns.

``re`` compares characters by their *simple* lowercase mapping, plus a small table of
lowercase letters that share an uppercase form (``i``/``ı``, ``s``/``ſ``, ``µ``/``μ``, Greek
symbol variants, Cyrillic old forms: 50 entries in CPython 3.11's ``re._casefix``).  Both are
rebuilt here from public ``str`` methods:

- the simple lowercase of ``c`` is the first character of ``c.lower()`` (the full mapping only
  differs for U+0130, whose full lowercase is ``i`` + a combining dot);
- the shared-uppercase table groups the lowercase forms by ``str.upper()``.

Two characters match each other case-insensitively iff they have the same *case key*: the
smallest lowercase form in the group of their lowercase.  Only the 4,453 cased characters
(``isupper``, ``islower`` or ``istitle``; Unicode 14) can have a key other than themselves,
so the table is two small sorted arrays, built once per process (about 50 ms, lazily).  The
test suite checks key equality against ``re.fullmatch('(?i)' + c, x)`` for every pair of
cased characters.

What is folded: literal characters and the literal characters and ranges of a class.  The
class escapes ``\\d \\w \\s`` are not folded, exactly as ``re`` tests its categories on the
character itself (those three sets are closed under lowercasing anyway; folding ``\\w`` would
wrongly add U+0345, whose key is the one of ``ι``).

Not reproduced: CPython matches a class holding a non-BMP cased character through a
different code path (``RANGE_UNI_IGNORE``) with a quirk: ``(?i)[\\U00010400x]`` does not match
U+10400 itself.  Here a character always matches itself.
"""

from __future__ import annotations

import functools
from collections import defaultdict

import numpy as np

from indexc.arrays import sorted_unique
from indexc.automaton.code_point_sets import CodePointSet
from indexc.automaton.unicode_classes import all_characters


@functools.cache
def _case_keys() -> tuple[np.ndarray, np.ndarray]:
    """``(related, key)``: sorted code points whose case key is not themselves or that are
    the key of another code point, and their keys."""
    chars = all_characters()
    cased = np.flatnonzero(np.char.isupper(chars) | np.char.islower(chars) | np.char.istitle(chars))
    lower = {int(c): ord(chr(c).lower()[0]) for c in cased}
    forms = {lw for lw in lower.values()} | {c for c, lw in lower.items() if c == lw}
    by_upper: dict[str, list[int]] = defaultdict(list)
    for form in forms:
        if lower.get(form, form) == form:
            by_upper[chr(form).upper()].append(form)
    group_key = {form: min(group) for group in by_upper.values() for form in group}
    key = {c: group_key.get(lw, lw) for c, lw in lower.items()}
    key.update({form: group_key.get(form, form) for form in forms})
    targets = set(key.values())
    related = np.array(sorted(c for c, k in key.items() if c != k or c in targets), dtype=np.int64)
    keys = np.array([key[int(c)] for c in related], dtype=np.int64)
    return related, keys


def case_key(code_point: int) -> int:
    """The case key of one code point (for tests and diagnostics)."""
    related, keys = _case_keys()
    i = int(np.searchsorted(related, code_point))
    return int(keys[i]) if i < len(related) and related[i] == code_point else code_point


def fold_case(chars: CodePointSet) -> CodePointSet:
    """Every code point that matches some member of ``chars`` case-insensitively."""
    related, keys = _case_keys()
    wanted = sorted_unique(keys[chars.contains_all(related)])
    if not len(wanted):
        return chars
    extra = related[np.isin(keys, wanted)]
    return chars.union(CodePointSet.of(*extra.tolist()))

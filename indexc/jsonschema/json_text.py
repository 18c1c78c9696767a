"""JSON string text: which spellings of a character the DFA accepts, as regexes.

A schema constrains the *decoded* string (``pattern``, ``maxLength``, ``enum``) while the
automaton reads the JSON *text*, where one character has several spellings: ``é`` is the raw
UTF-8 bytes or ``\\u00e9`` (or ``\\u00E9``), a newline is ``\\n`` or ``\\u000a``, an emoji
outside the BMP is raw or a surrogate pair ``\\ud83d\\ude00``.  ``encoded_char(S)`` is the
regex of every spelling of every character of ``S``, one JSON string unit each (so a length
bound counts characters, a surrogate pair being one).

Spelling policy (documented, and the same for keys, enums, patterns and plain strings):

- printable ASCII other than ``"`` and ``\\`` is accepted raw only: ``\\u0041`` for ``A`` is
  valid JSON but no serialiser writes it, and accepting it would add five DFA states per
  character of every key and literal;
- ``/`` is raw or ``\\/``; ``"`` and ``\\`` are ``\\"``/``\\\\`` or ``\\u0022``/``\\u005c``;
- control characters are their short escape (``\\n``...) where JSON has one, or ``\\u00XX``;
- every other character (DEL, everything non-ASCII) is raw or ``\\uXXXX``, so Python's
  ``json.dumps`` (``ensure_ascii`` on or off) is always accepted;
- lone surrogates (``\\ud800`` not followed by a low surrogate) are refused: they decode to no
  Unicode character;
- where nothing is counted or excluded character by character (an unbounded string tail,
  "any other character" of an additional key), any ``\\uXXXX`` is accepted: a smaller
  automaton, at the price of reading ``"\\u0061"`` as a key other than ``"a"`` (no
  serialiser writes that spelling).

Regexes are written in indexc's dialect with ``\\uXXXX``/``\\UXXXXXXXX`` escapes for anything
that is not printable ASCII, so the regex text itself stays ASCII.
"""

from __future__ import annotations

import functools

from indexc.automaton.code_point_sets import CodePointSet
from indexc.jsonschema.digit_ranges import HEX, fixed_width_range

ALL_CHARS = CodePointSet.all_scalars()
CONTROLS = CodePointSet.from_pairs([(0x00, 0x1F)])
RAW_ONLY = CodePointSet.from_pairs([(0x20, 0x21), (0x23, 0x5B), (0x5D, 0x7E)])
_NEVER_RAW = CONTROLS.union(CodePointSet.of(0x22, 0x5C))
_SHORT_ESCAPES = {0x22: '"', 0x5C: "\\\\", 0x2F: "/", 0x08: "b", 0x0C: "f", 0x0A: "n", 0x0D: "r", 0x09: "t"}
_REGEX_SPECIAL = set("\\.^$*+?{}[]()|-/#&~ ")


def regex_char(code_point: int) -> str:
    """One code point as a literal in indexc's regex dialect (ASCII text)."""
    c = chr(code_point)
    if 0x21 <= code_point <= 0x7E:
        return "\\" + c if c in _REGEX_SPECIAL else c
    if code_point <= 0xFFFF:
        return f"\\u{code_point:04x}"
    return f"\\U{code_point:08x}"


def char_class(chars: CodePointSet) -> str:
    """A bracketed class (or a single literal) for a non-empty set; negated when shorter."""
    ranges = [(int(lo), int(hi)) for lo, hi in chars.ranges]
    if len(ranges) == 1 and ranges[0][0] == ranges[0][1]:
        return regex_char(ranges[0][0])
    complement = [(int(lo), int(hi)) for lo, hi in chars.complement().ranges]
    if complement and len(complement) < len(ranges):
        return "[^" + _class_body(complement) + "]"
    return "[" + _class_body(ranges) + "]"


def _class_body(ranges: list[tuple[int, int]]) -> str:
    parts = []
    for lo, hi in ranges:
        if lo == hi:
            parts.append(regex_char(lo))
        elif hi == lo + 1:
            parts.append(regex_char(lo) + regex_char(hi))
        else:
            parts.append(f"{regex_char(lo)}-{regex_char(hi)}")
    return "".join(parts)


@functools.lru_cache(maxsize=8192)
def _encoded_char_cached(key: bytes) -> str:
    import numpy as np

    chars = CodePointSet(np.frombuffer(key, dtype=np.int64).reshape(-1, 2))
    options = []
    raw = chars.difference(_NEVER_RAW)
    if not raw.is_empty():
        options.append(char_class(raw))
    short = [_SHORT_ESCAPES[cp] for cp in sorted(_SHORT_ESCAPES) if cp in chars]
    if short:
        body = "".join(regex_char(ord(s)) if s != "\\\\" else "\\\\" for s in short)
        options.append("\\\\" + (body if len(short) == 1 else f"[{body}]"))
    escaped = chars.difference(RAW_ONLY)
    bmp = escaped.intersection(CodePointSet.from_pairs([(0, 0xFFFF)]))
    if not bmp.is_empty():
        options.append("\\\\u" + _group(_hex_ranges(bmp)))
    astral = escaped.difference(CodePointSet.from_pairs([(0, 0xFFFF)]))
    if not astral.is_empty():
        options.append(_surrogate_pairs(astral))
    return "|".join(options)


def encoded_char(chars: CodePointSet) -> str:
    """Regex for one JSON string unit that decodes to a character of ``chars`` ('' if empty)."""
    if chars.is_empty():
        return ""
    return _encoded_char_cached(chars.ranges.tobytes())



def _hex_ranges(chars: CodePointSet) -> str:
    return "|".join(_hex_range(int(lo), int(hi)) for lo, hi in chars.ranges)


def _hex_range(lo: int, hi: int) -> str:
    return fixed_width_range(f"{lo:04x}", f"{hi:04x}", HEX)


def _surrogate_pairs(chars: CodePointSet) -> str:
    """``\\uD8xx\\uDCxx`` spellings of supplementary-plane characters, grouped by high surrogate."""
    options = []
    for lo, hi in chars.ranges:
        lo, hi = int(lo) - 0x10000, int(hi) - 0x10000
        hi_first, hi_last = lo >> 10, hi >> 10
        if hi_first == hi_last:
            options.append(_pair(hi_first, hi_first, lo & 0x3FF, hi & 0x3FF))
            continue
        full_first = hi_first if lo & 0x3FF == 0 else hi_first + 1
        full_last = hi_last if hi & 0x3FF == 0x3FF else hi_last - 1
        if full_first != hi_first:
            options.append(_pair(hi_first, hi_first, lo & 0x3FF, 0x3FF))
        if full_first <= full_last:
            options.append(_pair(full_first, full_last, 0, 0x3FF))
        if full_last != hi_last:
            options.append(_pair(hi_last, hi_last, 0, hi & 0x3FF))
    return "|".join(options)


def _pair(high_lo: int, high_hi: int, low_lo: int, low_hi: int) -> str:
    high = _hex_range(0xD800 + high_lo, 0xD800 + high_hi)
    low = _hex_range(0xDC00 + low_lo, 0xDC00 + low_hi)
    return f"\\\\u{_group(high)}\\\\u{_group(low)}"


def literal_string_body(text: str) -> str:
    """Regex for every accepted spelling of ``text`` inside a JSON string (quotes excluded)."""
    return "".join(_literal_char(ord(c)) for c in text)


@functools.lru_cache(maxsize=4096)
def _literal_char(code_point: int) -> str:
    if code_point in RAW_ONLY and code_point != 0x2F:
        return regex_char(code_point)
    return _group(encoded_char(CodePointSet.of(code_point)))


def literal_string(text: str) -> str:
    return '"' + literal_string_body(text) + '"'


def _group(text: str) -> str:
    return f"(?:{text})" if "|" in text else text


ANY_CHAR = encoded_char(ALL_CHARS)  # one character, exactly (a surrogate pair is one)
# Any run of characters, when nothing counts them: every ``\uXXXX`` allowed, including the
# printable-ASCII spellings and unpaired surrogates that ``ANY_CHAR`` refuses (valid JSON
# grammar; Python's json.loads accepts them), for an NFA a tenth of the size.
ANY_CHAR_RUN_UNIT = '[^"\\\\\\x00-\\x1f]|\\\\["\\\\/bfnrt]|\\\\u[0-9a-fA-F]{4}'

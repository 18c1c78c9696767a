"""Regexes for ranges of digit strings: fixed-width (decimal or hex) and natural numbers.

The classic recursive split: a range ``[lo, hi]`` of same-width digit strings is the shared
first digit plus the range of the rest, or three parts (lo's first digit with a lower bound
on the rest, the digits strictly between with anything after them, hi's first digit with an
upper bound on the rest).  The regex grows with the number of digits, never with the size of
the range: ``[0, 2**63-1]`` is a few hundred characters.

Used for integer bounds (``numbers``) and for the hex digits of ``\\uXXXX`` escapes
(``json_text``), where a hex digit letter is accepted in either case, as JSON allows.
"""

from __future__ import annotations

DECIMAL = "0123456789"
HEX = "0123456789abcdef"


def digit_class(low: int, high: int, alphabet: str = DECIMAL) -> str:
    """A class matching the digits with values ``low..high`` (hex letters in both cases)."""
    if low > high:
        raise ValueError("empty digit class")
    values = range(low, high + 1)
    if alphabet == DECIMAL or high < 10:
        return _range_text(DECIMAL[low], DECIMAL[high]) if low != high else DECIMAL[low]
    low_digits = [v for v in values if v < 10]
    letters = [HEX[v] for v in values if v >= 10]
    inner = ""
    if low_digits:
        inner += _span(DECIMAL[low_digits[0]], DECIMAL[low_digits[-1]])
    if letters:
        inner += _span(letters[0], letters[-1]) + _span(letters[0].upper(), letters[-1].upper())
    return f"[{inner}]"


def _span(first: str, last: str) -> str:
    return first if first == last else f"{first}-{last}"


def _range_text(first: str, last: str) -> str:
    if first == last:
        return first
    if ord(last) == ord(first) + 1:
        return f"[{first}{last}]"
    return f"[{first}-{last}]"


def any_digit(alphabet: str = DECIMAL) -> str:
    return digit_class(0, len(alphabet) - 1, alphabet)


def fixed_width_range(low: str, high: str, alphabet: str = DECIMAL) -> str:
    """Regex for the digit strings of ``len(low)`` digits between ``low`` and ``high`` (inclusive)."""
    if len(low) != len(high) or low > high:
        raise ValueError(f"bad fixed-width range {low!r}..{high!r}")
    if low == high:
        return "".join(_literal_digit(d, alphabet) for d in low)
    first_lo, first_hi = alphabet.index(low[0]), alphabet.index(high[0])
    rest = len(low) - 1
    if rest == 0:
        return digit_class(first_lo, first_hi, alphabet)
    if first_lo == first_hi:
        return _literal_digit(low[0], alphabet) + _group(fixed_width_range(low[1:], high[1:], alphabet))
    top, bottom = alphabet[-1] * rest, alphabet[0] * rest
    parts = []
    middle_lo, middle_hi = first_lo + 1, first_hi - 1
    if low[1:] == bottom:
        middle_lo = first_lo
    else:
        parts.append(_literal_digit(low[0], alphabet) + _group(fixed_width_range(low[1:], top, alphabet)))
    if high[1:] == top:
        middle_hi = first_hi
    if middle_lo <= middle_hi:
        parts.append(digit_class(middle_lo, middle_hi, alphabet) + _repeat_any(rest, alphabet))
    if high[1:] != top:
        parts.append(_literal_digit(high[0], alphabet) + _group(fixed_width_range(bottom, high[1:], alphabet)))
    return "|".join(parts)


def natural_range(low: int, high: int | None) -> str:
    """Regex for the decimal texts (no leading zeros) of the integers ``low..high`` (``None``: no upper bound)."""
    if low < 0 or (high is not None and high < low):
        raise ValueError(f"bad natural range {low}..{high}")
    low_text = str(low)
    parts = []
    last_width = len(str(high)) if high is not None else len(low_text)
    for width in range(len(low_text), last_width + 1):
        lo = max(low, 10 ** (width - 1) if width > 1 else 0)
        hi = 10**width - 1 if high is None else min(high, 10**width - 1)
        if lo <= hi:
            parts.append(fixed_width_range(str(lo).zfill(width), str(hi).zfill(width)))
    if high is None:
        parts.append(f"[1-9][0-9]{{{len(low_text)},}}")
    return "|".join(_group(p) if "|" in p else p for p in parts)


def _literal_digit(digit: str, alphabet: str) -> str:
    if alphabet == HEX and digit in "abcdef":
        return f"[{digit}{digit.upper()}]"
    return digit


def _group(text: str) -> str:
    return f"(?:{text})" if "|" in text else text


def _repeat_any(count: int, alphabet: str) -> str:
    cls = any_digit(alphabet)
    return cls if count == 1 else f"{cls}{{{count}}}"

"""Numbers and integers with bounds, as exact regular languages over their JSON text.

JSON writes a number as ``-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?``.  A bound such as
``minimum: 1.5`` is a comparison between that text's value and a constant, and over plain
decimal text it is regular: compare the integer part (``digit_ranges.natural_range``), and
where the integer part equals the bound's, compare the fraction digit by digit
(``_fraction_digits``: a recursion over the bound's digits that merges the digits leading to
the same remainder into one class, so the regex is linear in the bound's length).  Zero has
several spellings (``0``, ``-0``, ``0.000``) and is handled apart from the positive and the
negative magnitudes, so ``exclusiveMinimum: 0`` rejects ``-0.0`` and ``minimum: 0`` accepts it.

Exponents.  ``0.{k zeros}1e{n}`` is ``<= 100`` exactly when ``n <= k + 2``: comparing two
unbounded counts is not regular, so no DFA accepts exactly the exponent spellings of a bounded
range.  Policy: without bounds, or when the bounds are only about the sign (``minimum: 0``,
``exclusiveMaximum: 0``...), every JSON spelling is accepted, exponents included; with any
other bound only plain decimal text is (``1e2`` is refused under ``maximum: 1000``; Python's
``json.dumps`` writes exponents only below 1e-4 and from 1e16).  Integers (``type:
integer``) are accepted in their plain form only (``-?(0|[1-9][0-9]*)``, ``-0`` included);
``1.0`` and ``1e2`` are integers to a JSON Schema validator, but no serialiser writes an
integer-valued field that way, and llguidance makes the same choice.

``multipleOf``: a power of ten ``10**-k`` on numbers limits the fraction to ``k`` significant
digits (trailing zeros allowed); a whole ``k`` on integers is exact for a bounded range of at
most ``MAX_ENUMERATED_MULTIPLES`` multiples (listed), for a power of ten, or for ``1``; other
cases raise ``Unsupported``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from decimal import Decimal

from indexc.jsonschema.digit_ranges import natural_range

ANY_NUMBER = r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?"
ANY_INTEGER = r"-?(?:0|[1-9][0-9]*)"
_EXPONENT = r"(?:[eE][+-]?[0-9]+)?"
MAX_ENUMERATED_MULTIPLES = 2000


class Unsupported(Exception):
    """A numeric constraint this module cannot express exactly (the message says which)."""


class EmptyRange(Exception):
    """The bounds leave no value."""


@dataclass(frozen=True)
class Bound:
    value: Decimal
    inclusive: bool


def integer_regex(low: Bound | None, high: Bound | None, multiple_of: Decimal | None = None) -> str:
    """Plain integer texts in the range (``EmptyRange`` when there is none)."""
    lo = None if low is None else _integer_floor_bound(low, upward=True)
    hi = None if high is None else _integer_floor_bound(high, upward=False)
    if lo is not None and hi is not None and lo > hi:
        raise EmptyRange(f"no integer between {low.value} and {high.value}")
    if multiple_of is not None and multiple_of != 1:
        return _integer_multiples(lo, hi, multiple_of)
    return _integer_range(lo, hi)


def _integer_floor_bound(bound: Bound, *, upward: bool) -> int:
    """The tightest inclusive integer bound implied by ``bound``."""
    value = bound.value
    whole = int(value.to_integral_value(rounding="ROUND_CEILING" if upward else "ROUND_FLOOR"))
    if whole == value and not bound.inclusive:
        whole += 1 if upward else -1
    return whole


def _integer_range(lo: int | None, hi: int | None) -> str:
    parts = []
    if hi is None or hi >= 0:
        start = max(lo, 0) if lo is not None else 0
        parts.append(_group(natural_range(start, hi)))
    if lo is None or lo <= -1:
        magnitude_lo = max(-hi, 1) if hi is not None else 1
        magnitude_hi = -lo if lo is not None else None
        if magnitude_hi is None or magnitude_lo <= magnitude_hi:
            parts.append("-" + _group(natural_range(magnitude_lo, magnitude_hi)))
    if (lo is None or lo <= 0) and (hi is None or hi >= 0):
        parts.append("-0")
    return "|".join(parts)


def _integer_multiples(lo: int | None, hi: int | None, multiple_of: Decimal) -> str:
    if multiple_of != multiple_of.to_integral_value() or multiple_of <= 0:
        raise Unsupported(f"multipleOf {multiple_of} on an integer")
    step = int(multiple_of)
    if lo is not None and hi is not None:
        first = -(-lo // step) * step
        count = (hi - first) // step + 1 if hi >= first else 0
        if count <= 0:
            raise EmptyRange(f"no multiple of {step} between {lo} and {hi}")
        if count <= MAX_ENUMERATED_MULTIPLES:
            values = range(first, hi + 1, step)
            texts = [str(v) for v in values] + (["-0"] if 0 in values else [])
            return "|".join(texts)
    zeros = len(str(step)) - 1
    if step == 10**zeros and lo in (None, 0) and hi in (None, 0):
        positive = f"[1-9][0-9]*{'0' * zeros}"
        parts = ["-?0"] + ([positive] if hi is None else []) + (["-" + positive] if lo is None else [])
        return "|".join(parts)
    raise Unsupported(f"multipleOf {step} with this range (only bounded ranges of <= "
                      f"{MAX_ENUMERATED_MULTIPLES} multiples, or powers of ten bounded at 0)")


def number_regex(low: Bound | None, high: Bound | None, multiple_of: Decimal | None = None) -> str:
    """JSON number texts in the range (see the module note for exponents)."""
    if low is not None and high is not None:
        if low.value > high.value or (low.value == high.value and not (low.inclusive and high.inclusive)):
            raise EmptyRange(f"no number between {low.value} and {high.value}")
    fraction_limit = _fraction_limit(multiple_of)
    if fraction_limit is None and _sign_only(low) and _sign_only(high):
        return _signed_with_exponents(low, high)
    parts = []
    if _contains_zero(low, high):
        parts.append("-?0" + (_fraction_text("", False, "", False, fraction_limit) or ""))
    positive = _magnitudes(_positive_lower(low), _upper(high), fraction_limit)
    if positive:
        parts.append(positive)
    negative = _magnitudes(_positive_lower(_negated(high)), _upper(_negated(low)), fraction_limit)
    if negative:
        parts.append("-" + _group(negative))
    if not parts:
        raise EmptyRange("the bounds leave no number")
    return "|".join(_group(p) for p in parts)


def _fraction_limit(multiple_of: Decimal | None) -> int | None:
    if multiple_of is None:
        return None
    if multiple_of <= 0:
        raise Unsupported(f"multipleOf {multiple_of} (must be positive)")
    normalized = multiple_of.normalize()
    digits = normalized.as_tuple()
    if digits.digits == (1,) and digits.exponent <= 0:
        return -digits.exponent
    raise Unsupported(f"multipleOf {multiple_of} on a number (only powers of ten 1, 0.1, 0.01, ...)")


def _sign_only(bound: Bound | None) -> bool:
    return bound is None or bound.value == 0


def _signed_with_exponents(low: Bound | None, high: Bound | None) -> str:
    """Every spelling, exponents included, of a range bounded at most by 0."""
    mantissa_nonzero = r"(?:[1-9][0-9]*(?:\.[0-9]+)?|0\.[0-9]*[1-9][0-9]*)" + _EXPONENT
    parts = []
    if _contains_zero(low, high):
        parts.append(r"-?0(?:\.0+)?" + _EXPONENT)
    if high is None:
        parts.append(mantissa_nonzero)
    if low is None:
        parts.append("-" + mantissa_nonzero)
    if not parts:
        raise EmptyRange("the bounds leave no number")
    return "|".join(parts)


def _contains_zero(low: Bound | None, high: Bound | None) -> bool:
    above = low is None or low.value < 0 or (low.value == 0 and low.inclusive)
    below = high is None or high.value > 0 or (high.value == 0 and high.inclusive)
    return above and below


def _negated(bound: Bound | None) -> Bound | None:
    return None if bound is None else Bound(-bound.value, bound.inclusive)


def _positive_lower(low: Bound | None) -> tuple[Decimal, bool]:
    """Lower bound on a positive magnitude: (value, strict); at least "strictly above 0"."""
    if low is None or low.value <= 0:
        return Decimal(0), True
    return low.value, not low.inclusive


def _upper(high: Bound | None) -> tuple[Decimal, bool] | None | bool:
    """Upper bound on a positive magnitude: (value, strict), None (unbounded), False (no positives)."""
    if high is None:
        return None
    if high.value <= 0:
        return False
    return high.value, not high.inclusive


def _magnitudes(lower: tuple[Decimal, bool], upper, fraction_limit: int | None) -> str:
    """Texts ``(0|[1-9][0-9]*)(\\.[0-9]+)?`` whose value lies between the bounds (or '')."""
    if upper is False:
        return ""
    low_int, low_frac = _split(lower[0])
    parts = []
    if upper is None:
        parts.append(_with_fraction(str(low_int), _fraction_text(low_frac, lower[1], None, False, fraction_limit)))
        parts.append(_with_fraction(_group(natural_range(low_int + 1, None)), _any_fraction(fraction_limit)))
    else:
        high_int, high_frac = _split(upper[0])
        if low_int == high_int:
            fraction = _fraction_text(low_frac, lower[1], high_frac, upper[1], fraction_limit)
            parts.append(_with_fraction(str(low_int), fraction))
        else:
            parts.append(_with_fraction(str(low_int), _fraction_text(low_frac, lower[1], None, False, fraction_limit)))
            if low_int + 1 <= high_int - 1:
                middle = _group(natural_range(low_int + 1, high_int - 1))
                parts.append(_with_fraction(middle, _any_fraction(fraction_limit)))
            parts.append(_with_fraction(str(high_int), _fraction_text("", False, high_frac, upper[1], fraction_limit)))
    return "|".join(p for p in parts if p)


def _split(value: Decimal) -> tuple[int, str]:
    """(integer part, fraction digits without trailing zeros) of a non-negative decimal."""
    text = format(value, "f")
    whole, _, fraction = text.partition(".")
    return int(whole), fraction.rstrip("0")


def _with_fraction(integer_part: str, fraction: str | None) -> str:
    if fraction is None:
        return ""
    return integer_part + fraction


def _any_fraction(fraction_limit: int | None) -> str:
    return _fraction_text("", False, None, False, fraction_limit)


def _fraction_text(low: str, low_strict: bool, high: str | None, high_strict: bool, limit: int | None) -> str | None:
    """Regex for the fraction text ('' or ``\\.[0-9]+``) with ``0.low <(=) value <(=) 0.high``.

    ``high`` None means no upper bound (every fraction is below 1); None when no fraction fits.
    """
    parts = []
    if _zero_allowed(low, low_strict, high, high_strict):
        parts.append("")
    digits = _fraction_digits(low, low_strict, high, high_strict, limit, True)
    if digits is not None:
        parts.append(r"\." + _group(digits))
    if not parts:
        return None
    if parts == [""]:
        return ""
    if parts[0] == "":
        return f"(?:{parts[1]})?"
    return parts[0]


def _zero_allowed(low: str, low_strict: bool, high: str | None, high_strict: bool) -> bool:
    return low == "" and not low_strict and not (high == "" and high_strict)


@functools.lru_cache(maxsize=4096)
def _fraction_digits(low: str, low_strict: bool, high: str | None, high_strict: bool,
                     limit: int | None, nonempty: bool) -> str | None:
    """Digit strings R with ``0.low <(=) 0.R <(=) 0.high`` (``limit``: significant digits left)."""
    if high == "" or limit == 0:
        if not _zero_allowed(low, low_strict, high, high_strict):
            return None
        return "0+" if nonempty else "0*"
    if low == "" and high is None and limit is None:
        if low_strict:
            return "[0-9]*[1-9][0-9]*"
        return "[0-9]+" if nonempty else "[0-9]*"
    branches: list[tuple[list[int], str]] = []
    for digit in range(10):
        sub = _after_digit(digit, low, low_strict, high, high_strict)
        if sub is None:
            continue
        rest = _fraction_digits(*sub, None if limit is None else limit - 1, False)
        if rest is None:
            continue
        if branches and branches[-1][1] == rest and branches[-1][0][-1] == digit - 1:
            branches[-1][0].append(digit)
        else:
            branches.append(([digit], rest))
    options = [_digit_span(digits) + _group(rest) for digits, rest in branches]
    if not nonempty and _zero_allowed(low, low_strict, high, high_strict):
        options.append("")
    if not options:
        return None
    if options == [""]:
        return ""
    if options[-1] == "":
        return f"(?:{'|'.join(options[:-1])})?"
    return "|".join(options)


def _after_digit(digit: int, low: str, low_strict: bool, high: str | None, high_strict: bool):
    """The bounds on the rest of the digits once ``digit`` is read (None: the digit is out)."""
    low_digit = int(low[0]) if low else 0
    if digit < low_digit:
        return None
    sub_low = (low[1:], low_strict) if digit == low_digit else ("", False)
    if high is None:
        sub_high = (None, False)
    else:
        high_digit = int(high[0])
        if digit > high_digit:
            return None
        sub_high = (high[1:], high_strict) if digit == high_digit else (None, False)
    return sub_low + sub_high


def _digit_span(digits: list[int]) -> str:
    if len(digits) == 1:
        return str(digits[0])
    if len(digits) == 2:
        return f"[{digits[0]}{digits[1]}]"
    return f"[{digits[0]}-{digits[-1]}]"


def _group(text: str) -> str:
    return f"(?:{text})" if "|" in text else text


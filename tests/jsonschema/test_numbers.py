"""Numeric bounds are exact over plain decimal text: checked against Decimal comparisons."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from indexc.jsonschema.numbers import Bound, EmptyRange, Unsupported, integer_regex, number_regex
from tests.jsonschema.helpers import accepts

PLAIN = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?")

decimal_texts = st.builds(
    lambda sign, whole, frac: f"{sign}{whole}{'.' + frac if frac else ''}",
    st.sampled_from(["", "-"]),
    st.one_of(st.just("0"), st.integers(1, 10**6).map(str)),
    st.one_of(st.just(""), st.text("0123456789", min_size=1, max_size=5)),
)
bound_values = st.one_of(st.integers(-1000, 1000).map(Decimal),
                         st.decimals(-1000, 1000, places=3, allow_nan=False, allow_infinity=False))
bounds = st.one_of(st.none(), st.builds(Bound, bound_values, st.booleans()))


def in_range(value: Decimal, low: Bound | None, high: Bound | None) -> bool:
    if low is not None and (value < low.value or (value == low.value and not low.inclusive)):
        return False
    if high is not None and (value > high.value or (value == high.value and not high.inclusive)):
        return False
    return True


@settings(max_examples=300, deadline=None)
@given(bounds, bounds, st.lists(decimal_texts, min_size=1, max_size=20))
def test_number_range_matches_decimal_comparison(low, high, texts):
    try:
        rx = re.compile(number_regex(low, high))
    except EmptyRange:
        assert not any(in_range(Decimal(t), low, high) for t in texts)
        return
    for text in texts:
        assert bool(rx.fullmatch(text)) == in_range(Decimal(text), low, high), (text, low, high)


@settings(max_examples=200, deadline=None)
@given(bounds, bounds, st.integers(-3000, 3000))
def test_integer_range_matches_integer_comparison(low, high, value):
    try:
        rx = re.compile(integer_regex(low, high))
    except EmptyRange:
        assert not in_range(Decimal(value), low, high)
        return
    assert bool(rx.fullmatch(str(value))) == in_range(Decimal(value), low, high)
    assert not rx.fullmatch(f"{value}.5")


@settings(max_examples=200, deadline=None)
@given(bounds, bounds, st.from_regex(r"-?(0|[1-9][0-9]{0,3})(\.[0-9]{1,3})?[eE][+-]?[0-9]{1,2}", fullmatch=True))
def test_exponent_spellings_are_never_accepted_out_of_range(low, high, text):
    try:
        rx = re.compile(number_regex(low, high))
    except EmptyRange:
        return
    if rx.fullmatch(text):
        assert in_range(Decimal(text), low, high)


def test_zero_spellings_and_sign_bounds():
    non_negative = re.compile(number_regex(Bound(Decimal(0), True), None))
    for text in ("0", "-0", "0.0", "-0.000", "1.0e5", "1e-05", "0e10", "3.25E+2"):
        assert non_negative.fullmatch(text), text
    for text in ("-1", "-0.001", "-1e5"):
        assert not non_negative.fullmatch(text), text
    positive = re.compile(number_regex(Bound(Decimal(0), False), None))
    assert not positive.fullmatch("-0.0") and not positive.fullmatch("0") and positive.fullmatch("0.001")


def test_decimal_bounds_refuse_exponents_by_policy():
    rx = re.compile(number_regex(Bound(Decimal(1), True), Bound(Decimal(1000), True)))
    assert rx.fullmatch("100") and rx.fullmatch("100.0") and not rx.fullmatch("1e2")


def test_multiple_of_powers_of_ten_and_integers():
    cents = re.compile(number_regex(Bound(Decimal(0), True), Bound(Decimal(100), True), Decimal("0.01")))
    for text, ok in (("1.25", True), ("1.250", True), ("1.255", False), ("100.00", True), ("100.01", False), ("0.5", True)):
        assert bool(cents.fullmatch(text)) == ok, text
    fives = re.compile(integer_regex(Bound(Decimal(-20), True), Bound(Decimal(20), True), Decimal(5)))
    assert [v for v in range(-25, 26) if fives.fullmatch(str(v))] == [-20, -15, -10, -5, 0, 5, 10, 15, 20]
    with pytest.raises(Unsupported):
        integer_regex(None, None, Decimal(7))


def test_schema_number_keywords_end_to_end():
    schema = {"type": "number", "minimum": -1.5, "exclusiveMaximum": 10}
    for text, ok in (("-1.5", True), ("-1.51", False), ("9.999", True), ("10", False), ("10.0", False), ("0", True)):
        assert accepts(schema, text) == ok, text
    draft4 = {"type": "integer", "minimum": 0, "exclusiveMinimum": True, "maximum": 3}
    assert [t for t in ("0", "1", "3", "4", "-0") if accepts(draft4, t)] == ["1", "3"]
    assert accepts({"type": "integer"}, "-0") and not accepts({"type": "integer"}, "1.0")
    assert accepts({"type": "number"}, "1.0e5") and accepts({"type": "number"}, "-0")

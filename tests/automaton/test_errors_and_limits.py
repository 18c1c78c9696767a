"""Rejected features and syntax errors (with the position in the user's pattern), the empty
language, and the size limits (hostile regexes must fail with ``LimitError``)."""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pytest

from indexc.automaton import AutomatonLimits, compile_regex
from indexc.automaton import compile as compile_module
from indexc.automaton.size_bound import distance_levels
from indexc.errors import LimitError, RegexError

UNSUPPORTED = [
    # pattern, position, words of the message
    (r"a(?=b)", 1, "look-ahead"),
    (r"a(?!b)", 1, "look-ahead"),
    (r"(?<=a)b", 0, "look-behind"),
    (r"x(?<!a)b", 1, "look-behind"),
    (r"(a)\1", 3, "back-references"),
    (r"(?P<n>a)(?P=n)", 8, "back-references"),
    (r"a\bc", 1, "word boundaries"),
    (r"a\Bc", 1, "word boundaries"),
    (r"a++", 2, "possessive"),
    (r"a{2}+", 4, "possessive"),
    (r"(?>ab)", 0, "atomic"),
    (r"(a)?(?(1)b|c)", 4, "conditional"),
    (r"\p{L}", 0, "Unicode properties"),
    (r"x\P{Lu}", 1, "Unicode properties"),
    (r"(?x)a b", 2, "VERBOSE"),
    (r"(?ia)\w", 3, "ASCII"),
    (r"a^b", 1, "start anchor"),
    (r"a$b", 1, "end anchor"),
    (r"(a$)b", 2, "end anchor"),
    (r"(a$|b)c", 2, "end anchor"),
    (r"x\Ay", 1, "start anchor"),
    (r"(^a)*", 1, "anchor inside a repeated group"),
    (r"\ud800", 0, "surrogate"),
]

SYNTAX = [
    # errors ``re`` reports too: same position
    r"(ab",
    r"ab)",
    r"*a",
    r"a|*",
    r"a**",
    r"[abc",
    r"[z-a]",
    r"[\d-z]",
    r"a{3,2}",
    r"\q",
    "ab\\",
    r"\x4",
    r"\u12",
    r"(?P<1a>x)",
    r"(?P<n>a)(?P<n>b)",
    r"a(?i)b",
    r"(?z)",
    r"\N{NO SUCH NAME}",
    r"[\8]",
    r"\777",
    r"(?P",
    r"(?Px)",
    r"(?<x)",
    r"\N{",
    r"\N{x",
    r"(?i-",
    r"(?-i)",
    r"x{2}{3}",
    r"(?#abc",
    r"[\w-z]",
    r"[\A]",
    r"a|?",
]


@pytest.mark.parametrize("pattern, position, words", UNSUPPORTED)
def test_unsupported_features_are_errors_with_positions(pattern, position, words):
    with pytest.raises(RegexError) as caught:
        compile_regex(pattern, source="schemas/x.regex")
    assert caught.value.position == position
    assert words in caught.value.message
    assert str(caught.value).startswith(f"schemas/x.regex: at position {position}: ")


@pytest.mark.parametrize("pattern", SYNTAX)
def test_syntax_errors_at_the_position_re_reports(pattern):
    with pytest.raises(re.error) as expected:
        re.compile(pattern)
    with pytest.raises(RegexError) as caught:
        compile_regex(pattern)
    assert caught.value.position == expected.value.pos


@pytest.mark.parametrize("pattern", [r"[^\s\S]", r"a[^\w\W]b", r"[^\d\D]+", r"[^\x00-\U0010FFFF]z"])
def test_empty_language_is_an_error(pattern):
    with pytest.raises(RegexError, match="matches no string"):
        compile_regex(pattern)


@pytest.mark.parametrize(
    "pattern",
    [
        r"(a{1,1000}){1,1000}",
        r"(x|y){0,100000}",
        r"((ab){1000}){1000}",
        r"\w{1,999999999999}",
    ],
)
def test_hostile_repetitions_hit_the_nfa_limit(pattern):
    with pytest.raises(LimitError, match="NFA states") as caught:
        compile_regex(pattern)
    assert "--max-states" in caught.value.message


def test_exponential_subset_construction_hits_the_state_limit():
    with pytest.raises(LimitError, match="--max-states"):
        compile_regex(r"(a|b)*a(a|b){14}", max_states=2_000)


def test_the_subset_construction_may_pass_max_states_before_minimisation():
    # the three branches' digit runs are distinct subsets that minimisation merges: 5 states kept
    pattern = r"(x[0-9]{1,3}|y[0-9]{1,3}|z[0-9]{1,3})+"
    limits = AutomatonLimits(max_states=5, max_nfa_states=1_000, max_subset_states=20)
    assert compile_regex(pattern, limits=limits).n_states == 5
    with pytest.raises(LimitError, match="more than 5 states before minimisation"):
        compile_regex(pattern, limits=dataclasses.replace(limits, max_subset_states=5))


def test_a_long_shortest_text_is_refused_before_minimisation(monkeypatch):
    # a{30}: 31 states, each at its own distance from acceptance, so no minimal DFA is smaller
    def never(*args):
        raise AssertionError("minimised")

    monkeypatch.setattr(compile_module, "minimize_in_rounds", never)
    limits = AutomatonLimits(max_states=30, max_nfa_states=1_000, max_subset_states=120)
    with pytest.raises(LimitError, match="minimal DFA needs at least 31 states"):
        compile_regex("a{30}", limits=limits)
    # state 0 reaches acceptance in one step (column 1) as state 1 does: two distances
    assert distance_levels(np.array([[1, 2], [-1, 2], [-1, -1]]), np.array([False, False, True])) == 2
    assert distance_levels(np.array([[1], [2], [-1]]), np.array([False, False, True])) == 3


def test_byte_level_limit_names_the_limit():
    # 13 character states, 342 byte states (\w's UTF-8 tree).
    pattern = r"(https?:\/\/)?([\da-z\.-]+)\.([a-z\.]{2,6})([\/\w \.-]*)*\/?"
    assert compile_regex(pattern, max_states=342).n_states == 342
    with pytest.raises(LimitError, match=r"byte-level DFA needs more than 341 states \(limit 341\)"):
        compile_regex(pattern, max_states=341)


def test_limits_object():
    limits = AutomatonLimits.for_max_states(10)
    assert limits.max_states == 10 and limits.max_nfa_states == 40 and limits.max_subset_states == 40
    with pytest.raises(LimitError):
        compile_regex(r"a{11}", limits=limits)
    with pytest.raises(ValueError):
        AutomatonLimits.for_max_states(0)

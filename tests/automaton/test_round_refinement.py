"""``minimize_in_rounds`` against ``minimize``: the same minimal DFA up to numbering, on random
automata and on the bench regexes' character-level DFAs, also when the signature hash collides."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from indexc.automaton import round_refinement
from indexc.automaton.atom_partition import AtomPartition
from indexc.automaton.determinize import determinize
from indexc.automaton.limits import AutomatonLimits
from indexc.automaton.liveness import trim
from indexc.automaton.minimize import minimize
from indexc.automaton.nfa import build_nfa
from indexc.automaton.normalize import normalize
from indexc.automaton.parse import parse_structure
from indexc.automaton.round_refinement import minimize_in_rounds
from tests.automaton.helpers import bench_patterns
from tests.automaton.test_dfa_properties import random_dfas


@pytest.fixture(autouse=True)
def rounds_for_every_size(monkeypatch):
    """The tests' DFAs are small: make them take the rounds, not the small-DFA shortcut."""
    monkeypatch.setattr(round_refinement, "ROUNDS_FROM_TRANSITIONS", 0)


def _same_canonical(a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]) -> bool:
    """Equal after the breadth-first renumbering (isomorphic DFAs give equal arrays)."""
    (ta, aa), (tb, ab) = trim(*a), trim(*b)
    return np.array_equal(ta, tb) and np.array_equal(aa, ab)


def _subset_dfa(pattern: str) -> tuple[np.ndarray, np.ndarray]:
    limits = AutomatonLimits()
    normalized = normalize(pattern)
    nfa = build_nfa(parse_structure(normalized), limits)
    dfa = determinize(nfa, AtomPartition.of_sets(normalized.char_sets), limits)
    return trim(dfa.transitions, dfa.accepting)


@settings(max_examples=200, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # the fixture only sets a constant
@given(random_dfas())
def test_rounds_equal_hopcroft_on_random_dfas(dfa):
    trimmed = trim(*dfa)
    if trimmed is None:
        return
    by_rounds = minimize_in_rounds(*trimmed)
    assert by_rounds[0].dtype == np.int32 and by_rounds[1].dtype == bool
    assert _same_canonical(by_rounds, minimize(*trimmed))


@pytest.mark.parametrize("pattern", list(bench_patterns().values()), ids=list(bench_patterns()))
def test_rounds_equal_hopcroft_on_bench_regexes(pattern):
    trimmed = _subset_dfa(pattern)
    assert _same_canonical(minimize_in_rounds(*trimmed), minimize(*trimmed))


def test_small_dfas_take_hopcroft(monkeypatch):
    monkeypatch.setattr(round_refinement, "ROUNDS_FROM_TRANSITIONS", 10**9)
    trimmed = _subset_dfa(r"(ab|cd)*e{2,4}")
    by_hopcroft = minimize(*trimmed)
    shortcut = minimize_in_rounds(*trimmed)
    assert np.array_equal(shortcut[0], by_hopcroft[0]) and np.array_equal(shortcut[1], by_hopcroft[1])


def test_start_block_is_zero():
    transitions = np.array([[1, 2], [3, 3], [3, 3], [-1, -1]], dtype=np.int32)  # 1 and 2 merge
    accepting = np.array([False, False, False, True])
    quotient, quotient_accepting = minimize_in_rounds(transitions, accepting)
    assert quotient.tolist() == [[1, 1], [2, 2], [-1, -1]] and quotient_accepting.tolist() == [False, False, True]


def test_hash_collisions_are_caught(monkeypatch):
    """Every signature hashing to 0 keeps distinguishable states together; the congruence
    check sees it and the result is still the minimal DFA."""
    monkeypatch.setattr(round_refinement, "mix64", lambda keys: np.zeros(len(keys), dtype=np.uint64))
    trimmed = _subset_dfa(r"(ab|cd)*e{2,4}")
    assert _same_canonical(minimize_in_rounds(*trimmed), minimize(*trimmed))

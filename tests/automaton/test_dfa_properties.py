"""Structural guarantees of ``compile_regex``: minimal, live, canonical, ``ByteDFA`` layout;
and ``minimize`` against a naive reference on random automata."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from indexc.automaton import DEAD, ByteDFA, compile_regex
from indexc.automaton.liveness import trim
from indexc.automaton.minimize import minimize
from tests.automaton.helpers import bench_patterns, live_everywhere, reference_equivalence_classes
from tests.automaton.test_matches_re import OWN_PATTERNS

PATTERNS = {**bench_patterns(), **{f"own{i}": p for i, p in enumerate(OWN_PATTERNS)}}


@pytest.mark.parametrize("pattern", list(PATTERNS.values()), ids=list(PATTERNS))
def test_minimal_live_canonical(pattern):
    dfa = compile_regex(pattern)
    assert dfa.transitions.dtype == np.int32 and dfa.transitions.shape == (dfa.n_states, 256)
    assert dfa.accepting.dtype == bool and dfa.accepting.shape == (dfa.n_states,)
    assert dfa.transitions.min() >= DEAD and dfa.transitions.max() < dfa.n_states
    assert live_everywhere(dfa)
    assert reference_equivalence_classes(dfa) == dfa.n_states
    renumbered = trim(dfa.transitions, dfa.accepting)
    assert np.array_equal(renumbered[0], dfa.transitions)  # already breadth-first from 0


def test_state_counts_of_known_regexes():
    """Figures the rest of the project relies on (DESIGN.md quotes 48 for the phone regex
    with ASCII classes); also the Unicode versions."""
    phone_ascii = r"\+?[0-9]{1,4}?[-.\s]?\(?[0-9]{1,3}?\)?[-.\s]?[0-9]{1,4}[-.\s]?[0-9]{1,4}[-.\s]?[0-9]{1,9}"
    ascii_only = phone_ascii.replace(r"\s", r" \t\n\r\f\v")
    assert compile_regex(ascii_only).n_states == 48
    assert compile_regex(r"a|ab").n_states == 3
    assert compile_regex(r"1(\.2)?").n_states == 4
    assert compile_regex(r"").n_states == 1


def test_equal_languages_give_identical_arrays():
    a = compile_regex(r"(a|b)*abb")
    b = compile_regex(r"[ab]*?a(?:b)b")
    assert np.array_equal(a.transitions, b.transitions) and np.array_equal(a.accepting, b.accepting)


@st.composite
def random_dfas(draw):
    n = draw(st.integers(1, 12))
    k = draw(st.integers(1, 4))
    cells = draw(st.lists(st.integers(-1, n - 1), min_size=n * k, max_size=n * k))
    accepting = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    return np.array(cells, dtype=np.int32).reshape(n, k), np.array(accepting, dtype=bool)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(random_dfas())
def test_hopcroft_equals_naive_refinement(dfa):
    trimmed = trim(*dfa)
    if trimmed is None:
        return
    transitions, accepting = trimmed
    minimal = ByteDFA(*minimize(transitions, accepting))
    assert minimal.n_states == reference_equivalence_classes(ByteDFA(transitions, accepting))
    # Same language: walk every word of length <= 4 through both.
    words = [()]
    for length in range(4):
        words += [w + (c,) for w in words if len(w) == length for c in range(transitions.shape[1])]
    for w in words:
        assert _accepts(transitions, accepting, w) == _accepts(minimal.transitions, minimal.accepting, w)


def _accepts(transitions: np.ndarray, accepting: np.ndarray, word: tuple[int, ...]) -> bool:
    state = 0
    for c in word:
        state = int(transitions[state, c])
        if state == DEAD:
            return False
    return bool(accepting[state])

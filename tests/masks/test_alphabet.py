"""The walk's alphabet under literal muting, derived from the exact one, against the direct build."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from indexc.automaton.byte_dfa import ByteDFA
from indexc.masks.alphabet import byte_alphabet, coarser_alphabet


@settings(max_examples=80, deadline=None)
@given(n_states=st.integers(1, 12), n_targets=st.integers(1, 5), seed=st.integers(0, 2**32 - 1))
def test_coarser_alphabet_is_the_alphabet_of_the_rows(n_states, n_targets, seed):
    """Few distinct targets per byte, so that bytes merge in some rows and not in others."""
    rng = np.random.default_rng(seed)
    transitions = rng.integers(-1, min(n_targets, n_states), size=(n_states, 256)).astype(np.int32)
    transitions[:, rng.integers(0, 256, size=int(rng.integers(0, 200)))] = -1  # dead columns too
    dfa = ByteDFA(transitions, rng.random(n_states) < 0.5)
    rows = rng.random(n_states) < 0.5
    expected, found = byte_alphabet(dfa, rows=rows), coarser_alphabet(byte_alphabet(dfa), rows)
    for name in ("class_of_byte", "class_transitions", "dead_class"):
        want, got = getattr(expected, name), getattr(found, name)
        assert want.dtype == got.dtype and np.array_equal(want, got), name

"""``masks.equivalence`` against its definition, on random tables.

Two states are k-equivalent iff every string of at most k classes meets the same sequence of
(dead, muted) flags from both: the reference enumerates those strings outright.
"""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from indexc.masks.equivalence import equivalent_states


def flags_along(table: np.ndarray, muted: np.ndarray, state: int, depth: int) -> tuple:
    """The (dead, muted) flags met from ``state`` along every class string of length 1..depth."""
    seen = []
    for length in range(1, depth + 1):
        for word in itertools.product(range(table.shape[1]), repeat=length):
            current = state
            for symbol in word:
                current = table[current, symbol] if current >= 0 else -1
            seen.append((current < 0, bool(muted[current]) if current >= 0 else False))
    return (bool(muted[state]), tuple(seen))


@st.composite
def tables(draw):
    n_states = draw(st.integers(1, 7))
    n_classes = draw(st.integers(1, 3))
    cells = draw(st.lists(st.integers(-1, n_states - 1), min_size=n_states * n_classes,
                          max_size=n_states * n_classes))
    muted = draw(st.lists(st.booleans(), min_size=n_states, max_size=n_states))
    return np.array(cells, dtype=np.int32).reshape(n_states, n_classes), np.array(muted, dtype=bool)


@settings(max_examples=150, deadline=None)
@given(table_and_muted=tables(), data=st.data())
def test_equivalent_states_match_the_definition(table_and_muted, data):
    table, muted = table_and_muted
    n_states = table.shape[0]
    depths = np.array(data.draw(st.lists(st.integers(0, 5), min_size=1, max_size=12)), dtype=np.int64)
    states = np.array(data.draw(st.lists(st.integers(0, n_states - 1), min_size=depths.size,
                                         max_size=depths.size)), dtype=np.int64)
    got = equivalent_states(table, muted, states, depths)
    for i, j in itertools.combinations(range(states.size), 2):
        if depths[i] != depths[j]:
            continue
        expected = flags_along(table, muted, states[i], depths[i]) == flags_along(table, muted, states[j], depths[j])
        assert (got[i] == got[j]) == expected, (table.tolist(), muted.tolist(), states[i], states[j], depths[i])


def test_a_counter_far_from_its_bound_is_one_block():
    """a{0,20} as a chain: from states 0..16 four more a's are alive, so no string of 4
    classes tells them apart; states 17..20 die after 3, 2, 1, 0 of them."""
    table = np.array([[s + 1 if s < 20 else -1] for s in range(21)], dtype=np.int32)
    muted = np.zeros(21, dtype=bool)
    got = equivalent_states(table, muted, np.arange(21), np.full(21, 4))
    assert len(set(got[:17].tolist())) == 1
    assert len(set(got[16:].tolist())) == 5

"""``masks.equivalence`` against its definition, on random tables.

Two states are k-equivalent iff every string of at most k classes meets the same sequence of
(dead, muted) flags from both: the reference enumerates those strings outright.
"""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from indexc.masks.equivalence import WithinQuery, equivalent_states, equivalent_within, equivalent_within_groups


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


@settings(max_examples=150, deadline=None)
@given(table_and_muted=tables(), data=st.data())
def test_equivalent_within_some_classes_match_the_definition(table_and_muted, data):
    """Only strings of the chosen classes count: states told apart by another class only are one."""
    table, muted = table_and_muted
    n_states, n_classes = table.shape
    columns = np.array(sorted(data.draw(st.sets(st.integers(0, n_classes - 1)))), dtype=np.int64)
    depths = np.array(data.draw(st.lists(st.integers(0, 5), min_size=1, max_size=12)), dtype=np.int64)
    states = np.array(data.draw(st.lists(st.integers(0, n_states - 1), min_size=depths.size,
                                         max_size=depths.size)), dtype=np.int64)
    got = equivalent_within(table, muted, states, depths, columns)
    restricted = table[:, columns]
    for i, j in itertools.combinations(range(states.size), 2):
        if depths[i] != depths[j]:
            continue
        expected = (flags_along(restricted, muted, states[i], depths[i])
                    == flags_along(restricted, muted, states[j], depths[j]))
        assert (got[i] == got[j]) == expected, (table.tolist(), muted.tolist(), columns, states[i], states[j], depths[i])


def test_string_bodies_followed_by_different_keys_are_one_below_letters():
    """Two string bodies (a letter loops, a quote leaves to different states) are one block for
    strings of letters only, two as soon as the quote counts."""
    # classes: 0 letter, 1 quote, 2 comma, 3 brace; states 0, 1 bodies; 2 wants a comma, 3 a brace
    table = np.array([[0, 2, -1, -1], [1, 3, -1, -1], [-1, -1, 4, -1], [-1, -1, -1, 4], [-1] * 4], dtype=np.int32)
    muted = np.zeros(5, dtype=bool)
    letters = equivalent_within(table, muted, np.array([0, 1]), np.array([6, 6]), np.array([0]))
    assert letters[0] == letters[1]
    with_quote = equivalent_within(table, muted, np.array([0, 1]), np.array([6, 6]), np.array([0, 1, 2]))
    assert with_quote[0] != with_quote[1]


def test_equivalent_within_gives_up_past_its_reach_bound():
    """A chain of 10 states read by its one class: from state 0 every state is within reach."""
    table = np.array([[s + 1 if s < 9 else -1] for s in range(10)], dtype=np.int32)
    muted = np.zeros(10, dtype=bool)
    states, depths = np.array([0, 1]), np.array([9, 9])
    assert equivalent_within(table, muted, states, depths, np.array([0]), most_states=5) is None
    got = equivalent_within(table, muted, states, depths, np.array([0]), most_states=10)
    assert got is not None and got[0] != got[1]  # 0 lives 9 steps, 1 dies at the 9th


@settings(max_examples=100, deadline=None)
@given(table_and_muted=tables(), data=st.data())
def test_queries_refined_together_split_as_each_alone(table_and_muted, data):
    """``equivalent_within_groups``: several queries (own classes, depths, bounds) in one
    refinement give each the partition it gets alone, whichever leaves the rounds first."""
    table, muted = table_and_muted
    n_states, n_classes = table.shape
    queries = []
    for _ in range(data.draw(st.integers(1, 4))):
        columns = np.array(sorted(data.draw(st.sets(st.integers(0, n_classes - 1)))), dtype=np.int64)
        depths = np.array(data.draw(st.lists(st.integers(0, 5), min_size=1, max_size=8)), dtype=np.int64)
        states = np.array(data.draw(st.lists(st.integers(0, n_states - 1), min_size=depths.size,
                                             max_size=depths.size)), dtype=np.int64)
        most = data.draw(st.none() | st.integers(0, n_states))
        queries.append(WithinQuery(states, depths, columns, most))
    together = equivalent_within_groups(table, muted, queries)
    for query, got in zip(queries, together):
        alone = equivalent_within(table, muted, query.states, query.depths, query.columns, query.most_states)
        assert (got is None) == (alone is None)
        if got is not None:  # numbers of states asked at different depths are not comparable
            comparable = query.depths[:, None] == query.depths[None, :]
            same, same_alone = got[:, None] == got[None, :], alone[:, None] == alone[None, :]
            assert np.array_equal(same[comparable], same_alone[comparable])

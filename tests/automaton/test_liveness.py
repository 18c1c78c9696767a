"""``live_part`` and ``breadth_first_renumbering``: ``trim`` without the work their callers do not
need, giving the same DFAs once minimised and numbered breadth-first."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from indexc.automaton import DEAD
from indexc.automaton.liveness import breadth_first_renumbering, live_part, trim
from indexc.automaton.minimize import minimize
from tests.automaton.test_dfa_properties import random_dfas


def _reachable_part(transitions: np.ndarray, accepting: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The states reachable from 0 (a subset construction's output has no others), in a plain
    Python search, kept in their own order (not breadth-first)."""
    seen, stack = {0}, [0]
    while stack:
        for target in transitions[stack.pop()].tolist():
            if target != DEAD and target not in seen:
                seen.add(target)
                stack.append(target)
    kept = np.array(sorted(seen))
    new_id = np.full(len(transitions) + 1, DEAD, dtype=np.int32)
    new_id[kept] = np.arange(len(kept), dtype=np.int32)
    return new_id[transitions[kept]], accepting[kept]


@settings(max_examples=300, deadline=None, derandomize=True)
@given(random_dfas())
def test_live_part_minimises_to_what_trim_does(dfa):
    transitions, accepting = _reachable_part(*dfa)
    trimmed, live = trim(transitions, accepting), live_part(transitions, accepting)
    assert (trimmed is None) == (live is None)
    if trimmed is None:
        return
    if len(live[0]) == len(transitions):  # every state live: the DFA as it came
        assert live[0] is transitions and np.array_equal(live[1], accepting)
    canonical = [trim(*minimize(*part)) for part in (trimmed, live)]
    assert all(np.array_equal(a, b) for a, b in zip(*canonical))


@settings(max_examples=300, deadline=None, derandomize=True)
@given(random_dfas(), st.randoms(use_true_random=False))
def test_breadth_first_renumbering_of_a_live_dfa_is_trims(dfa, random):
    trimmed = trim(*dfa)
    if trimmed is None:
        return
    transitions, accepting = trimmed
    order = [0] + random.sample(range(1, len(transitions)), len(transitions) - 1)  # the start stays 0
    new_id = np.empty(len(transitions) + 1, dtype=np.int32)
    new_id[order] = np.arange(len(order), dtype=np.int32)
    new_id[DEAD] = DEAD
    shuffled = np.empty_like(transitions)
    shuffled[new_id[:-1]] = new_id[transitions]
    shuffled_accepting = np.empty_like(accepting)
    shuffled_accepting[new_id[:-1]] = accepting
    renumbered = breadth_first_renumbering(shuffled, shuffled_accepting)
    assert np.array_equal(renumbered[0], transitions) and np.array_equal(renumbered[1], accepting)

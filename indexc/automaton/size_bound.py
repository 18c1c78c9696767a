"""A lower bound of the minimal DFA's size, read before minimising: refuse early what cannot fit.

The subset construction may reach 4x ``max_states`` before minimisation (``limits``:
``max_subset_states``), because minimisation often merges most of it (a schema's optional
properties in order).  But minimisation of a long chain is the slow case of the round-based
refinement (one round per link): ``"ab" * 50_000`` (100,001 states) took 6.5 s to minimise,
only for its byte DFA to be refused afterwards, where the construction used to stop at once.

Equivalent states accept the same texts, so they have the same *shortest distance to
acceptance*; in a live DFA whose longest such distance is ``D``, every distance ``0..D`` occurs
(a state at ``k`` steps to one at ``k - 1``), so the minimal DFA has at least ``D + 1`` states.
One backward breadth-first search from the accepting states counts them (``distance_levels``,
``liveness.breadth_first_levels``): the 100 kB literal's compile is refused in 0.5 s, before
minimisation.  Only a DFA with more states than the limit is searched (a smaller one cannot
minimise past it).  A DFA that fits this bound and still minimises past the limit is refused
after minimisation, as before (the byte-level check).
"""

from __future__ import annotations

import numpy as np

from indexc.automaton.limits import AutomatonLimits
from indexc.automaton.liveness import breadth_first_levels, predecessor_lists, successor_lists
from indexc.errors import LimitError


def check_minimal_size(transitions: np.ndarray, accepting: np.ndarray, limits: AutomatonLimits, source: str) -> None:
    """``LimitError`` if the minimal DFA of these live states must have more than ``max_states``."""
    if transitions.shape[0] <= limits.max_states:
        return
    levels = distance_levels(transitions, accepting)
    if levels > limits.max_states:
        raise LimitError(f"the minimal DFA needs at least {levels:,} states (limit {limits.max_states:,}): a "
                         f"shortest accepted continuation of {levels - 1:,} characters; raise it with --max-states",
                         source=source)


def distance_levels(transitions: np.ndarray, accepting: np.ndarray) -> int:
    """How many distinct shortest distances to an accepting state the (live) states have: the
    levels of a backward breadth-first search from the accepting states."""
    offsets, sources = predecessor_lists(*successor_lists(transitions))
    return sum(1 for _ in breadth_first_levels(offsets, sources, np.flatnonzero(accepting)))

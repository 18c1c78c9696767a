"""The byte-level DFA every constraint is lowered to.

Conventions (the rest of the pipeline relies on them):
- states are ``0 .. n_states-1``, the start state is ``0``;
- every state is *live*: an accepting state is reachable from it;
- the single dead state is not stored: ``transitions[s, b] == DEAD`` (-1) means byte ``b``
  kills the match from ``s``;
- ``transitions`` is ``int32`` of shape ``(n_states, 256)``, over bytes (UTF-8 already expanded);
- ``accepting`` is a ``bool`` array of shape ``(n_states,)``.
The automaton is minimal (no two states have the same future) when built by ``minimize``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

DEAD = -1


@dataclass(frozen=True)
class ByteDFA:
    transitions: np.ndarray  # int32 (n_states, 256); DEAD = -1
    accepting: np.ndarray  # bool (n_states,)

    @property
    def n_states(self) -> int:
        return int(self.transitions.shape[0])

    def run(self, data: bytes, state: int = 0) -> int:
        """State after ``data`` from ``state`` (``DEAD`` once a byte kills the match)."""
        t = self.transitions
        for b in data:
            state = int(t[state, b])
            if state == DEAD:
                return DEAD
        return state

    def matches(self, data: bytes) -> bool:
        s = self.run(data)
        return s != DEAD and bool(self.accepting[s])

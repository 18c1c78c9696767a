"""The state tables (transitions, accepting, state -> mask), checked once, indexable with plain ints.

``advance`` walks a token's byte classes through ``class_transitions`` one class at a time
(the loop is written out in ``Matcher._next_state``, the hot path), and every fill looks up the
state's mask id.  Indexing a numpy array with a Python int costs ~60 ns and returns a numpy
scalar; a list costs ~12 ns but building it (``tolist``) costs ~5-40 ns per entry, paid on the
first matcher; a ``memoryview`` of the mapped section costs ~36 ns and nothing to build.  So a
table of at most ``LIST_LIMIT`` entries becomes a list (<~0.5 ms once per Index) and a bigger
one a memoryview (an 827-state x 69-class phone-number table would otherwise cost ~1 ms of
``tolist`` before the first mask).  Both are indexed the same way.

Bounds are checked once, vectorised, when the tables are built (``Automaton.from_container``):
classes below ``n_classes``, transitions in ``[-1, n_states)``, mask ids in ``[0, n_masks)``,
``accepting`` 0 or 1.  After that no walk can index out of range.  Cost: one pass over
``n_states x n_classes`` int32 (about 1 ms per million entries).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from indexc_runtime.container import Container

DEAD = -1
LIST_LIMIT = 1 << 14
SECTIONS = ("byte_classes", "class_transitions", "accepting", "state_mask")


@dataclass(frozen=True)
class Automaton:
    n_states: int
    n_classes: int
    start_state: int
    transitions: list | memoryview  # flat: next state = transitions[state * n_classes + class]
    accepting: bytes  # accepting[state] is 1 or 0
    state_mask: list | memoryview  # mask id of each state
    byte_classes: np.ndarray  # uint8 (256,): not needed to walk tokens, kept for byte-level callers

    @classmethod
    def from_container(cls, container: Container) -> "Automaton":
        for name in SECTIONS:
            container.verify_checksum(name)
        header = container.header
        byte_classes = container.array("byte_classes")
        transitions = container.array("class_transitions")
        accepting = container.array("accepting")
        state_mask = container.array("state_mask")
        container.check_range("byte_classes", byte_classes, 0, header.n_classes - 1)
        container.check_range("class_transitions", transitions, DEAD, header.n_states - 1)
        container.check_range("accepting", accepting, 0, 1)
        container.check_range("state_mask", state_mask, 0, header.n_masks - 1)
        return cls(
            n_states=header.n_states,
            n_classes=header.n_classes,
            start_state=header.start_state,
            transitions=int_table(transitions.reshape(-1)),
            accepting=accepting.tobytes(),
            state_mask=int_table(state_mask),
            byte_classes=byte_classes,
        )


def int_table(values: np.ndarray) -> list | memoryview:
    """Plain-int indexable form of a 1-D int32 array: a list when small, else a zero-copy view."""
    if values.size <= LIST_LIMIT:
        return values.tolist()
    return memoryview(np.ascontiguousarray(values, dtype=np.int32))  # native order: format "i"

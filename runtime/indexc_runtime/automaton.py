"""The state tables (transitions, accepting, state -> mask), checked once, held as Python objects.

``advance`` walks a token's byte classes through ``class_transitions`` one class at a time
(the loop is written out in ``Matcher._next_state``, the hot path).
Done with numpy scalars that costs ~100 ns per byte; with a flat Python list of ints and plain
integer arithmetic it is ~40 ns.  So the table is turned into a list once per ``Index`` (not
per matcher), when it is small enough for that to be cheap (``LIST_LIMIT`` entries, a few ms
and ~8 bytes per entry); a bigger table stays a numpy array and the same code walks it, slower.

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
LIST_LIMIT = 1 << 22
SECTIONS = ("byte_classes", "class_transitions", "accepting", "state_mask")


@dataclass(frozen=True)
class Automaton:
    n_states: int
    n_classes: int
    start_state: int
    transitions: list | np.ndarray  # flat: next state = transitions[state * n_classes + class]
    accepting: bytes  # accepting[state] is 1 or 0
    state_mask: list  # mask id of each state
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
        flat = transitions.reshape(-1)
        return cls(
            n_states=header.n_states,
            n_classes=header.n_classes,
            start_state=header.start_state,
            transitions=flat.tolist() if flat.size <= LIST_LIMIT else flat.astype(np.int64),
            accepting=accepting.tobytes(),
            state_mask=state_mask.tolist(),
            byte_classes=byte_classes,
        )

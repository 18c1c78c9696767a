"""The state tables (transitions, accepting, state -> mask), bound-checked at load, read as plain ints.

``advance`` walks a token's byte classes through ``transitions`` one class at a time (the loop
is written out in ``Matcher._next_state``, the hot path), and every fill looks up the state's
mask id.  All three tables are zero-copy ``memoryview``s of the mapped sections: nothing is
built, whatever the number of states, and a read costs ~35 ns and gives a Python int (a numpy
scalar read costs ~60 ns; a list ~12 ns, but ``tolist`` of an 18,541 x 95 table would cost
~30 ms once per Index).

``transitions[s * n_classes + c]`` is ``1 + next state`` and 0 where the match dies (the
version-2 encoding: unsigned, in the narrowest dtype that holds ``n_states``), so one ``max``
pass bounds the whole table: 130 us for the 1.76 M entries (3.5 MB, uint16) of ``[\\w ]{1,60}``
over Llama-3, where the version-1 int32 table with -1 for "dead" needed a ``min`` and a
``max`` over twice the bytes (530 us).  A version-1 table is converted at load
(``(table + 1)`` as uint32: one copy, ~1 ms per million entries) so both versions walk the
same way.

Checks at load (vectorised): classes below ``n_classes``, transitions at most ``n_states``,
mask ids in ``[0, n_masks)``, ``accepting`` 0 or 1.  After that no walk can index out of range.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from indexc_runtime.container import Container, scalar_view

SECTIONS = ("byte_classes", "class_transitions", "accepting", "state_mask")


@dataclass(frozen=True)
class Automaton:
    n_states: int
    n_classes: int
    start_state: int
    transitions: memoryview  # flat: 1 + next state = transitions[state * n_classes + class]; 0: dead
    accepting: memoryview  # accepting[state] is 1 or 0
    state_mask: memoryview  # mask id of each state
    byte_classes: np.ndarray  # uint8 (256,): not needed to walk tokens, kept for byte-level callers

    @classmethod
    def from_container(cls, container: Container) -> "Automaton":
        header = container.header
        byte_classes = container.array("byte_classes")
        transitions = container.array("class_transitions")
        if header.format_version == 1:  # int32, -1 for dead: shift into the version-2 encoding
            transitions = (transitions + 1).view(np.uint32)
        accepting = container.array("accepting")
        state_mask = container.array("state_mask")
        container.check_below("byte_classes", byte_classes, header.n_classes)
        container.check_below("class_transitions", transitions, header.n_states + 1)
        container.check_below("accepting", accepting, 2)
        container.check_below("state_mask", state_mask, header.n_masks)
        return cls(
            n_states=header.n_states,
            n_classes=header.n_classes,
            start_state=header.start_state,
            transitions=scalar_view(transitions),
            accepting=scalar_view(accepting),
            state_mask=scalar_view(state_mask),
            byte_classes=byte_classes,
        )

"""The state tables (transitions, accepting, state -> mask), read as plain ints straight from the file.

``advance`` walks a token's byte classes through ``transitions`` one class at a time (the loop
is written out in ``Matcher._next_state``, the hot path), and every fill looks up the state's
mask id.  All three tables are zero-copy ``memoryview``s of the mapped sections: nothing is
built, whatever the number of states, and a read costs ~35 ns and gives a Python int (a numpy
scalar read costs ~60 ns; a list ~12 ns, but ``tolist`` of an 18,541 x 95 table would cost
~30 ms once per Index).

``transitions[s * n_classes + c]`` is ``1 + next state`` and 0 where the match dies (format
version 2: unsigned, in the narrowest dtype that holds ``n_states``).  A version-1 table (int32,
-1 for dead) is shifted into that encoding at load (``table + 1`` viewed as uint32: one copy,
~1 ms per million entries) so both versions walk the same way.

Checks at load (vectorised): classes below ``n_classes``, ``accepting`` 0 or 1, mask ids in
``[0, n_masks)``.  The transition table is the one index-carrying section *not* scanned at
load: its single ``max`` is the biggest cost a load could have (200 us of the 0.6 ms load of
the 3.5 MB table of ``[\\w ]{1,60}`` over Llama-3), and it is not needed for safety: every
read goes through the memoryview's own bounds check and the walk checks the state it ends in
(``Matcher._next_state``: ~15 ns per advance), so a value past ``n_states`` is an
``ArtifactError`` on the first advance that reads it.  ``check_transitions`` (the scan) is run
by ``Index.verify``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from indexc_runtime.container import Container, scalar_view

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
        if header.format_version == 1:  # int32, -1 for dead: shift into the version-2 encoding
            transitions = scalar_view((container.array("class_transitions") + 1).view(np.uint32))
        else:
            transitions = container.items("class_transitions")
        accepting = container.array("accepting")
        state_mask = container.array("state_mask")
        container.check_below("byte_classes", byte_classes, header.n_classes)
        container.check_below("accepting", accepting, 2)
        container.check_below("state_mask", state_mask, header.n_masks)
        return cls(
            n_states=header.n_states,
            n_classes=header.n_classes,
            start_state=header.start_state,
            transitions=transitions,
            accepting=container.items("accepting"),
            state_mask=container.items("state_mask"),
            byte_classes=byte_classes,
        )

    def check_transitions(self, container: Container) -> None:
        """Every stored transition at most ``n_states`` (one ``max`` over the table; ``verify`` runs it)."""
        container.check_below("class_transitions", np.frombuffer(self.transitions, dtype=self.transitions.format),
                              self.n_states + 1)

"""The compiled state-to-mask table: what the mask stage hands to the artifact writer.

It is the whole meaning of a regex index, in memory, before any encoding choice:
- ``byte_classes[b]``: the class of byte ``b`` (bytes of one class act alike in every state);
- ``class_transitions[s, c]``: next state, ``DEAD`` (-1) when class ``c`` kills the match;
- ``accepting[s]``;
- ``state_mask[s]``: index into ``masks`` of the allowed tokens of state ``s``;
- ``masks[m]``: sorted unique ``int32`` token ids allowed in a state that uses mask ``m``:
  the text tokens whose bytes keep the match alive, plus the eos ids when the state accepts
  (so a state's mask is complete and the runtime adds nothing);
- ``live_tokens``: sorted ids of the text tokens that appear in at least one mask, and for
  each the sequence of byte classes of its bytes (CSR: ``token_class_offsets`` of length
  ``len(live_tokens) + 1`` into ``token_class_data``), which is all ``advance`` needs.
``token_groups`` (optional) gives, on demand, a number per live token such that equal numbers
mean equal class sequences, which lets the writer share rows without hashing the sequences;
it is a function because only a table with many live tokens gets a shared layout, and the
numbering can cost a pass over the whole trie (~20 ms for Llama-3).  ``coarse_token_groups``
(optional, on demand too) is a cheaper numbering that only goes one way: equal class sequences
get equal numbers (or -1: unknown); the writer reads from it a floor under the shared layout's
size, and skips the exact numbering when even the floor loses (most JSON Schemas: the rows by
token id win by ~20%).  ``mask_rows`` holds the
bitset rows (the runtime's layout) of the masks the stage expanded as vocabulary-sized flags,
so the writer does not pack their ids again (~0.4 ms a mask of 120k ids).  Masks are stored once each (identical masks deduplicated by the mask
stage).

The mask stage hands ``masks`` over as a ``MaskList``: a long mask is held as its bitset row only,
and its ids are unpacked on first read.  The writer reads a long mask's size and row, never its
ids, and listing them cost a median MaskBench schema ~2 ms and ~12 MB (17 masks, 1.5M ids).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Callable

import numpy as np


@dataclass(frozen=True)
class MaskTable:
    byte_classes: np.ndarray  # uint8 (256,)
    class_transitions: np.ndarray  # int32 (n_states, n_classes)
    accepting: np.ndarray  # bool (n_states,)
    state_mask: np.ndarray  # int32 (n_states,)
    masks: Sequence[np.ndarray]  # each int32 sorted unique token ids (a tuple, or a MaskList)
    live_tokens: np.ndarray  # int32 sorted
    token_class_offsets: np.ndarray  # int64 (len(live_tokens)+1,)
    token_class_data: np.ndarray  # uint8
    stats: dict = field(default_factory=dict)
    token_groups: Callable[[], np.ndarray] | None = None  # per live token: equal ids -> equal class sequences
    coarse_token_groups: Callable[[], np.ndarray] | None = None  # per live token: equal sequences -> equal ids (-1: unknown)
    # the same masks as bitset rows (uint32, bit i of word w = token 32w + i), for those the stage
    # expanded as vocabulary-sized flags: the writer stores them without packing the ids again
    mask_rows: dict[int, np.ndarray] = field(default_factory=dict)

    @property
    def mask_sizes(self) -> np.ndarray:
        """int64 per mask: its ids, read without unpacking a ``MaskList``'s rows."""
        if isinstance(self.masks, MaskList):
            return self.masks.sizes
        return np.fromiter((np.size(ids) for ids in self.masks), dtype=np.int64, count=len(self.masks))

    @property
    def n_states(self) -> int:
        return int(self.class_transitions.shape[0])

    @property
    def n_classes(self) -> int:
        return int(self.class_transitions.shape[1])


def bitset_row(flags: np.ndarray) -> np.ndarray:
    """Token flags as a bitset row: uint32 words, bit ``i`` of word ``w`` = token ``32 w + i``
    (``ceil(V / 32)`` words, the tail bits 0): the runtime's row layout, the one of
    ``MaskTable.mask_rows`` (the mask stage makes them, the writer packs the others the same way)."""
    packed = np.packbits(flags, bitorder="little")
    row = np.zeros((flags.size + 31) // 32, dtype=np.uint32)
    row.view(np.uint8)[: packed.size] = packed
    return row


class MaskList(Sequence):
    """Masks as sorted int32 ids, some of them held only as bitset rows (``rows``) whose ids are
    unpacked (once) when read: the writer needs a long mask's row and size, not its ids, while
    the grammar path and the tests read ids as from a tuple."""

    def __init__(self, listed: list[np.ndarray | None], rows: dict[int, np.ndarray], sizes: np.ndarray,
                 vocab_size: int):
        self._listed = listed  # ids, or None where the row holds the mask
        self._rows = rows
        self.sizes = sizes  # int64 per mask
        self._vocab_size = vocab_size

    def __len__(self) -> int:
        return len(self._listed)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return tuple(self[k] for k in range(*i.indices(len(self))))
        ids = self._listed[i]
        if ids is None:
            i = range(len(self))[i]  # a negative index as the row's key
            flags = np.unpackbits(self._rows[i].view(np.uint8), bitorder="little")[: self._vocab_size]
            ids = self._listed[i] = np.flatnonzero(flags).astype(np.int32)
        return ids

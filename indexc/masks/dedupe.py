"""Identical masks are stored once, found without expanding a single token id.

Masks of a minimal DFA repeat a lot: every state inside a ``[a-z]{0,256}`` run allows the
same tokens until the end of the run is closer than the longest token, and states that
differ only in what comes after a long literal allow the same first tokens.  Each token ends
at exactly one class-trie node, so two states have equal masks iff they have equal hit sets
and the same accepting flag and slice (see ``slices``): the key is those few bytes, not the
(up to 128k) token ids.
Ids are given in order of first use by state, so the numbering is deterministic.
"""

from __future__ import annotations

import numpy as np


class MaskInterner:
    """Numbers distinct (accepting, slice, hit set) keys in order of first appearance."""

    def __init__(self) -> None:
        self._ids: dict[bytes, int] = {}
        self.hit_sets: list[np.ndarray] = []
        self.accepting: list[bool] = []
        self.slice_ids: list[int] = []

    def add(self, hit_set: np.ndarray, accepting: bool, slice_id: int) -> int:
        key = np.array([accepting, slice_id], dtype=np.int64).tobytes() + hit_set.tobytes()
        mask_id = self._ids.get(key)
        if mask_id is None:
            mask_id = len(self.hit_sets)
            self._ids[key] = mask_id
            self.hit_sets.append(hit_set)
            self.accepting.append(accepting)
            self.slice_ids.append(slice_id)
        return mask_id

    def __len__(self) -> int:
        return len(self.hit_sets)

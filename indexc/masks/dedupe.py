"""Identical masks are stored once, found without expanding a single token id.

Masks of a minimal DFA repeat a lot: every state inside a ``[a-z]{0,256}`` run allows the
same tokens until the end of the run is closer than the longest token, and states that
differ only in what comes after a long literal allow the same first tokens.  Each token ends
at exactly one class-trie node, so two states with equal hit sets and the same accepting flag
and slice (see ``slices``) have equal masks; and a state's hit set is its walk's starts' hit
sets end to end (``first_step``), so the key is the list of their content ids (distinct hit
sets numbered once): a few hundred bytes at most, not the (up to 128k) token ids, and no hit
set is built for a state whose key was seen.  Equal masks can still come from different keys
(a literal reached in class mode and in byte mode); the expansion merges those.
Ids are given in order of first use by state, so the numbering is deterministic.
"""

from __future__ import annotations

import numpy as np


class MaskInterner:
    """Numbers distinct (accepting, slice, content ids) keys in order of first appearance."""

    def __init__(self) -> None:
        self._ids: dict[bytes, int] = {}
        self.keys: list[np.ndarray] = []
        self.accepting: list[bool] = []
        self.slice_ids: list[int] = []

    def add(self, content_ids: np.ndarray, accepting: bool, slice_id: int) -> int:
        key = np.array([accepting, slice_id], dtype=np.int64).tobytes() + content_ids.tobytes()
        mask_id = self._ids.get(key)
        if mask_id is None:
            mask_id = len(self.keys)
            self._ids[key] = mask_id
            self.keys.append(content_ids)
            self.accepting.append(accepting)
            self.slice_ids.append(slice_id)
        return mask_id

    def __len__(self) -> int:
        return len(self.keys)

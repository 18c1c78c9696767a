"""Identical masks are stored once, found without expanding a single token id.

Masks of a minimal DFA repeat a lot: every state inside a ``[a-z]{0,256}`` run allows the
same tokens until the end of the run is closer than the longest token, and states that
differ only in what comes after a long literal allow the same first tokens.  Each token ends
at exactly one class-trie node, so two states have equal masks iff they have equal hit sets
and the same accepting flag: the key is those few bytes, not the (up to 128k) token ids.
Ids are given in order of first use by state, so the numbering is deterministic.
"""

from __future__ import annotations

import numpy as np


class MaskInterner:
    """Numbers distinct (accepting, hit set) keys in order of first appearance."""

    def __init__(self) -> None:
        self._ids: dict[bytes, int] = {}
        self.hit_sets: list[np.ndarray] = []
        self.accepting: list[bool] = []

    def add(self, hit_set: np.ndarray, accepting: bool) -> int:
        key = (b"\x01" if accepting else b"\x00") + hit_set.tobytes()
        mask_id = self._ids.get(key)
        if mask_id is None:
            mask_id = len(self.hit_sets)
            self._ids[key] = mask_id
            self.hit_sets.append(hit_set)
            self.accepting.append(accepting)
        return mask_id

    def __len__(self) -> int:
        return len(self.hit_sets)

"""Identical masks are stored once.

Masks of a minimal DFA repeat a lot: every state inside a ``[a-z]{0,256}`` run allows the
same tokens until the end of the run is closer than the longest token, and states that
differ only in what comes after a long literal allow the same first tokens.  Masks are
keyed by their exact bytes (sorted ids), so deduplication is exact; mask ids are given in
order of first use by state, so the numbering is deterministic.
"""

from __future__ import annotations

import numpy as np


class MaskDeduper:
    def __init__(self) -> None:
        self._ids: dict[bytes, int] = {}
        self.masks: list[np.ndarray] = []

    def add(self, tokens: np.ndarray) -> int:
        """Return the id of ``tokens`` (sorted unique int32 ids), storing it if new."""
        key = tokens.tobytes()
        mask_id = self._ids.get(key)
        if mask_id is None:
            mask_id = len(self.masks)
            self._ids[key] = mask_id
            self.masks.append(tokens)
        return mask_id

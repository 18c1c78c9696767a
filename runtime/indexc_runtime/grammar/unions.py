"""The OR of a configuration's precomputed masks, memoised: part 1 of every grammar-path mask.

A configuration's part 1 (``walker``) is the OR of the in-lexeme and boundary masks its threads
select, identified by their sorted mask ids; configurations that select the same ids (most of
a string's positions) share it.  ``MaskUnions`` keeps the last ``LEXEME_MEMO`` of them (~16 KB
each for Llama-3) with a slot for the coverages a walk builds from them (trie order, by
undecided sets; ``coverage``), least recently used first out.

Why a class of its own and not the walker's: the future memo (``futures.FutureMasks``) rebuilds
its compact rows from these unions, so it holds a function that returns them.  A bound method
of the walker there made a reference cycle (walker -> future memo -> method -> walker), and a
memo in a cycle is freed by the cycle collector, not when its last matcher goes: a full
collection found the previous MaskBench file's index and memo (20-60 thousand objects) and
freed them inside a later file's mask call, 14-56 ms a pause (six per 22 parser-bound files).
Neither holds the other here, so dropping an index frees it at once
(``tests/grammar_path/test_memory_release.py``).
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np

from indexc_runtime.masks import MaskStore

LEXEME_MEMO = 64  # memoised ORs of precomputed masks with their coverages (~65 KB each with them)


class MaskUnions:
    """ORs of precomputed masks by their sorted ids, with their coverages (see the module note)."""

    def __init__(self, masks: MaskStore, max_entries: int = LEXEME_MEMO):
        self._masks = masks
        self._entries: OrderedDict[tuple[int, ...], tuple[np.ndarray, dict]] = OrderedDict()
        self._max_entries = max_entries

    def entry(self, mask_ids: tuple[int, ...]) -> tuple[np.ndarray, dict]:
        """The OR of the masks (do not modify it), and the dict of their coverages by undecided sets."""
        found = self._entries.get(mask_ids)
        if found is not None:
            self._entries.move_to_end(mask_ids)
            return found
        found = self._entries[mask_ids] = (self._masks.union(mask_ids), {})
        if len(self._entries) > self._max_entries:
            self._entries.popitem(last=False)
        return found

    def row(self, mask_ids: tuple[int, ...]) -> np.ndarray:
        """The OR of the masks, without the coverages (do not modify it)."""
        return self.entry(mask_ids)[0]

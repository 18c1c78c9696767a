"""Mask storage: fill a caller's bitmask row, test one token, list a mask's tokens.

Bitmask layout (llguidance / xgrammar): a row of ``W = ceil(vocab_size / 32)`` int32 words,
bit ``i`` of word ``w`` set iff token ``32 * w + i`` is allowed.  Each unique mask is stored in
whichever of three forms is smallest (the writer chose; ``format.MASK_*``):

- dense: a row of ``dense_masks``; fill = one 16 KB copy for a 128k vocabulary;
- sparse: the nonzero words as (index, value) pairs; fill = zero the row, scatter the pairs;
- complement: the words that are not all-ones; fill = set the row to -1, scatter the pairs.
  The last word, when ``vocab_size`` is not a multiple of 32, always has zero tail bits, so
  it is never all-ones and is always among the pairs: the scatter clears the tail by itself.

``fill`` is the hot path.  A mask's *entry* is (form, row or word-index slice, value slice,
bits, start, end), made on the mask's first use and kept, so a later fill is a list lookup
plus one numpy call; the entry of the start state's mask is made by ``load``.  A sparse or
complement mask is *materialised* on first use: its row is built once (zero or ones, then the
scatter: ~2-4 us) and the entry becomes a dense one over that row, so every later fill is one
16 KB copy (~1.0 us for a 128k vocabulary) whatever the form on disk, where the scatter of a
few hundred words cost 2-3 us a fill (the `date` regex: p50 2.5 us).  Materialised rows are
counted against ``MATERIALISE_BYTES`` per artifact (64 MiB: 4,096 Llama-3 rows, more than the
masks a server touches in most artifacts); past it, masks keep their scatter form.  Nothing else
happens on first use: the word indices are stored as int64 (format version 2), which numpy's
scatter takes as they are (``intp``), where int32 indices cost ~2 us more per call for the
conversion; a version-1 file's int32 indices are converted once at load (~10 us per 50k
words).  Zeroing a 16 KB row by copying from a cached zero row takes 0.4 us, half of
``ndarray.fill(0)``.

``contains`` (the bit test of ``advance``) reads one memoryview item for a dense or
materialised mask and bisects the word indices (``bisect`` over a memoryview, between the
entry's bounds) otherwise.

Checks (``MaskStore.from_container``, at load, vectorised: 50-100 us for Llama-3 regex
artifacts, most of it a few microseconds per numpy call): forms known, dense rows in range,
word offsets starting at 0, monotonic and ending at the word count, dense masks without words,
word indices strictly increasing within each mask (``contains`` bisects them) and, through the
first and last word of each mask, all in ``[0, W)`` (one pass over the words, not three), no
bit set at ids >= ``vocab_size``, every complement mask holding the partial last word, forced
tokens in ``[-1, vocab_size)``.
"""

from __future__ import annotations

from bisect import bisect_left

import numpy as np

from indexc_runtime.container import Container, scalar_view
from indexc_runtime.format import MASK_COMPLEMENT, MASK_DENSE, MASK_FORM_NAMES, MASK_SPARSE

MATERIALISE_BYTES = 64 << 20  # per artifact: rows built from sparse/complement masks on first use

class MaskStore:
    """The validated mask sections of one artifact."""

    def __init__(self, container: Container):
        self.vocab_size = container.header.vocab_size
        self.words = container.header.dims["mask_words"]
        self.form = container.array("mask_form")
        self.dense_row = container.array("mask_dense_row")
        self.offsets = container.array("mask_word_offsets")
        self.forced_token = container.array("forced_token")
        self.dense = container.array("dense_masks").view("<i4")
        self.word_index = container.array("mask_word_index").astype(np.intp, copy=False)  # version 1: int32
        self.word_value = container.array("mask_word_value").view("<i4")
        self._form = scalar_view(self.form)
        self._dense_row = scalar_view(self.dense_row)
        self._offsets = scalar_view(self.offsets)
        self._forced = scalar_view(self.forced_token)
        self._dense_bits = scalar_view(container.array("dense_masks"))  # uint32: non-negative ints
        self._index_items = scalar_view(self.word_index)
        self._value_bits = scalar_view(container.array("mask_word_value"))
        self._entries: list[tuple | None] = [None] * int(self.form.size)
        self._zeros = np.zeros(self.words, dtype=np.int32)  # rows to copy from: ~2x faster than fill()
        self._ones = np.full(self.words, -1, dtype=np.int32)
        self._materialise_left = MATERIALISE_BYTES // max(1, 4 * self.words)  # rows still allowed

    @classmethod
    def from_container(cls, container: Container) -> "MaskStore":
        store = cls(container)
        store._validate(container)
        return store

    def fill(self, mask_id: int, out: np.ndarray, row: int) -> None:
        """Write mask ``mask_id`` into ``out[row]`` (``out``: int32 rows of ``W`` words, checked by the caller)."""
        form, index, value, _, _, _ = self._entries[mask_id] or self.entry(mask_id)
        if form == MASK_DENSE:
            out[row] = index
        else:
            target = out[row]
            target[:] = self._zeros if form == MASK_SPARSE else self._ones
            target[index] = value

    def contains(self, mask_id: int, token: int) -> bool:
        """Is ``token`` (already known to be in ``[0, vocab_size)``) in the mask?"""
        form, _, _, bits, start, end = self._entries[mask_id] or self.entry(mask_id)
        word = token >> 5
        if form == MASK_DENSE:
            return (bits[start + word] >> (token & 31)) & 1 == 1
        position = bisect_left(self._index_items, word, start, end)
        if position == end or self._index_items[position] != word:
            return form == MASK_COMPLEMENT
        return (self._value_bits[position] >> (token & 31)) & 1 == 1

    def token_ids(self, mask_id: int) -> np.ndarray:
        """Sorted int32 ids of the mask's tokens."""
        rows = np.empty((1, self.words), dtype=np.int32)
        self.fill(mask_id, rows, 0)
        bits = np.unpackbits(rows[0].astype("<i4", copy=False).view(np.uint8), bitorder="little")
        return np.flatnonzero(bits).astype(np.int32)

    def forced(self, mask_id: int) -> int:
        """The mask's only token, or -1."""
        return self._forced[mask_id]

    def form_counts(self) -> dict[str, int]:
        counts = np.bincount(self.form, minlength=len(MASK_FORM_NAMES))
        return {name: int(counts[code]) for code, name in enumerate(MASK_FORM_NAMES)}

    def entry(self, mask_id: int) -> tuple:
        """(form, row or word indices, word values, bits, start, end): for a dense or materialised
        mask, the row and a memoryview ``bits`` of words whose item ``start + w`` is word ``w``."""
        form = self._form[mask_id]
        if form == MASK_DENSE:
            row = self._dense_row[mask_id]
            entry = (form, self.dense[row], None, self._dense_bits, row * self.words, 0)
        else:
            start, end = self._offsets[mask_id], self._offsets[mask_id + 1]
            index, value = self.word_index[start:end], self.word_value[start:end]
            if self._materialise_left > 0:
                self._materialise_left -= 1
                row = (self._zeros if form == MASK_SPARSE else self._ones).copy()
                row[index] = value
                entry = (MASK_DENSE, row, None, scalar_view(row.view(np.uint32)), 0, 0)
            else:
                entry = (form, index, value, None, start, end)
        self._entries[mask_id] = entry
        return entry

    def _validate(self, container: Container) -> None:
        n_words = self.word_index.size
        container.check_below("mask_form", self.form, len(MASK_FORM_NAMES))
        dense = self.form == MASK_DENSE
        container.check_below("mask_dense_row", self.dense_row[dense], self.dense.shape[0])
        container.check_range("forced_token", self.forced_token, -1, self.vocab_size - 1)
        offsets = self.offsets
        counts = offsets[1:] - offsets[:-1]
        if int(offsets[0]) != 0 or int(offsets[-1]) != n_words or int(counts.min()) < 0:
            raise container.error(f"offsets must rise from 0 to the word count {n_words}", "mask_word_offsets")
        if counts[dense].any():
            raise container.error("a dense mask has words in the word lists", "mask_word_offsets")
        self._check_word_indices(container, offsets[:-1][counts > 0])
        self._check_tail_bits(container)

    def _check_word_indices(self, container: Container, starts: np.ndarray) -> None:
        """Word indices strictly increasing inside each mask (``contains`` bisects them) and below ``W``.

        Increasing within a mask, its first index >= 0 and its last < ``W`` bound all of them:
        one pass over the word list (the comparison), not three.  ``starts``: first word of
        each mask that has words.
        """
        index = self.word_index
        if not starts.size:
            return
        rises = index[1:] > index[:-1]
        rises[starts[1:] - 1] = True  # the step into a mask's first word is not inside a mask
        ends = np.append(starts[1:], index.size) - 1
        if not rises.all() or int(index[starts].min()) < 0 or int(index[ends].max()) >= self.words:
            raise container.error(f"word indices must lie in [0, {self.words - 1}] and increase strictly "
                                  "within each mask", "mask_word_index")

    def _check_tail_bits(self, container: Container) -> None:
        """No bit at ids >= vocab_size; complement masks carry the partial last word."""
        used_bits = self.vocab_size % 32
        if not used_bits:
            return
        tail = np.uint32((0xFFFFFFFF << used_bits) & 0xFFFFFFFF).view(np.int32)
        last = self.words - 1
        if self.dense.shape[0] and np.any(self.dense[:, last] & tail):
            raise container.error(f"bits set at ids >= vocab size {self.vocab_size}", "dense_masks")
        if np.any(self.word_value[self.word_index == last] & tail):
            raise container.error(f"bits set at ids >= vocab size {self.vocab_size}", "mask_word_value")
        complement = np.flatnonzero((self.form == MASK_COMPLEMENT))
        starts, ends = self.offsets[complement], self.offsets[complement + 1]
        if np.any(starts == ends) or np.any(self.word_index[ends - 1] != last):
            raise container.error("a complement mask lacks the partial last word", "mask_word_index")

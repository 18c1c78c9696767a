"""Mask storage: fill a caller's bitmask row, test one token, list a mask's tokens.

Bitmask layout (llguidance / xgrammar): a row of ``W = ceil(vocab_size / 32)`` int32 words,
bit ``i`` of word ``w`` set iff token ``32 * w + i`` is allowed.  Each unique mask is stored in
whichever of three forms is smallest (the writer chose; ``format.MASK_*``):

- dense: a row of ``dense_masks``; fill = one 16 KB copy for a 128k vocabulary;
- sparse: the nonzero words as (index, value) pairs; fill = zero the row, scatter the pairs;
- complement: the words that are not all-ones; fill = set the row to -1, scatter the pairs.
  The last word, when ``vocab_size`` is not a multiple of 32, always has zero tail bits, so
  it is never all-ones and is always among the pairs: the scatter clears the tail by itself.

``fill`` is the hot path.  Per mask it keeps a tiny entry (form, index view, value view as
int32) built on first use, so a fill is a list lookup plus one or two numpy calls.  Zeroing a
16 KB row by copying from a cached zero row takes 0.4 us, half of ``ndarray.fill(0)``; a
scatter with ``intp`` indices is 0.4 us where int32 indices cost 2.3 us (numpy converts them
on every call), so each entry holds its word indices as ``intp``.

Checks (``MaskStore.from_container``, once, vectorised, one pass over the mask sections):
forms known, dense rows in range, word offsets starting at 0, monotonic and ending at the
word count, dense masks without words, word indices below ``W`` and strictly increasing within
a mask (``contains`` bisects them), no bit set at ids >= ``vocab_size``, every complement
mask holding the partial last word, forced tokens in ``[-1, vocab_size)``.
"""

from __future__ import annotations

import numpy as np

from indexc_runtime.container import Container
from indexc_runtime.format import MASK_COMPLEMENT, MASK_DENSE, MASK_FORM_NAMES, MASK_SPARSE

SECTIONS = ("mask_form", "mask_dense_row", "mask_word_offsets", "forced_token",
            "dense_masks", "mask_word_index", "mask_word_value")


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
        self.word_index = container.array("mask_word_index")
        self.word_value = container.array("mask_word_value").view("<i4")
        self._entries: list[tuple | None] = [None] * int(self.form.size)
        self._forced: list[int] | None = None
        self._zeros: np.ndarray | None = None  # a row to copy from: copying is ~2x faster than fill()
        self._ones: np.ndarray | None = None

    @classmethod
    def from_container(cls, container: Container) -> "MaskStore":
        for name in SECTIONS:
            container.verify_checksum(name)
        store = cls(container)
        store._validate(container)
        return store

    def fill(self, mask_id: int, out: np.ndarray, row: int) -> None:
        """Write mask ``mask_id`` into ``out[row]`` (``out``: int32 rows of ``W`` words, checked by the caller)."""
        form, index, value = self._entries[mask_id] or self._entry(mask_id)
        if form == MASK_DENSE:
            out[row] = index
        else:
            target = out[row]
            target[:] = self._zeros if form == MASK_SPARSE else self._ones
            target[index] = value

    def contains(self, mask_id: int, token: int) -> bool:
        """Is ``token`` (already known to be in ``[0, vocab_size)``) in the mask?"""
        form, index, value = self._entries[mask_id] or self._entry(mask_id)
        word, bit = token >> 5, token & 31
        if form == MASK_DENSE:
            return bool((int(index[word]) >> bit) & 1)
        position = int(index.searchsorted(word))
        found = position < index.size and int(index[position]) == word
        if not found:
            return form == MASK_COMPLEMENT
        return bool((int(value[position]) >> bit) & 1)

    def token_ids(self, mask_id: int) -> np.ndarray:
        """Sorted int32 ids of the mask's tokens."""
        rows = np.empty((1, self.words), dtype=np.int32)
        self.fill(mask_id, rows, 0)
        bits = np.unpackbits(rows[0].astype("<i4", copy=False).view(np.uint8), bitorder="little")
        return np.flatnonzero(bits).astype(np.int32)

    def forced(self, mask_id: int) -> int:
        """The mask's only token, or -1."""
        if self._forced is None:
            self._forced = self.forced_token.tolist()
        return self._forced[mask_id]

    def form_counts(self) -> dict[str, int]:
        counts = np.bincount(self.form, minlength=len(MASK_FORM_NAMES))
        return {name: int(counts[code]) for code, name in enumerate(MASK_FORM_NAMES)}

    def _entry(self, mask_id: int) -> tuple:
        if self._zeros is None:
            self._zeros = np.zeros(self.words, dtype=np.int32)
            self._ones = np.full(self.words, -1, dtype=np.int32)
        form = int(self.form[mask_id])
        if form == MASK_DENSE:
            entry = (form, self.dense[int(self.dense_row[mask_id])], None)
        else:
            start, end = int(self.offsets[mask_id]), int(self.offsets[mask_id + 1])
            entry = (form, self.word_index[start:end].astype(np.intp), self.word_value[start:end])
        self._entries[mask_id] = entry
        return entry

    def _validate(self, container: Container) -> None:
        n_masks, n_words, words = self.form.size, self.word_index.size, self.words
        container.check_range("mask_form", self.form, 0, len(MASK_FORM_NAMES) - 1)
        dense = self.form == MASK_DENSE
        container.check_range("mask_dense_row", self.dense_row[dense], 0, self.dense.shape[0] - 1)
        container.check_range("forced_token", self.forced_token, -1, self.vocab_size - 1)
        offsets = self.offsets
        counts = np.diff(offsets)
        if int(offsets[0]) != 0 or int(offsets[-1]) != n_words or (n_masks and int(counts.min()) < 0):
            raise container.error(f"offsets must rise from 0 to the word count {n_words}", "mask_word_offsets")
        if np.any(counts[dense]):
            raise container.error("a dense mask has words in the word lists", "mask_word_offsets")
        container.check_range("mask_word_index", self.word_index, 0, words - 1)
        self._check_increasing_within_masks(container)
        self._check_tail_bits(container, counts)

    def _check_increasing_within_masks(self, container: Container) -> None:
        rises = np.diff(self.word_index) > 0
        boundaries = self.offsets[1:-1]
        inner = boundaries[(boundaries > 0) & (boundaries < self.word_index.size)]
        rises[inner - 1] = True  # the step from one mask's last word to the next mask's first
        if not rises.all():
            raise container.error("word indices must increase strictly within each mask", "mask_word_index")

    def _check_tail_bits(self, container: Container, counts: np.ndarray) -> None:
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
        ends = self.offsets[complement + 1]
        if np.any(counts[complement] == 0) or np.any(self.word_index[ends - 1] != last):
            raise container.error("a complement mask lacks the partial last word", "mask_word_index")

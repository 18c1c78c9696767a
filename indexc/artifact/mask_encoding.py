"""Each unique mask in its cheapest stored form: dense bitset, sparse words, or complement words.

The runtime hands masks out as bitset rows of ``W = ceil(vocab_size / 32)`` 32-bit words, so
every form is expressed in words, never in token ids: filling a row is then one copy (dense)
or a fill plus one scatter (sparse, complement), with no per-token work at serving time.

Cost in bytes, for a mask whose row has ``nz`` nonzero words and ``nf`` words that are not
all-ones: dense ``4 W``, sparse ``12 nz`` (an int64 index and a uint32 value per word: int64
because numpy's scatter takes ``intp`` indices as they are, where int32 ones cost ~2 us more
per fill to convert), complement ``12 nf``.  The smallest wins; ties go to dense, then sparse
(fewer numpy calls to fill) -- with one speed rule on top: a word list longer than
``MAX_SCATTER_WORDS`` is stored dense instead.  numpy's scatter costs ~1.5 ns a word plus ~1 us
per call, so a 680-word list (a digits state of Llama-3) fills in 2.75 us where a dense copy
takes 1.0 us; capping lists at 256 words keeps every fill under the 2 us goal at the price of
a larger file for such masks.

Measured on Llama-3 (W = 4,008 words, 16 KB dense): a digits-only state (1,110 ids) touches
565 words and the inside of a string ``[^"]*`` (126,822 ids) is a complement of 967 words:
both over the cap, so dense; an identifier state (34,700 ids spread over most words) is dense;
the path states of a URL regex are sparse (329 of its 336 masks, ~50 words each: 0.6 KB).

Bits at ids >= ``vocab_size`` are always 0; so the partial last word (when ``vocab_size`` is
not a multiple of 32) is never all-ones and always appears in a complement's list, which is
what lets the runtime fill a complement with ``-1`` and need no separate tail clearing.

Encoding one mask costs one boolean scatter and a ``packbits`` over the vocabulary (tens of
microseconds at 128k ids); masks are unique already (the mask stage deduplicates them).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from indexc_runtime.format import MASK_COMPLEMENT, MASK_DENSE, MASK_FORM_NAMES, MASK_SPARSE, mask_words

ALL_ONES = np.uint32(0xFFFFFFFF)
PAIR_BYTES = 12  # int64 word index + uint32 word value
MAX_SCATTER_WORDS = 256  # longer word lists fill slower than a dense 16 KB copy: store dense


@dataclass(frozen=True)
class EncodedMasks:
    """The mask sections of an artifact (see ``format.SECTIONS`` for each one's meaning)."""

    form: np.ndarray  # uint8 (n_masks,)
    dense_row: np.ndarray  # int32 (n_masks,)
    word_offsets: np.ndarray  # int64 (n_masks + 1,)
    forced_token: np.ndarray  # int32 (n_masks,)
    dense: np.ndarray  # uint32 (n_dense, W)
    word_index: np.ndarray  # int64 (n_words,)
    word_value: np.ndarray  # uint32 (n_words,)

    def sections(self) -> dict[str, np.ndarray]:
        """The seven mask sections by their file names (regex and grammar artifacts share them)."""
        return {
            "mask_form": self.form,
            "mask_dense_row": self.dense_row,
            "mask_word_offsets": self.word_offsets,
            "forced_token": self.forced_token,
            "dense_masks": self.dense,
            "mask_word_index": self.word_index,
            "mask_word_value": self.word_value,
        }

    def form_counts(self) -> dict[str, int]:
        counts = np.bincount(self.form, minlength=len(MASK_FORM_NAMES))
        return {name: int(counts[code]) for code, name in enumerate(MASK_FORM_NAMES)}


SHORT_MASK_IDS = 4_096  # masks with at most this many ids are packed word by word


def mask_to_words(token_ids: np.ndarray, vocab_size: int) -> np.ndarray:
    """Bitset row (uint32, little-endian bit order) of a set of sorted unique token ids in
    ``[0, vocab_size)``.

    A short mask sums its bits word by word (the ids are sorted and unique, so a word's bits
    are distinct and their sum is their OR): no vocabulary-sized flag row, ~15 us instead of
    ~60 us for a few hundred ids.
    """
    width = mask_words(vocab_size)
    if token_ids.size <= SHORT_MASK_IDS:
        ids = token_ids.astype(np.int64)
        word = ids >> 5
        bit = np.left_shift(np.uint64(1), (ids & 31).astype(np.uint64))
        words = np.zeros(width, dtype=np.uint32)
        if ids.size:
            first = np.flatnonzero(np.concatenate(([True], word[1:] != word[:-1])))
            words[word[first]] = np.add.reduceat(bit, first).astype(np.uint32)
        return words
    bits = np.zeros(width * 32, dtype=bool)
    bits[token_ids] = True
    return np.packbits(bits, bitorder="little").view("<u4").astype(np.uint32)


def choose_form(words: np.ndarray) -> tuple[int, np.ndarray | None]:
    """(form, indices of the words to store) for one bitset row; ``None`` for dense (the whole row)."""
    nonzero = np.flatnonzero(words)
    not_full = np.flatnonzero(words != ALL_ONES)
    candidates = [(4 * words.size, MASK_DENSE)]
    candidates += [(PAIR_BYTES * stored.size, form) for stored, form in ((nonzero, MASK_SPARSE), (not_full, MASK_COMPLEMENT))
                   if stored.size <= MAX_SCATTER_WORDS]
    form = min(candidates)[1]
    if form == MASK_SPARSE:
        return form, nonzero
    if form == MASK_COMPLEMENT:
        return form, not_full
    return form, None


def encode_masks(masks: Sequence[np.ndarray], vocab_size: int) -> EncodedMasks:
    """Encode every mask (sorted unique token ids, each in ``[0, vocab_size)``)."""
    width = mask_words(vocab_size)
    forms = np.zeros(len(masks), dtype=np.uint8)
    dense_row = np.full(len(masks), -1, dtype=np.int32)
    forced = np.full(len(masks), -1, dtype=np.int32)
    word_counts = np.zeros(len(masks), dtype=np.int64)
    dense_rows: list[np.ndarray] = []
    index_parts: list[np.ndarray] = []
    value_parts: list[np.ndarray] = []
    for mask_id, token_ids in enumerate(masks):
        _check_ids(mask_id, token_ids, vocab_size)
        words = mask_to_words(token_ids, vocab_size)
        form, stored = choose_form(words)
        forms[mask_id] = form
        if token_ids.size == 1:
            forced[mask_id] = int(token_ids[0])
        if form == MASK_DENSE:
            dense_row[mask_id] = len(dense_rows)
            dense_rows.append(words)
        else:
            word_counts[mask_id] = stored.size
            index_parts.append(stored.astype(np.int64))
            value_parts.append(words[stored])
    offsets = np.zeros(len(masks) + 1, dtype=np.int64)
    np.cumsum(word_counts, out=offsets[1:])
    return EncodedMasks(
        form=forms,
        dense_row=dense_row,
        word_offsets=offsets,
        forced_token=forced,
        dense=np.stack(dense_rows) if dense_rows else np.zeros((0, width), dtype=np.uint32),
        word_index=np.concatenate(index_parts) if index_parts else np.zeros(0, dtype=np.int64),
        word_value=np.concatenate(value_parts) if value_parts else np.zeros(0, dtype=np.uint32),
    )


def _check_ids(mask_id: int, token_ids: np.ndarray, vocab_size: int) -> None:
    if token_ids.ndim != 1 or (token_ids.size and (token_ids.min() < 0 or token_ids.max() >= vocab_size)):
        raise ValueError(f"mask {mask_id}: token ids must be a 1-D array in [0, {vocab_size})")
    if token_ids.size > 1 and np.any(np.diff(token_ids) <= 0):
        raise ValueError(f"mask {mask_id}: token ids must be sorted and unique")

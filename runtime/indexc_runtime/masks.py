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

Checks.  ``load`` makes one check of the mask sections, every word index in ``[0, W)`` (one
``max`` of the indices viewed unsigned, where a negative one is huge: numpy's scatter would
wrap it).  The rest is checked mask by mask when its entry is made, on its first use (the
start state's by ``load``), for what that mask reads: its form known; a dense mask's row in
range and no words in the word lists; a word list's range inside the lists and, kept as
pairs, its indices strictly increasing (``contains`` bisects them); no bit at ids >=
``vocab_size`` in the mask's last word, which also catches a complement mask without its
partial last word (the ones would be left in the tail).  A forced token is checked where it
is read (``forced``).  All of it is a few comparisons of Python ints (one numpy comparison for
a list kept as pairs): a sparse mask's first fill went from 3.5 to ~4 us (warm process).  The
vectorised scan of the whole store (``check_all``: offsets rising from 0 to the word count,
every index ordered, forced tokens in ``[-1, vocab_size)``) is run by ``Index.verify``.  It
used to run at ``load``: 25-30 numpy calls, 240-330 us of a fresh process's ~1.1 ms load (most
of it numpy's first call of each ufunc and dtype), for masks a request mostly never reads.
A materialised mask's indices are not checked for order before ``verify``: fill and
``contains`` both read the one row they were scattered into, so a crafted file whose indices
repeat serves a consistent (wrong) mask, like any crafted mask behind valid checksums.
"""

from __future__ import annotations

from bisect import bisect_left

import numpy as np

from indexc_runtime.container import Container, scalar_view
from indexc_runtime.errors import ArtifactError
from indexc_runtime.format import MASK_COMPLEMENT, MASK_DENSE, MASK_FORM_NAMES, MASK_SPARSE

MATERIALISE_BYTES = 64 << 20  # per artifact: rows built from sparse/complement masks on first use
_INT32 = np.dtype("<i4")
_UINT32 = np.dtype(np.uint32)  # native: the view of a fresh row must not be a byte-swapped copy
_INTP = np.dtype(np.intp)


def set_bits(words: np.ndarray, ids: np.ndarray) -> None:
    """Set the bit of every id in a row of uint32 words (the layout above: bit ``i % 32`` of
    word ``i // 32``); repeated ids and ids sharing a word are fine (one ``bitwise_or.at``)."""
    ids = np.asarray(ids)
    np.bitwise_or.at(words, ids >> 5, np.left_shift(np.uint32(1), (ids & 31).astype(np.uint32)))


class MaskStore:
    """The mask sections of one artifact; each mask is checked when its entry is made (see the module note)."""

    def __init__(self, container: Container):
        self.source = container.source
        self.vocab_size = container.header.vocab_size
        self.words = container.header.dims["mask_words"]
        self.form = container.array("mask_form")
        self.dense_row = container.array("mask_dense_row")
        self.offsets = container.array("mask_word_offsets")
        self.forced_token = container.array("forced_token")
        dense_bits, value_bits = container.array("dense_masks"), container.array("mask_word_value")  # uint32
        self.dense = dense_bits.view(_INT32)
        word_index = container.array("mask_word_index")
        self.word_index = word_index if word_index.dtype == _INTP else word_index.astype(_INTP)  # version 1: int32
        self.word_value = value_bits.view(_INT32)
        self._form = container.items("mask_form")
        self._dense_row = container.items("mask_dense_row")
        self._offsets = container.items("mask_word_offsets")
        self._forced = container.items("forced_token")
        self._dense_bits = container.items("dense_masks")  # uint32: non-negative ints
        self._index_items = container.items("mask_word_index") if word_index is self.word_index \
            else scalar_view(self.word_index)
        self._value_bits = container.items("mask_word_value")
        self._n_dense = self.dense.shape[0]
        self._tail_bits = (0xFFFFFFFF << self.vocab_size % 32) & 0xFFFFFFFF if self.vocab_size % 32 else 0
        self._entries: list[tuple | None] = [None] * self.form.size
        self._zeros = np.zeros(self.words, dtype=np.int32)  # rows to copy from: ~2x faster than fill()
        self._ones: np.ndarray | None = None  # made by the first complement mask
        self._materialise_left = MATERIALISE_BYTES // max(1, 4 * self.words)  # rows still allowed

    @classmethod
    def from_container(cls, container: Container) -> "MaskStore":
        """The views, and one bound: every word index in ``[0, W)`` (one ``max`` of the indices
        viewed unsigned).  The rest is checked per mask when its entry is made; ``check_all``
        checks every mask (``Index.verify``)."""
        store = cls(container)
        if store.word_index.size:
            container.check_below("mask_word_index", store.word_index, store.words)
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

    def or_into(self, mask_id: int, target: np.ndarray, scratch: np.ndarray) -> None:
        """OR mask ``mask_id`` into ``target`` (one row of ``W`` int32 words): a dense or
        materialised mask straight from its row, a sparse one into its words only; a complement
        one through ``scratch`` (int32 rows, its row 0 overwritten); the entry is made if new.
        ``union`` ORs many masks, most of them without an entry, and hands it a complement."""
        form, index, value, _, _, _ = self._entries[mask_id] or self.entry(mask_id)
        if form == MASK_DENSE:
            target |= index
        elif form == MASK_SPARSE:
            target[index] |= value
        else:
            self.fill(mask_id, scratch, 0)
            target |= scratch[0]

    def union(self, mask_ids: tuple[int, ...]) -> np.ndarray:
        """The OR of masks ``mask_ids`` as a new int32 row of ``W`` words.  A mask never used
        before is read as the file holds it, without making its entry: a dense one from its row,
        a sparse one's words ORed in place; a mask with an entry ORs its row; a complement one
        goes through ``or_into``.

        A grammar configuration's part 1 ORs 3-24 masks, most of them read once.  Through their
        entries (checks, and a sparse mask's materialised 16 KB row) they cost ~65 of the ~1,140
        us of the C sample's slowest first-request mask in a fresh process (median of 8, the
        sample's walk 6.4 -> 6.1 ms); a gather of all the dense rows at once, a temporary of up
        to ~400 KB, was no faster.  What this reads is checked as an entry checks it (a mask
        that fails goes to ``or_into``, whose entry raises): a dense row in range without words
        in the lists, a word range inside the lists, and no bit at ids ``>= vocab_size`` (one
        test of the OR's last word; the mask that sets one is then named by its entry)."""
        union = np.zeros(self.words, dtype=np.int32)
        entries, forms, dense_row, offsets = self._entries, self._form, self._dense_row, self._offsets
        dense, n_dense, n_words = self.dense, self._n_dense, len(self._index_items)
        for mask_id in mask_ids:
            entry = entries[mask_id]
            if entry is not None and entry[0] == MASK_DENSE:  # dense or materialised: its row
                union |= entry[1]
                continue
            form, start, end = forms[mask_id], offsets[mask_id], offsets[mask_id + 1]
            if form == MASK_DENSE and start == end and 0 <= dense_row[mask_id] < n_dense:
                union |= dense[dense_row[mask_id]]
            elif form == MASK_SPARSE and 0 <= start <= end <= n_words:
                union[self.word_index[start:end]] |= self.word_value[start:end]
            else:
                self.or_into(mask_id, union, np.empty((1, self.words), dtype=np.int32))
        if int(union[-1]) & self._tail_bits:
            for mask_id in mask_ids:
                self.entry(mask_id)  # the one with bits past the vocabulary raises
        return union

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

    def row(self, mask_id: int) -> np.ndarray:
        """The mask as a new int32 row of ``W`` words."""
        rows = np.empty((1, self.words), dtype=np.int32)
        self.fill(mask_id, rows, 0)
        return rows[0]

    def token_ids(self, mask_id: int) -> np.ndarray:
        """Sorted int32 ids of the mask's tokens."""
        bits = np.unpackbits(self.row(mask_id).astype("<i4", copy=False).view(np.uint8), bitorder="little")
        return np.flatnonzero(bits).astype(np.int32)

    def forced(self, mask_id: int) -> int:
        """The mask's only token, or -1."""
        token = self._forced[mask_id]
        if not -1 <= token < self.vocab_size:
            raise self._error(f"mask {mask_id}'s forced token {token} is outside [-1, {self.vocab_size - 1}]",
                              "forced_token")
        return token

    def form_counts(self) -> dict[str, int]:
        counts = np.bincount(self.form, minlength=len(MASK_FORM_NAMES))
        if counts.size > len(MASK_FORM_NAMES):
            raise self._error(f"mask forms must lie in [0, {len(MASK_FORM_NAMES) - 1}]", "mask_form")
        return {name: int(counts[code]) for code, name in enumerate(MASK_FORM_NAMES)}

    def entry(self, mask_id: int) -> tuple:
        """(form, row or word indices, word values, bits, start, end): for a dense or materialised
        mask, the row and a memoryview ``bits`` of words whose item ``start + w`` is word ``w``.

        Made on the mask's first use, after checking what this mask reads (``ArtifactError``).
        """
        form, start, end = self._form[mask_id], self._offsets[mask_id], self._offsets[mask_id + 1]
        if form == MASK_DENSE:
            row = self._dense_row[mask_id]
            if not 0 <= row < self._n_dense:
                raise self._error(f"mask {mask_id}'s dense row {row} is outside [0, {self._n_dense - 1}]",
                                  "mask_dense_row")
            if start != end:
                raise self._error(f"dense mask {mask_id} has words in the word lists", "mask_word_offsets")
            entry = (form, self.dense[row], None, self._dense_bits, row * self.words, 0)
            last_word, section = self._dense_bits[(row + 1) * self.words - 1], "dense_masks"
        elif form == MASK_SPARSE or form == MASK_COMPLEMENT:
            if not 0 <= start <= end <= len(self._index_items):
                raise self._error(f"mask {mask_id}'s words [{start}, {end}) are not a range of the word lists",
                                  "mask_word_offsets")
            entry, last_word = self._word_list_entry(form, start, end)
            section = "mask_word_value"  # or a complement mask without its partial last word
        else:
            raise self._error(f"mask {mask_id} has form {form}, not one of {list(MASK_FORM_NAMES)}", "mask_form")
        if last_word & self._tail_bits:
            raise self._error(f"mask {mask_id}: bits set at ids >= vocab size {self.vocab_size}", section)
        self._entries[mask_id] = entry
        return entry

    def _word_list_entry(self, form: int, start: int, end: int) -> tuple[tuple, int]:
        """The entry of a sparse or complement mask, and its last word (what the tail check reads).

        Materialised (while the budget lasts): the scatter into a fresh row (every index is in
        ``[0, W)``: ``from_container`` bounds them all with one ``max``); fill and ``contains``
        then read that row, so the order of the indices does not matter.  Kept as pairs: the
        indices must also increase strictly, since ``contains`` bisects them.
        """
        index, value = self.word_index[start:end], self.word_value[start:end]
        if form == MASK_COMPLEMENT and self._ones is None:
            self._ones = np.full(self.words, -1, dtype=np.int32)
        if self._materialise_left > 0:
            self._materialise_left -= 1
            row = (self._zeros if form == MASK_SPARSE else self._ones).copy()
            row[index] = value
            bits = scalar_view(row.view(_UINT32))
            return (MASK_DENSE, row, None, bits, 0, 0), bits[self.words - 1]
        if end - start > 1 and not np.all(index[1:] > index[:-1]):
            raise self._error("word indices must increase strictly within each mask", "mask_word_index")
        listed_last = start < end and self._index_items[end - 1] == self.words - 1
        last_word = self._value_bits[end - 1] if listed_last else 0 if form == MASK_SPARSE else 0xFFFFFFFF
        return (form, index, value, None, start, end), last_word

    def check_all(self, container: Container) -> None:
        """Every mask at once, vectorised (``Index.verify``): what each entry checks, and more
        (offsets rising from 0 to the word count, indices ordered in materialised masks too)."""
        n_words = self.word_index.size
        container.check_below("mask_form", self.form, len(MASK_FORM_NAMES))
        dense = self.form == MASK_DENSE
        container.check_below("mask_dense_row", self.dense_row[dense], self.dense.shape[0])
        offsets = self.offsets
        counts = offsets[1:] - offsets[:-1]
        if int(offsets[0]) != 0 or int(offsets[-1]) != n_words or int(counts.min()) < 0:
            raise container.error(f"offsets must rise from 0 to the word count {n_words}", "mask_word_offsets")
        if counts[dense].any():
            raise container.error("a dense mask has words in the word lists", "mask_word_offsets")
        self._check_word_indices(container, offsets[:-1][counts > 0])
        self._check_tail_bits(container)
        container.check_range("forced_token", self.forced_token, -1, self.vocab_size - 1)

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

    def _error(self, message: str, section: str) -> ArtifactError:
        return ArtifactError(message, source=self.source, section=section)

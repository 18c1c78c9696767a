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

Encoding is vectorised over the short masks (at most ``SHORT_MASK_IDS`` ids; ``encode_masks``):
the ids of a batch of them (up to ``BATCH_IDS`` ids) become their nonzero words in one pass --
each id's (mask, word) key is non-decreasing, since ids are sorted within a mask, so a word is
a run of equal keys and its value a ``bitwise_or.reduceat`` of the ids' bits -- then every
mask's form follows from two ``bincount``s (nonzero words, all-ones words), and the dense
rows, word lists and complement lists are scattered out a batch at a time.  A long mask is
encoded on its own, its flags packed into words: four passes over its ids where the batch
path takes ten.  This replaced a loop of ~15 numpy calls per mask, whose overhead dominated
the write of small constraints; CPU per encoding, old loop against this, interleaved: the 37
masks of the ``time`` regex 1.37 -> 0.20 ms, ``ip`` 0.45 -> 0.17, URL (336 masks) 13.7 ->
2.7 ms, a 196-mask extraction regex 10.3 -> 4.3 ms, a 181-mask JSON Schema 14.8 -> 12.0 ms.
A long mask whose bitset row the mask stage hands over (``MaskTable.mask_rows``) is not packed
again: ``json_person``'s 108 masks of ~100k ids 24 -> 9 ms, ``bounded_string_128``'s 52 ->
4 ms.  Short masks are batched wherever they stand, not only between two long ones: a JSON
Schema's long masks are spread among its short ones (the 25 median MaskBench schemas: ~34
batches a schema, now ~18, the long ones alone), encoding 7.3-7.6 -> 6.0-6.6 ms a schema
(median of per-schema min of 5, process time, interleaved).  Session 9: long masks take their
forms from their rows ``LONG_BATCH_MASKS`` at a time (not one ``choose_form`` each), each
batch's dense rows go straight to their places (no joined copy gathered again), and a short
batch's word runs come from word indices and mask starts (no combined key and ``divmod``): the
25 median schemas' encoding in their first write 7.0-8.1 -> 6.1-7.0 ms a schema (median,
process time, 3 interleaved runs).  The one-mask pieces (``mask_to_words``, ``choose_form``)
are the tests' reference for the batches.
Masks are unique already (the mask stage deduplicates them).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from indexc.arrays import offsets_of, run_positions
from indexc.masks.table import bitset_row
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

    def concatenated(self, more: "EncodedMasks") -> "EncodedMasks":
        """These masks, then ``more``'s (their ids, dense rows and words shifted past these)."""
        return EncodedMasks(
            np.concatenate([self.form, more.form]),
            np.concatenate([self.dense_row, np.where(more.dense_row >= 0, more.dense_row + len(self.dense), -1)]
                           ).astype(self.dense_row.dtype),
            np.concatenate([self.word_offsets, more.word_offsets[1:] + self.word_offsets[-1]]),
            np.concatenate([self.forced_token, more.forced_token]),
            np.concatenate([self.dense, more.dense]),
            np.concatenate([self.word_index, more.word_index]),
            np.concatenate([self.word_value, more.word_value]))

    def form_counts(self) -> dict[str, int]:
        counts = np.bincount(self.form, minlength=len(MASK_FORM_NAMES))
        return {name: int(counts[code]) for code, name in enumerate(MASK_FORM_NAMES)}


SHORT_MASK_IDS = 4_096  # masks with at most this many ids are packed word by word


def mask_to_words(token_ids: np.ndarray, vocab_size: int) -> np.ndarray:
    """Bitset row (uint32, little-endian bit order) of a set of sorted unique token ids in
    ``[0, vocab_size)``.

    A short mask ORs its bits word by word (``_nonzero_words``, as a batch of one): no
    vocabulary-sized flag row, ~15 us instead of ~60 us for a few hundred ids.
    """
    width = mask_words(vocab_size)
    if token_ids.size <= SHORT_MASK_IDS:
        ids = np.asarray(token_ids, dtype=np.int64)
        _, index, value = _nonzero_words(ids, np.array([ids.size]), np.zeros(ids.size, dtype=np.int64))
        words = np.zeros(width, dtype=np.uint32)
        words[index] = value
        return words
    flags = np.zeros(vocab_size, dtype=bool)
    flags[token_ids] = True
    return bitset_row(flags)


def choose_form(words: np.ndarray) -> tuple[int, np.ndarray | None]:
    """(form, indices of the words to store) for one bitset row; ``None`` for dense (the whole
    row).  The rule is ``_forms``', for one mask."""
    nonzero = np.flatnonzero(words)
    not_full = np.flatnonzero(words != ALL_ONES)
    form = int(_forms(np.array([nonzero.size]), np.array([not_full.size]), words.size)[0])
    return form, {MASK_SPARSE: nonzero, MASK_COMPLEMENT: not_full}.get(form)


BATCH_IDS = 1 << 21  # ids encoded in one vectorised pass (~60 MB of temporaries at most)
LONG_BATCH_MASKS = 256  # long masks encoded together (their rows: 4 MB for Llama-3, ~3x that in temporaries)


def encode_masks(masks: Sequence[np.ndarray], vocab_size: int, rows: Mapping[int, np.ndarray] | None = None,
                 sizes: np.ndarray | None = None) -> EncodedMasks:
    """Encode every mask (sorted unique token ids, each in ``[0, vocab_size)``), a batch of
    masks at a time (see the module note); ``ValueError`` names the first bad mask.

    ``rows``: bitset rows some masks already have (``MaskTable.mask_rows``: the mask stage's
    packed flags); a long mask with one is encoded from it, without packing its ids again
    (~0.4 ms a mask of 120k ids: most of a 1,027-state regex's 52 ms of encoding).  ``sizes``:
    each mask's ids, if known (``MaskTable.mask_sizes``): a mask with a row is then never read as
    ids (the mask stage's ``MaskList`` would unpack them).

    The short masks are batched together wherever they stand (a JSON Schema's long masks are
    spread among its short ones, and a batch cut at each long one cost ~30 numpy calls a cut),
    and the batches' words are then put back in mask order (``_in_mask_order``)."""
    width = mask_words(vocab_size)
    rows = rows or {}
    lengths = sizes if sizes is not None else \
        np.fromiter((np.size(ids) for ids in masks), dtype=np.int64, count=len(masks))
    parts, bad = [], []
    for chosen, long in _batches(lengths):
        try:
            if long:
                given = [rows.get(i) for i in chosen.tolist()]
                batch = [masks[i] if row is None else None for i, row in zip(chosen.tolist(), given)]
                encoded = _encode_long(batch, chosen, vocab_size, given)
            else:
                encoded = _encode_batch([masks[i] for i in chosen.tolist()], lengths[chosen], chosen, vocab_size,
                                        width)
            parts.append((chosen, encoded))
        except BadMask as error:  # batches are not in mask order: name the first bad mask of all
            bad.append(error)
    if bad:
        raise min(bad, key=lambda error: error.mask_id)
    return _in_mask_order(parts, masks, lengths, width)


class BadMask(ValueError):
    """A mask that is not sorted unique ids in range (or a bad bitset row), by its id."""

    def __init__(self, mask_id: int, message: str):
        super().__init__(f"mask {mask_id}: {message}")
        self.mask_id = mask_id


def _in_mask_order(parts: list[tuple[np.ndarray, "_Batch"]], masks: Sequence[np.ndarray], lengths: np.ndarray,
                   width: int) -> EncodedMasks:
    """The batches' forms, dense rows and stored words (each batch: the masks ``chosen``, in
    increasing order) gathered into mask order."""
    chosen = np.concatenate([ids for ids, _ in parts]) if parts else np.zeros(0, np.int64)
    place = np.empty(len(masks), dtype=np.int64)  # each mask's position in batch order
    place[chosen] = np.arange(chosen.size)
    batch_forms = np.concatenate([b.form for _, b in parts]) if parts else np.zeros(0, np.uint8)
    forms = batch_forms[place]
    counts = np.concatenate([b.word_counts for _, b in parts]) if parts else np.zeros(0, np.int64)
    dense_row = np.full(len(masks), -1, dtype=np.int32)
    dense = forms == MASK_DENSE
    dense_row[dense] = np.arange(int(dense.sum()), dtype=np.int32)
    forced = np.full(len(masks), -1, dtype=np.int32)
    single = np.flatnonzero(lengths == 1)
    forced[single] = [int(masks[i][0]) for i in single.tolist()]
    word_order = run_positions(offsets_of(counts)[:-1][place], counts[place])  # batch-order words, in mask order
    dense_rows = np.empty((int(dense.sum()), width), dtype=np.uint32)
    for ids, batch in parts:  # each batch's dense rows straight to their places (no joined copy to gather from)
        if batch.dense.size:
            dense_rows[dense_row[ids[batch.form == MASK_DENSE]]] = batch.dense
    return EncodedMasks(
        form=forms,
        dense_row=dense_row,
        word_offsets=offsets_of(counts[place]),
        forced_token=forced,
        dense=dense_rows,
        word_index=_concatenate([b.word_index for _, b in parts], np.zeros(0, dtype=np.int64))[word_order],
        word_value=_concatenate([b.word_value for _, b in parts], np.zeros(0, dtype=np.uint32))[word_order],
    )


@dataclass(frozen=True)
class _Batch:
    form: np.ndarray  # uint8 per mask
    word_counts: np.ndarray  # int64 per mask: its stored words (0 for dense)
    dense: np.ndarray  # uint32 (dense masks of the batch, W)
    word_index: np.ndarray  # int64, mask by mask, increasing within a mask
    word_value: np.ndarray  # uint32


def _batches(lengths: np.ndarray) -> list[tuple[np.ndarray, bool]]:
    """The masks in batches (int64 mask ids, increasing; and whether they are long): short masks
    (at most ``SHORT_MASK_IDS`` ids) together, wherever they stand, up to ``BATCH_IDS`` ids; long
    ones ``LONG_BATCH_MASKS`` at a time (``_encode_long``)."""
    long = lengths > SHORT_MASK_IDS
    batches, lo, total = [], 0, 0
    short = np.flatnonzero(~long)
    for i, length in enumerate(lengths[short].tolist()):
        if i > lo and total + length > BATCH_IDS:
            batches.append((short[lo:i], False))
            lo, total = i, 0
        total += length
    if short.size:
        batches.append((short[lo:], False))
    long_ids = np.flatnonzero(long)
    return batches + [(long_ids[lo:lo + LONG_BATCH_MASKS], True) for lo in range(0, long_ids.size, LONG_BATCH_MASKS)]


def _encode_batch(masks: Sequence[np.ndarray], lengths: np.ndarray, mask_ids: np.ndarray, vocab_size: int,
                  width: int) -> _Batch:
    """The forms and stored words of one batch of short masks (``mask_ids``: their ids, for errors)."""
    ids = np.concatenate([np.asarray(m).reshape(-1) for m in masks]).astype(np.int64, copy=False) if lengths.sum() \
        else np.zeros(0, np.int64)
    mask_of = np.repeat(np.arange(lengths.size, dtype=np.int64), lengths)
    _check_batch(masks, lengths, ids, mask_of, mask_ids, vocab_size)
    word_mask, word_index, value = _nonzero_words(ids, lengths, mask_of)
    nonzero = np.bincount(word_mask, minlength=lengths.size)
    not_full = width - np.bincount(word_mask[value == ALL_ONES], minlength=lengths.size)
    form = _forms(nonzero, not_full, width)
    dense = _rows(form == MASK_DENSE, word_mask, word_index, value, width)
    sparse_words = (form == MASK_SPARSE)[word_mask]
    complement = np.flatnonzero(form == MASK_COMPLEMENT)
    rows = _rows(form == MASK_COMPLEMENT, word_mask, word_index, value, width)
    row_of, index = np.nonzero(rows != ALL_ONES)  # row-major: mask by mask, index increasing
    stored_mask = np.concatenate((word_mask[sparse_words], complement[row_of]))
    order = np.argsort(stored_mask, kind="stable")
    stored_index = np.concatenate((word_index[sparse_words], index))[order]
    stored_value = np.concatenate((value[sparse_words], rows[row_of, index]))[order]
    counts = np.bincount(stored_mask, minlength=lengths.size).astype(np.int64)
    return _Batch(form, counts, dense, stored_index.astype(np.int64), stored_value.astype(np.uint32))


def _nonzero_words(ids: np.ndarray, lengths: np.ndarray, mask_of: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(mask, word index, value) of every nonzero word of a batch of short masks (``lengths``:
    their sizes), by mask then index: ids are sorted within a mask, so a word is a run of equal
    word indices that no mask start cuts, and its value the OR of its ids' bits (``reduceat``).
    Runs found from the word indices and the mask starts, not from a combined (mask, word) key
    split again by ``divmod``: 1.9 -> 1.5 ms for a median MaskBench schema's 143k ids."""
    if not ids.size:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.uint32)
    word = ids >> 5
    run_start = np.empty(ids.size, dtype=bool)
    run_start[0] = True
    np.not_equal(word[1:], word[:-1], out=run_start[1:])
    run_start[np.cumsum(lengths)[:-1][lengths[1:] > 0]] = True  # each nonempty mask's first id
    starts = np.flatnonzero(run_start)
    value = np.bitwise_or.reduceat(np.left_shift(np.uint32(1), (ids & 31).astype(np.uint32)), starts)
    return mask_of[starts], word[starts], value


def _encode_long(masks: Sequence[np.ndarray | None], mask_ids: np.ndarray, vocab_size: int,
                 rows: Sequence[np.ndarray | None]) -> _Batch:
    """Masks of many ids, a batch at a time: each one's flags packed into words
    (``mask_to_words``: four passes over the ids where the short path's keys and runs take ten;
    a 108-mask JSON regex whose masks hold ~100k ids each: 29 ms this way, 127 ms through the
    short path), or its row in ``rows`` as given, checked for shape and for bits past the
    vocabulary; then the batch's forms and stored words from its rows at once (one
    ``choose_form`` per mask cost ~60 us: ~1 ms of a median MaskBench schema's 17 long masks)."""
    words = np.empty((len(masks), mask_words(vocab_size)), dtype=np.uint32)
    for k, (ids, row, mask_id) in enumerate(zip(masks, rows, mask_ids.tolist())):
        if row is None:
            ids = np.asarray(ids)
            _check_ids(mask_id, ids, vocab_size)
            words[k] = mask_to_words(ids, vocab_size)
        else:
            words[k] = _checked_row(mask_id, row, vocab_size)
    nonzero = words != 0
    not_full = words != ALL_ONES
    form = _forms(np.count_nonzero(nonzero, axis=1), np.count_nonzero(not_full, axis=1), words.shape[1])
    stored = np.where((form == MASK_SPARSE)[:, None], nonzero, not_full & (form == MASK_COMPLEMENT)[:, None])
    row_of, index = np.nonzero(stored)  # row-major: mask by mask, index increasing
    return _Batch(form, np.bincount(row_of, minlength=len(masks)).astype(np.int64), words[form == MASK_DENSE],
                  index.astype(np.int64), words[row_of, index])


def _checked_row(mask_id: int, row: np.ndarray, vocab_size: int) -> np.ndarray:
    """A given bitset row, if it is one: ``mask_words(vocab_size)`` uint32 words, no bit at ids
    >= ``vocab_size``."""
    width = mask_words(vocab_size)
    tail = (0xFFFFFFFF << vocab_size % 32) & 0xFFFFFFFF if vocab_size % 32 else 0
    if row.shape != (width,) or row.dtype != np.uint32 or int(row[-1]) & tail:
        raise BadMask(mask_id, f"a bitset row must be {width} uint32 words with no bit at ids >= {vocab_size}")
    return row


def _forms(nonzero: np.ndarray, not_full: np.ndarray, width: int) -> np.ndarray:
    """Each mask's form: the smallest of dense ``4 W``, sparse ``12 nz`` and complement ``12 nf``
    bytes, a list longer than ``MAX_SCATTER_WORDS`` not allowed, ties to the lower form code
    (dense, then sparse).  The one place the rule is written (``choose_form`` asks it too)."""
    never = np.iinfo(np.int64).max
    costs = np.stack((np.full(nonzero.size, 4 * width, dtype=np.int64),
                      np.where(nonzero <= MAX_SCATTER_WORDS, PAIR_BYTES * nonzero, never),
                      np.where(not_full <= MAX_SCATTER_WORDS, PAIR_BYTES * not_full, never)))
    codes = np.array([MASK_DENSE, MASK_SPARSE, MASK_COMPLEMENT], dtype=np.uint8)
    return codes[np.argmin(costs, axis=0)]


def _rows(chosen: np.ndarray, word_mask: np.ndarray, word_index: np.ndarray, value: np.ndarray,
          width: int) -> np.ndarray:
    """Bitset rows (uint32, ``width`` words) of the ``chosen`` masks, in mask order."""
    row_of_mask = np.cumsum(chosen) - 1
    rows = np.zeros(int(chosen.sum()) * width, dtype=np.uint32)
    words = chosen[word_mask]
    rows[row_of_mask[word_mask[words]] * width + word_index[words]] = value[words]
    return rows.reshape(-1, width)


def _concatenate(parts: list[np.ndarray], empty: np.ndarray) -> np.ndarray:
    parts = [part for part in parts if part.size]
    return np.concatenate(parts) if parts else empty


def _check_batch(masks: Sequence[np.ndarray], lengths: np.ndarray, ids: np.ndarray, mask_of: np.ndarray,
                 mask_ids: np.ndarray, vocab_size: int) -> None:
    """Every mask 1-D, its ids in range, sorted and unique; else the first bad one's error."""
    bad = np.zeros(lengths.size, dtype=bool)
    bad[[i for i, m in enumerate(masks) if np.ndim(m) != 1]] = True
    if ids.size:
        bad[mask_of[(ids < 0) | (ids >= vocab_size)]] = True
        falls = np.flatnonzero(ids[1:] <= ids[:-1]) + 1
        bad[mask_of[falls[mask_of[falls] == mask_of[falls - 1]]]] = True
    if bad.any():
        first = int(np.argmax(bad))
        _check_ids(int(mask_ids[first]), np.asarray(masks[first]), vocab_size)
        raise BadMask(int(mask_ids[first]), f"token ids must be sorted, unique and in [0, {vocab_size})")


def _check_ids(mask_id: int, token_ids: np.ndarray, vocab_size: int) -> None:
    if token_ids.ndim != 1 or (token_ids.size and (token_ids.min() < 0 or token_ids.max() >= vocab_size)):
        raise BadMask(mask_id, f"token ids must be a 1-D array in [0, {vocab_size})")
    if token_ids.size > 1 and np.any(np.diff(token_ids) <= 0):
        raise BadMask(mask_id, "token ids must be sorted and unique")


def token_ids_of_row(row: bytes, vocab_size: int) -> np.ndarray:
    """The token ids a bitmask row's bytes hold (little bit order), below ``vocab_size``."""
    bits = np.unpackbits(np.frombuffer(row, dtype=np.uint8), bitorder="little")
    return np.flatnonzero(bits[:vocab_size])

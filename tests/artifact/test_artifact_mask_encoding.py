"""Mask words and the choice of storage form."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from indexc.artifact.mask_encoding import choose_form, encode_masks, mask_to_words
from indexc_runtime.format import MASK_COMPLEMENT, MASK_DENSE, MASK_SPARSE


def words_to_ids(words: np.ndarray) -> list[int]:
    return [32 * w + i for w, word in enumerate(words.tolist()) for i in range(32) if word >> i & 1]


def test_bit_i_of_word_w_is_token_32w_plus_i():
    words = mask_to_words(np.array([0, 33, 39]), vocab_size=40)
    assert words.dtype == np.uint32 and words.tolist() == [1, (1 << 1) | (1 << 7)]


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 700).flatmap(lambda v: st.tuples(st.just(v), st.sets(st.integers(0, v - 1)))))
def test_words_round_trip_and_have_no_bits_past_the_vocabulary(case):
    vocab_size, ids = case
    words = mask_to_words(np.array(sorted(ids), dtype=np.int64), vocab_size)
    assert len(words) == -(-vocab_size // 32)
    assert words_to_ids(words) == sorted(ids)


def test_few_ids_are_sparse_most_ids_a_complement_spread_ids_dense():
    vocab = 1000  # 32 words: dense costs 128 bytes, a pair 12
    few = mask_to_words(np.array([5, 500, 900]), vocab)
    assert choose_form(few)[0] == MASK_SPARSE and choose_form(few)[1].tolist() == [0, 15, 28]
    most = mask_to_words(np.setdiff1d(np.arange(vocab), [70]), vocab)
    form, stored = choose_form(most)
    assert form == MASK_COMPLEMENT and stored.tolist() == [2, 31]  # word 31 is partial (ids 992..999)
    spread = mask_to_words(np.arange(0, vocab, 3), vocab)
    assert choose_form(spread) == (MASK_DENSE, None)


def test_ties_go_to_dense():
    one_of_three_words = mask_to_words(np.array([3]), 96)  # dense 12 bytes == one pair 12 bytes
    assert choose_form(one_of_three_words)[0] == MASK_DENSE


def test_encoded_sections_index_each_mask():
    vocab = 1000
    masks = [np.array([5, 500, 900]), np.arange(0, vocab, 3), np.array([7]), np.setdiff1d(np.arange(vocab), [70])]
    encoded = encode_masks(masks, vocab)
    assert encoded.form.tolist() == [MASK_SPARSE, MASK_DENSE, MASK_SPARSE, MASK_COMPLEMENT]
    assert encoded.dense_row.tolist() == [-1, 0, -1, -1] and encoded.dense.shape == (1, 32)
    assert encoded.word_offsets.tolist() == [0, 3, 3, 4, 6]
    assert encoded.word_index.tolist() == [0, 15, 28, 0, 2, 31]
    assert encoded.forced_token.tolist() == [-1, -1, 7, -1]
    assert encoded.form_counts() == {"dense": 1, "sparse": 2, "complement": 1}


@pytest.mark.parametrize("bad, message", [
    (np.array([3, 40]), r"in \[0, 40\)"),
    (np.array([-1]), r"in \[0, 40\)"),
    (np.array([5, 3]), "sorted and unique"),
    (np.array([3, 3]), "sorted and unique"),
])
def test_bad_masks_are_refused(bad, message):
    with pytest.raises(ValueError, match=f"mask 1: .*{message}"):
        encode_masks([np.array([1]), bad], 40)


def test_long_word_lists_are_stored_dense_for_fill_speed():
    from indexc.artifact.mask_encoding import MAX_SCATTER_WORDS, choose_form, mask_to_words
    from indexc_runtime.format import MASK_DENSE, MASK_SPARSE

    vocab_size = 128_256
    spread = np.arange(0, 32 * (MAX_SCATTER_WORDS + 1), 32)  # one id in each of 257 words
    assert choose_form(mask_to_words(spread, vocab_size))[0] == MASK_DENSE
    assert choose_form(mask_to_words(spread[:-1], vocab_size))[0] == MASK_SPARSE
    assert encode_masks([spread, spread[:-1]], vocab_size).form.tolist() == [MASK_DENSE, MASK_SPARSE]


def _encode_one_by_one(masks, vocab_size):
    """The reference: each mask through ``mask_to_words`` and ``choose_form``, as the writer once did."""
    forms, dense, index, value, counts = [], [], [], [], []
    for ids in masks:
        words = mask_to_words(ids, vocab_size)
        form, stored = choose_form(words)
        forms.append(form)
        if form == MASK_DENSE:
            dense.append(words)
            counts.append(0)
        else:
            index += stored.tolist()
            value += words[stored].tolist()
            counts.append(stored.size)
    return forms, dense, index, value, counts


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_batch_encoding_matches_the_one_mask_at_a_time_reference(data):
    import indexc.artifact.mask_encoding as encoding

    vocab_size = data.draw(st.sampled_from([40, 96, 1000, 9000, 20_000]), label="vocab")
    kinds = data.draw(st.lists(st.sampled_from(["few", "spread", "most", "all", "none", "one"]), min_size=1,
                               max_size=12), label="kinds")
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="seed"))
    masks = []
    for kind in kinds:
        if kind == "few":
            ids = rng.choice(vocab_size, size=min(vocab_size, int(rng.integers(1, 40))), replace=False)
        elif kind == "spread":
            ids = np.flatnonzero(rng.random(vocab_size) < rng.random())
        elif kind == "most":
            ids = np.setdiff1d(np.arange(vocab_size), rng.choice(vocab_size, size=int(rng.integers(1, 30))))
        elif kind == "all":
            ids = np.arange(vocab_size)
        elif kind == "one":
            ids = np.array([int(rng.integers(vocab_size))])
        else:
            ids = np.zeros(0, dtype=np.int64)
        masks.append(np.sort(ids).astype(data.draw(st.sampled_from([np.int32, np.int64]), label="dtype")))
    batch_ids = data.draw(st.sampled_from([1, 50, 5_000, encoding.BATCH_IDS]), label="batch")
    long_batch = data.draw(st.sampled_from([1, 2, encoding.LONG_BATCH_MASKS]), label="long batch")
    original = encoding.BATCH_IDS, encoding.LONG_BATCH_MASKS
    # several batches, masks longer than a batch, long masks alone or together
    encoding.BATCH_IDS, encoding.LONG_BATCH_MASKS = batch_ids, long_batch
    try:
        encoded = encode_masks(masks, vocab_size)
    finally:
        encoding.BATCH_IDS, encoding.LONG_BATCH_MASKS = original
    forms, dense, index, value, counts = _encode_one_by_one(masks, vocab_size)
    assert encoded.form.tolist() == forms
    assert encoded.dense.tolist() == [row.tolist() for row in dense]
    dense_ranks = iter(range(len(dense)))
    assert encoded.dense_row.tolist() == [next(dense_ranks) if form == MASK_DENSE else -1 for form in forms]
    assert encoded.word_index.tolist() == index and encoded.word_value.tolist() == value
    assert np.diff(encoded.word_offsets).tolist() == counts
    assert encoded.forced_token.tolist() == [int(m[0]) if m.size == 1 else -1 for m in masks]
    assert encoded.word_index.dtype == np.int64 and encoded.word_value.dtype == np.uint32


def test_given_bitset_rows_encode_like_the_ids():
    """``MaskTable.mask_rows``: a long mask encoded from the mask stage's row gives the sections
    its ids give; a row of the wrong width or with bits past the vocabulary is refused."""
    import indexc.artifact.mask_encoding as encoding

    vocab_size = 20_000
    rng = np.random.default_rng(7)
    masks = [np.flatnonzero(rng.random(vocab_size) < p) for p in (0.9, 0.5, 0.999, 0.3)] + [np.array([3, 9])]
    rows = {i: mask_to_words(ids, vocab_size) for i, ids in enumerate(masks) if ids.size > encoding.SHORT_MASK_IDS}
    assert len(rows) == 4
    with_rows, without = encode_masks(masks, vocab_size, rows), encode_masks(masks, vocab_size)
    assert all(np.array_equal(a, b) and a.dtype == b.dtype
               for a, b in zip(with_rows.sections().values(), without.sections().values()))
    with pytest.raises(ValueError, match="mask 0: a bitset row"):
        encode_masks(masks, vocab_size, {0: rows[0][:-1]})
    past_the_end = rows[1].copy()
    past_the_end[-1] |= np.uint32(1 << 31)  # id 19,999, outside a vocabulary of 19,999 (same width)
    with pytest.raises(ValueError, match="mask 0: a bitset row"):
        encode_masks([masks[1]], vocab_size - 1, {0: past_the_end})

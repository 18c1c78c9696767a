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

"""``indexc.vocab.greedy_tokens``: longest-match ids, the warm-up walk's cut of its text."""

from __future__ import annotations

from indexc.vocab.greedy_tokens import greedy_token_ids
from indexc.vocab.load import vocabulary_from_tokens

VOCAB = vocabulary_from_tokens([b"<eos>", b"{", b"{\"", b"\"", b"a", b"ab", b"abc", b"b", b"c", b"\":", b" "],
                               eos_ids=[0])


def test_each_position_takes_its_longest_token():
    ids = greedy_token_ids(VOCAB, b'{"abcab": a', limit=100).tolist()
    assert [VOCAB.token_bytes[i] for i in ids] == [b"{\"", b"abc", b"ab", b"\":", b" ", b"a"]


def test_the_limit_and_an_unknown_byte_stop_it():
    assert len(greedy_token_ids(VOCAB, b"abcabcabc", limit=2)) == 2
    assert [VOCAB.token_bytes[i] for i in greedy_token_ids(VOCAB, b"ab?c", limit=10)] == [b"ab"]


def test_special_tokens_are_never_used():
    special = vocabulary_from_tokens([b"<eos>", b"x"], eos_ids=[0])
    assert greedy_token_ids(special, b"<eos>x", limit=10).size == 0


def test_a_long_token_is_found_past_the_short_ones_of_its_first_two_bytes():
    vocab = vocabulary_from_tokens([b"<eos>", b"a", b"b", b"ab", b"abcdefgh", b"bc", b"c", b"d", b"      ", b" "],
                                   eos_ids=[0])
    ids = greedy_token_ids(vocab, b"abcdefghabcd       b", limit=100).tolist()
    assert [vocab.token_bytes[i] for i in ids] == [b"abcdefgh", b"ab", b"c", b"d", b"      ", b" ", b"b"]

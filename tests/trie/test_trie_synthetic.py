"""The trie of hand-made and generated vocabularies against the naive recursive reference."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from naive_trie import assert_matches_naive, assert_structure_consistent, assert_tokens_at_their_bytes
from synthetic import SEED_000_TOKENS, synthetic_vocab

from indexc.trie import NO_TOKEN, build_trie
from indexc.vocab.model import TokenKind


def check_all(tokens, kinds=None):
    vocab = synthetic_vocab(tokens, kinds)
    trie = build_trie(vocab)
    assert_structure_consistent(trie, vocab)
    assert_tokens_at_their_bytes(trie, vocab)
    assert_matches_naive(trie, vocab)
    return trie


def test_seed_000_example_has_the_documented_pop_counts():
    trie = check_all(SEED_000_TOKENS)
    prefixes = [trie.prefix_of(p) for p in range(trie.n_nodes)]
    assert prefixes == [b"", b"a", b"ax", b"ay", b"aya", b"ayb", b"az", b"aza", b"b", b"c"]
    assert trie.num_parents.tolist() == [0, 1, 1, 1, 1, 2, 2, 3, 1, 1]
    assert trie.subtree_size.tolist() == [10, 7, 1, 3, 1, 1, 2, 1, 1, 1]
    assert trie.token_id[trie.node_of(b"ay")] == NO_TOKEN
    assert trie.token_id[trie.node_of(b"aza")] == SEED_000_TOKENS.index(b"aza")
    assert sorted(trie.tokens_in_subtree(trie.node_of(b"ay")).tolist()) == [6, 7]


def test_duplicate_bytes_share_one_node_and_token_id_is_the_smallest():
    trie = check_all([b"ab", b"x", b"ab", b"a", b"ab"])
    node = trie.node_of(b"ab")
    assert trie.tokens_at(node).tolist() == [0, 2, 4]
    assert trie.token_id[node] == 0
    assert trie.n_nodes == 4  # root, a, ab, x


def test_a_token_that_is_a_prefix_of_another_is_an_inner_node():
    trie = check_all([b"abc", b"ab", b"abcd", b"a"])
    assert trie.n_nodes == 5
    assert [trie.token_id[trie.node_of(t)] for t in (b"a", b"ab", b"abc", b"abcd")] == [3, 1, 0, 2]
    assert trie.tokens_in_subtree(trie.node_of(b"ab")).tolist() == [1, 0, 2]


def test_every_single_byte_including_0x00_and_0xff():
    tokens = [bytes([b]) for b in range(255, -1, -1)]
    trie = check_all(tokens + [b"\x00\x00", b"\xff\xff", b"\x00\xff"])
    assert trie.n_nodes == 1 + 256 + 3
    assert trie.byte[trie.children_of(0)].tolist() == list(range(256))
    assert trie.node_of(b"\x00") == 1 and trie.node_of(b"\x00\x00") == 2 and trie.node_of(b"\x00\xff") == 3


def test_a_string_and_its_zero_extension_stay_distinct():
    """Zero padding in the sort keys must not make b"a" and b"a\\x00" equal."""
    trie = check_all([b"a\x00", b"a", b"a\x00\x00\x00\x00\x00\x00\x00", b"a\x00\x00\x00\x00\x00\x00"])
    assert trie.n_nodes == 1 + 8


def test_long_tokens_sharing_prefixes_across_sort_chunks():
    base = bytes(range(40, 70))
    tokens = [base[:k] for k in range(1, 31)] + [base[:13] + b"!" + base[14:], base[:7] + b"\x00", base * 3]
    check_all(tokens)


def test_special_tokens_holes_and_empty_tokens_are_not_in_the_trie():
    kinds = [TokenKind.NORMAL, TokenKind.SPECIAL, TokenKind.HOLE, TokenKind.BYTE, TokenKind.USER, TokenKind.NORMAL]
    trie = check_all([b"ab", b"<s>", b"", b"\x80", b"user", b""], kinds)
    assert sorted(trie.sorted_tokens.tolist()) == [0, 3, 4]
    assert trie.node_of(b"<s>") == -1


@pytest.mark.parametrize("tokens", [[], [b""], [b"", b""]])
def test_no_text_tokens_gives_a_root_only_trie(tokens):
    trie = check_all(tokens)
    assert trie.n_nodes == 1 and trie.n_tokens == 0 and trie.max_depth == 0
    assert trie.children.size == 0 and trie.token_id.tolist() == [NO_TOKEN]
    assert trie.nbytes > 0


def test_nbytes_counts_every_array():
    trie = build_trie(synthetic_vocab(SEED_000_TOKENS))
    arrays = [v for v in vars(trie).values() if isinstance(v, np.ndarray)]
    assert trie.nbytes == sum(a.nbytes for a in arrays)


def test_lookups():
    trie = build_trie(synthetic_vocab(SEED_000_TOKENS))
    assert trie.node_of(b"") == 0
    assert trie.node_of(b"q") == -1 and trie.node_of(b"azz") == -1
    assert trie.child(trie.node_of(b"a"), ord("y")) == trie.node_of(b"ay")
    assert trie.prefix_of(trie.node_of(b"ayb")) == b"ayb"


small_alphabet = st.sampled_from([0x00, 0x01, 0x61, 0x62, 0xFE, 0xFF])
token_bytes = st.one_of(
    st.binary(max_size=4),
    st.lists(small_alphabet, max_size=24).map(bytes),
)
token_kind = st.sampled_from([TokenKind.NORMAL, TokenKind.NORMAL, TokenKind.BYTE, TokenKind.USER, TokenKind.SPECIAL, TokenKind.HOLE])


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(token_bytes, token_kind), max_size=40))
def test_generated_vocabularies_match_the_naive_trie(pairs):
    check_all([b for b, _ in pairs], [k for _, k in pairs])

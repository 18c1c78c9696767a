"""The trie of every bundled tokenizer: structure, token placement, naive reference, walks."""

from __future__ import annotations

import pytest
from naive_trie import (
    assert_matches_naive,
    assert_structure_consistent,
    assert_tokens_at_their_bytes,
    text_token_ids,
)
from walk_checks import assert_walks_correctly

from indexc.trie import ByteFilter, walk_tokens

BUNDLED = ["gpt2", "llama3", "qwen2", "mistral", "t5"]  # every tokenizer in tests/data/tokenizers

pytestmark = pytest.mark.parametrize("name", BUNDLED)


def test_structure_is_consistent(bundled_trie, name):
    vocab, trie = bundled_trie(name)
    assert trie.n_tokens > 1000
    assert_structure_consistent(trie, vocab)


def test_every_text_token_is_at_the_node_of_its_bytes(bundled_trie, name):
    vocab, trie = bundled_trie(name)
    assert_tokens_at_their_bytes(trie, vocab)


def test_matches_the_naive_recursive_trie(bundled_trie, name):
    vocab, trie = bundled_trie(name)
    assert_matches_naive(trie, vocab)


def test_walk_with_everything_allowed_reaches_every_token(bundled_trie, name):
    vocab, trie = bundled_trie(name)
    assert walk_tokens(trie, ByteFilter(lambda b: True)).tolist() == text_token_ids(vocab)


def test_walk_without_the_space_byte_reaches_exactly_the_tokens_without_it(bundled_trie, name):
    vocab, trie = bundled_trie(name)
    assert_walks_correctly(trie, vocab, {ord(" ")})

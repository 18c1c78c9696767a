"""The trie of every bundled tokenizer: structure, token placement, naive reference, walks."""

from __future__ import annotations

import pytest
from conftest import BUNDLED
from naive_trie import (
    assert_matches_naive,
    assert_structure_consistent,
    assert_tokens_at_their_bytes,
    text_token_ids,
)
from test_trie_walk import assert_walks_correctly

from indexc.trie import ByteFilter, walk_tokens

pytestmark = pytest.mark.parametrize("name", BUNDLED)


def test_structure_is_consistent(bundled, name):
    vocab, trie = bundled(name)
    assert trie.n_tokens > 1000
    assert_structure_consistent(trie, vocab)


def test_every_text_token_is_at_the_node_of_its_bytes(bundled, name):
    vocab, trie = bundled(name)
    assert_tokens_at_their_bytes(trie, vocab)


def test_matches_the_naive_recursive_trie(bundled, name):
    vocab, trie = bundled(name)
    assert_matches_naive(trie, vocab)


def test_walk_with_everything_allowed_reaches_every_token(bundled, name):
    vocab, trie = bundled(name)
    assert walk_tokens(trie, ByteFilter(lambda b: True)).tolist() == text_token_ids(vocab)


def test_walk_without_the_space_byte_reaches_exactly_the_tokens_without_it(bundled, name):
    vocab, trie = bundled(name)
    assert_walks_correctly(trie, vocab, {ord(" ")})

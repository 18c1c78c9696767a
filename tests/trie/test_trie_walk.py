"""Seed 000's non-recursive walk: reach exactly the tokens a recognizer accepts, keep its stack right."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from synthetic import SEED_000_TOKENS, synthetic_vocab
from walk_checks import assert_walks_correctly

from indexc.trie import ByteFilter, StateStack, build_trie, walk_nodes, walk_tokens


def test_everything_allowed_reaches_every_node_and_token():
    vocab = synthetic_vocab(SEED_000_TOKENS)
    trie = build_trie(vocab)
    byte_filter = ByteFilter(lambda b: True)
    assert walk_nodes(trie, byte_filter).tolist() == list(range(1, trie.n_nodes))
    assert byte_filter.depth == 0
    assert_walks_correctly(trie, vocab, set())


@pytest.mark.parametrize("forbidden", [{ord("a")}, {ord("y")}, {ord("z")}, {ord("c")}, {ord("a"), ord("b"), ord("c")}])
def test_forbidding_bytes_reaches_exactly_the_tokens_without_them(forbidden):
    vocab = synthetic_vocab(SEED_000_TOKENS)
    assert_walks_correctly(build_trie(vocab), vocab, forbidden)


def test_walk_with_a_dfa_matches_running_each_token():
    """A recognizer with real state: "digits, then at most one dot, then digits"."""
    tokens = [b"1", b"12", b"1.", b"1.5", b".", b"..", b"1.2.", b"a", b"9", b"99.9", b"0.x"]
    vocab = synthetic_vocab(tokens)

    def step(seen_dot: bool, b: int) -> bool | None:
        if 0x30 <= b <= 0x39:
            return seen_dot
        if b == ord(".") and not seen_dot:
            return True
        return None

    def alive(token: bytes) -> bool:
        state: bool | None = False
        for b in token:
            state = step(state, b)
            if state is None:
                return False
        return True

    got = walk_tokens(build_trie(vocab), StateStack(step, False)).tolist()
    assert got == [i for i, t in enumerate(tokens) if alive(t)]


def test_popping_more_than_was_pushed_is_an_error():
    with pytest.raises(ValueError):
        ByteFilter(lambda b: True).pop_bytes(1)
    with pytest.raises(ValueError):
        StateStack(lambda s, b: s, 0).pop_bytes(1)


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.lists(st.sampled_from(b"ab\x00\xff"), max_size=10).map(bytes), max_size=30),
    st.sets(st.sampled_from(b"ab\x00\xff"), max_size=2),
)
def test_generated_walks(tokens, forbidden):
    vocab = synthetic_vocab(tokens)
    assert_walks_correctly(build_trie(vocab), vocab, set(forbidden))

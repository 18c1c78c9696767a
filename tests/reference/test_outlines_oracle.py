"""The outlines-core helper builds, sizes and walks indexes, and shows why it is no oracle."""

from __future__ import annotations

import pickle

import pytest

from .llguidance_oracle import LlgOracle
from .outlines_oracle import OutlinesError, OutlinesOracle

SMALL = [b"1", b".", b"2", b"a", b"ab", b"b", None]  # id 6: EOS
EOS = 6


@pytest.fixture(scope="module")
def small() -> OutlinesOracle:
    return OutlinesOracle.from_token_bytes(SMALL, eos_id=EOS)


def test_drops_tokens_that_leave_an_accepting_state(small):
    index = small.index(r"1(\.2)?")
    assert index.allowed_ids(index.initial_state).tolist() == [0]
    after_one = index.next_state(index.initial_state, 0)
    assert index.is_final(after_one)
    assert index.allowed_ids(after_one).tolist() == [EOS]  # the exact mask also has "."


def test_alternation_never_produces_the_longer_branch(small):
    index = small.index("a|ab")
    assert index.allowed_ids(index.initial_state).tolist() == [3]  # exact: "a" and "ab"
    assert not index.accepts([4])
    assert index.accepts([3])


def test_serialized_size_is_the_pickled_blob(small):
    index = small.index(r"[ab]{1,3}")
    assert index.serialized_bytes > 0
    assert len(pickle.dumps(index.index)) >= index.serialized_bytes  # in memory only
    assert index.n_states >= 4
    assert index.build_ms >= 0.0


def test_gpt2_index_accepts_its_own_tokenization():
    oracle = OutlinesOracle("gpt2")
    assert oracle.eos_id == 50256
    index = oracle.index(r"\d{3}-\d{2}-\d{4}")
    tokens = LlgOracle("gpt2").tokenize("123-45-6789")
    assert index.accepts(tokens)
    assert not index.accepts(tokens[:-1])


def test_refused_regex_is_a_typed_error(small):
    with pytest.raises(OutlinesError):
        small.index("(")

"""Jump-forward and speculative decoding: forced bytes, fast-forward tokens, validate_tokens, rollback.

The oracle for jump-forward is llguidance with forcing on (its default): on random walks through
Llama-3 artifacts, ``forced_bytes`` must equal its ``compute_ff_bytes`` and
``fast_forward_tokens`` (given llguidance's own tokenization of the forced bytes) its
``compute_ff_tokens``, which applies the back-off rule of its ``docs/fast_forward.md``.  The two
examples of that document are checked by name.  ``validate_tokens`` is checked against
advancing a second matcher, token by token.
"""

from __future__ import annotations

import random

import llguidance
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import handmade
import indexc_runtime
from indexc.pipeline import compile_regex, write
from indexc.trie.cache import load_vocabulary_and_trie
from tests.reference.llguidance_oracle import LlgOracle

LLAMA3_STOPS = (128001, 128009)  # <|end_of_text|>, <|eot_id|>
JUMP_REGEXES = [
    r'\{"(orderId|orderName)":"[a-z]*"\}',
    r'\{"name_of_the_person"\s*:\s*"[a-z]+"\}',
    r"(January|February|March) \d{1,2}, 20\d\d",
    r'\{"id": \d{1,3}, "status": "(active|inactive|pending_review)"\}',
    r"(https?://)?www\.example\.(com|org)/[a-z]{1,8}",
]


@pytest.fixture(scope="module")
def llama3(bundled_tokenizer):
    path = bundled_tokenizer("llama3")
    vocab, trie, _ = load_vocabulary_and_trie(path, eos_ids=LLAMA3_STOPS)
    oracle = LlgOracle(path, eos_ids=LLAMA3_STOPS)
    return vocab, trie, oracle


@pytest.fixture(scope="module")
def compiled(llama3, tmp_path_factory):
    """pattern -> a loader of its Llama-3 artifact."""
    vocab, trie, _ = llama3
    folder = tmp_path_factory.mktemp("jump")
    paths = {}
    for number, pattern in enumerate(JUMP_REGEXES):
        paths[pattern] = folder / f"{number}.idx"
        write(compile_regex(pattern, vocab, trie), vocab, str(paths[pattern]))
    return lambda pattern: indexc_runtime.load(paths[pattern], expected_fingerprint=vocab.fingerprint)


def tokenizer_of(oracle: LlgOracle):
    return lambda data: list(oracle.tokenizer.tokenize_bytes(data))


def walked(index, oracle, text: str):
    matcher = index.matcher()
    for token in oracle.tokenize(text):
        matcher.advance(token)
    return matcher


def test_the_documents_order_example_backs_off_everything(compiled, llama3):
    """After ``{"`` the constraint forces ``order``, but ``orderId`` is one token: force nothing."""
    oracle = llama3[2]
    matcher = walked(compiled(JUMP_REGEXES[0]), oracle, '{"')
    assert matcher.forced_bytes() == b"order"
    assert matcher.fast_forward_tokens(tokenizer_of(oracle)) == []
    assert matcher.fast_forward_tokens() == []  # the greedy tokenization backs off the same way


def test_the_documents_person_example_backs_off_only_the_quote(compiled, llama3):
    """``name_of_the_person"`` tokenizes to name _of _the _person "; ``":`` may follow, so the quote goes."""
    vocab, _, oracle = llama3
    matcher = walked(compiled(JUMP_REGEXES[1]), oracle, '{"')
    assert matcher.forced_bytes() == b'name_of_the_person"'
    tokens = matcher.fast_forward_tokens(tokenizer_of(oracle))
    assert b"".join(vocab.token_bytes[t] for t in tokens) == b"name_of_the_person"
    assert len(tokens) == 4
    assert matcher.fast_forward_tokens(tokenizer_of(oracle), max_tokens=0)[-1] == oracle.tokenize('"')[0]
    assert matcher.num_tokens == 1  # asking moved nothing


@pytest.mark.parametrize("pattern", JUMP_REGEXES)
def test_forced_bytes_and_fast_forward_tokens_agree_with_llguidance(compiled, llama3, pattern):
    _, _, oracle = llama3
    index = compiled(pattern)
    rng = random.Random(pattern)
    grammar = f"start: /{llguidance.regex_to_lark(pattern, '')}/\n"  # llguidance's default: forcing on
    positions = 0
    for _ in range(3):
        matcher = index.matcher()
        reference = llguidance.LLMatcher(oracle.tokenizer, grammar, log_level=0)
        for _ in range(12):
            assert matcher.forced_bytes() == reference.compute_ff_bytes()
            assert matcher.fast_forward_tokens(tokenizer_of(oracle)) == reference.compute_ff_tokens()
            positions += 1
            choices = np.setdiff1d(matcher.allowed_token_ids(), LLAMA3_STOPS)
            if not choices.size or (matcher.is_accepting() and rng.random() < 0.3):
                break
            token = int(rng.choice(choices.tolist()))
            matcher.advance(token)
            assert reference.consume_token(token)
    assert positions >= 6


def test_appending_the_fast_forward_tokens_keeps_the_walk_valid(compiled, llama3):
    """A server appends them with advance: every one is allowed, and the text stays in the language."""
    vocab, _, oracle = llama3
    matcher = walked(compiled(JUMP_REGEXES[3]), oracle, '{"id": 7')
    text = b'{"id": 7'
    for _ in range(4):
        for token in matcher.fast_forward_tokens(tokenizer_of(oracle)) or [int(matcher.allowed_token_ids()[0])]:
            matcher.advance(token)
            text += vocab.token_bytes[token]
    assert text.startswith(b'{"id": 7, "status": "')


def test_forced_bytes_stop_where_the_text_may_end_or_branch(tmp_path):
    path = tmp_path / "forced.idx"
    handmade.write_handmade(path, handmade.FORCED, handmade.LETTER_TOKENS, (4,), "forced")  # abc(d|e)
    matcher = indexc_runtime.load(path).matcher()
    assert matcher.forced_bytes() == b"abc"  # d and e share a class of two bytes: a choice
    assert matcher.fast_forward_tokens() == [0, 1, 2]  # no token runs past "abc": nothing to back off
    for token in (0, 1, 2, 3):
        matcher.advance(token)
    assert matcher.forced_bytes() == b"" and matcher.fast_forward_tokens() == []  # accepting
    matcher.advance(4)
    assert matcher.is_finished() and matcher.forced_bytes() == b""


def test_a_tokenization_that_leaves_the_forced_bytes_is_cut_where_it_does(tmp_path):
    path = tmp_path / "forced.idx"
    handmade.write_handmade(path, handmade.FORCED, handmade.LETTER_TOKENS, (4,), "forced")
    matcher = indexc_runtime.load(path).matcher()
    assert matcher.fast_forward_tokens(lambda data: [0, 2, 1]) == [0]  # "c" is not allowed after "a"
    assert matcher.fast_forward_tokens(lambda data: [4, 0]) == []  # eos first: nothing


# ---- validate_tokens and rollback (speculative decoding) ----

NUMBER_IDS = st.integers(min_value=0, max_value=len(handmade.NUMBER_TOKENS) + 2)


@settings(max_examples=80, deadline=None)
@given(prefix=st.lists(NUMBER_IDS, max_size=4), draft=st.lists(NUMBER_IDS, max_size=8))
def test_validate_tokens_counts_what_advance_would_accept(number_artifact_data, prefix, draft):
    index = indexc_runtime.load(number_artifact_data)
    matcher, reference = index.matcher(), index.matcher()
    for token in prefix:
        if matcher.validate_tokens([token]) == 1:
            matcher.advance(token)
            reference.advance(token)
    state, finished, count = matcher.state, matcher.is_finished(), 0
    for token in draft:
        try:
            reference.advance(token)
        except indexc_runtime.TokenNotAllowed:
            break
        count += 1
    assert matcher.validate_tokens(draft) == count
    assert (matcher.state, matcher.is_finished()) == (state, finished)  # nothing moved


def test_speculative_decoding_validate_accept_then_roll_back_the_rejected(number_index):
    token_of = {raw: i for i, raw in enumerate(handmade.NUMBER_TOKENS) if raw is not None}
    matcher = number_index.matcher()
    draft = [token_of[b"-"], token_of[b"12"], token_of[b"."], token_of[b"5"], token_of[b"a"]]
    accepted = matcher.validate_tokens(draft)
    assert accepted == 4
    states = []
    for token in draft[:accepted]:
        matcher.advance(token)
        states.append(matcher.state)
    matcher.rollback(2)  # the model kept two of the four
    assert matcher.state == states[1] and matcher.num_tokens == 2
    assert matcher.validate_tokens([token_of[b".."]]) == 0 and matcher.validate_tokens([token_of[b"345"]]) == 1


@pytest.fixture(scope="module")
def number_artifact_data(tmp_path_factory) -> bytes:
    path = tmp_path_factory.mktemp("number") / "number.idx"
    handmade.write_handmade(path, handmade.NUMBER, handmade.NUMBER_TOKENS, handmade.NUMBER_EOS, "number")
    return path.read_bytes()

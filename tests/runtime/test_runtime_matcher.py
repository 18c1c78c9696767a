"""Matcher behaviour on hand-built tables, against the brute-force masks and DFA runs of ``handmade``."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import handmade
import indexc_runtime
from indexc_runtime import TokenNotAllowed

TOKENS, EOS = handmade.NUMBER_TOKENS, handmade.NUMBER_EOS
EXPECTED = handmade.brute_force_masks(handmade.NUMBER, TOKENS, EOS)
TOKEN_ID = {raw: i for i, raw in enumerate(TOKENS) if raw is not None}


def fresh_bitmask(index, rows: int = 1) -> np.ndarray:
    # garbage everywhere, so a fill that forgets a word is caught
    return np.full((rows, index.mask_words), 0x5A5A5A5A, dtype=np.int32)


def test_every_state_mask_is_the_brute_force_mask(number_index):
    assert number_index.n_states == handmade.NUMBER.n_states
    for state in range(number_index.n_states):
        assert set(number_index.state_token_ids(state).tolist()) == EXPECTED[state]


def test_fill_bitmask_sets_exactly_the_allowed_bits_and_nothing_beyond_the_vocabulary(number_index):
    out = fresh_bitmask(number_index, rows=3)
    matcher = number_index.matcher()
    matcher.fill_bitmask(out, row=1)
    assert handmade.bitmask_to_ids(out[1]) == EXPECTED[0]
    assert out.shape[1] == 2 and int(out[1, 1]) & ~0xFF == 0  # ids 40..63 do not exist
    assert (out[0] == 0x5A5A5A5A).all() and (out[2] == 0x5A5A5A5A).all()  # other rows untouched


def test_advance_follows_the_dfa_and_masks_follow_the_state(number_index):
    matcher = number_index.matcher()
    out = fresh_bitmask(number_index)
    for raw in [b"-", b"12", b".", b"5"]:
        matcher.advance(TOKEN_ID[raw])
    assert matcher.state == 4 and matcher.is_accepting()
    matcher.fill_bitmask(out)
    assert handmade.bitmask_to_ids(out[0]) == EXPECTED[4]
    assert set(matcher.allowed_token_ids().tolist()) == EXPECTED[4]


def test_a_refused_token_raises_with_id_and_state_and_changes_nothing(number_index):
    matcher = number_index.matcher()
    matcher.advance(TOKEN_ID[b"-"])
    for token, reason in [(TOKEN_ID[b"a"], "not in this state's mask"), (TOKEN_ID[b"."], "not in this state's mask"),
                          (1, "end-of-sequence"), (0, "special"), (39, "special"), (40, "outside the vocabulary"),
                          (-1, "outside the vocabulary")]:
        with pytest.raises(TokenNotAllowed, match=f"token {token} is not allowed in state 1: .*{reason}") as caught:
            matcher.advance(token)
        assert caught.value.token_id == token and caught.value.state == 1
        assert matcher.state == 1 and not matcher.is_finished()
    matcher.rollback(1)
    assert matcher.state == 0


def test_eos_finishes_the_matcher_only_in_accepting_states(number_index):
    matcher = number_index.matcher()
    matcher.advance(TOKEN_ID[b"7"])
    assert matcher.is_accepting()
    matcher.advance(EOS[0])
    assert matcher.is_finished() and matcher.is_accepting() and matcher.state == 2
    out = fresh_bitmask(number_index)
    matcher.fill_bitmask(out)
    assert not out.any()
    assert matcher.allowed_token_ids().size == 0 and matcher.forced_tokens() == []
    with pytest.raises(TokenNotAllowed, match="finished"):
        matcher.advance(TOKEN_ID[b"7"])
    matcher.rollback(1)
    assert not matcher.is_finished() and matcher.state == 2
    matcher.advance(TOKEN_ID[b"7"])


def test_rollback_returns_to_earlier_states_and_refuses_too_much(number_index):
    matcher = number_index.matcher()
    states = [matcher.state]
    for raw in [b"-1", b"2", b".25", b"0"]:
        matcher.advance(TOKEN_ID[raw])
        states.append(matcher.state)
    with pytest.raises(ValueError, match="cannot roll back 5 tokens: 4 accepted"):
        matcher.rollback(5)
    assert matcher.state == states[-1]
    matcher.rollback(2)
    assert matcher.state == states[2]
    matcher.rollback(0)
    matcher.rollback(2)
    assert matcher.state == 0
    matcher.advance(TOKEN_ID[b"9"])
    matcher.reset()
    assert matcher.state == 0 and not matcher.is_finished()
    with pytest.raises(ValueError):
        matcher.rollback(1)


def test_matchers_of_one_index_are_independent(number_index):
    first, second = number_index.matcher(), number_index.matcher()
    first.advance(TOKEN_ID[b"-"])
    assert second.state == 0


def test_fill_bitmasks_fills_row_i_for_matcher_i(number_index):
    matchers = [number_index.matcher() for _ in range(3)]
    matchers[1].advance(TOKEN_ID[b"-"])
    matchers[2].advance(TOKEN_ID[b"3.14"])
    out = fresh_bitmask(number_index, rows=4)
    indexc_runtime.fill_bitmasks(matchers, out)
    assert [handmade.bitmask_to_ids(out[i]) for i in range(3)] == [EXPECTED[0], EXPECTED[1], EXPECTED[4]]
    assert (out[3] == 0x5A5A5A5A).all()
    with pytest.raises(ValueError, match="at least 3 rows"):
        indexc_runtime.fill_bitmasks(matchers, out[:2])


@pytest.mark.parametrize("bad", [
    np.zeros((1, 2), dtype=np.int64),
    np.zeros((1, 3), dtype=np.int32),
    np.zeros(2, dtype=np.int32),
    [[0, 0]],
])
def test_a_wrong_bitmask_buffer_is_refused_with_the_expected_shape(number_index, bad):
    with pytest.raises(ValueError, match=r"int32 numpy array of shape \(batch, 2\)"):
        number_index.matcher().fill_bitmask(bad)


def test_forced_tokens_follow_single_token_states_without_moving(tmp_path):
    path = tmp_path / "forced.idx"
    handmade.write_handmade(path, handmade.FORCED, handmade.LETTER_TOKENS, (4,), "forced")
    matcher = indexc_runtime.load(path).matcher()
    assert matcher.forced_tokens() == [0, 1, 2, 3]  # a b c d, then only eos
    assert matcher.state == 0
    matcher.advance(0)
    assert matcher.forced_tokens() == [1, 2, 3]
    for token in (1, 2, 3):
        matcher.advance(token)
    assert matcher.forced_tokens() == [] and matcher.is_accepting()


def test_forced_tokens_stop_after_one_turn_of_a_cycle(tmp_path):
    path = tmp_path / "cycle.idx"
    handmade.write_handmade(path, handmade.CYCLE, handmade.LETTERS_NO_B, (4,), "cycle")
    matcher = indexc_runtime.load(path).matcher()
    assert matcher.forced_tokens() == [0, 0]  # a, then a again back into state 1: reported once


def test_no_forced_tokens_where_the_mask_has_several(number_index):
    assert number_index.matcher().forced_tokens() == []


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=len(handmade.PADDED_NUMBER_TOKENS) - 1), max_size=8))
def test_random_token_sequences_agree_with_the_dfa(number_artifact_bytes, sequence):
    """Advance accepts a token iff the DFA (or eos rule) allows it; refused tokens change nothing."""
    data, tokens = number_artifact_bytes
    matcher = indexc_runtime.load(data).matcher()
    state, finished = 0, False
    for token in sequence:
        raw = tokens[token] if token < len(tokens) else None
        if finished or token >= len(tokens):
            allowed = False
        elif raw is None:
            allowed = token in EOS and state in handmade.NUMBER.accepting
        else:
            allowed = handmade.NUMBER.run(raw, state) >= 0
        if allowed:
            matcher.advance(token)
            finished = finished or raw is None
            state = state if raw is None else handmade.NUMBER.run(raw, state)
        else:
            with pytest.raises(TokenNotAllowed):
                matcher.advance(token)
        assert (matcher.state, matcher.is_finished()) == (state, finished)


@pytest.fixture(scope="module", params=["token_id", "live_tokens", "shared"])
def number_artifact_bytes(request, tmp_path_factory) -> tuple[bytes, list]:
    """NUMBER written with token class rows by token id (40 ids), by live token (100 ids) and
    shared by class sequence (40 ids)."""
    tokens = handmade.PADDED_NUMBER_TOKENS if request.param == "live_tokens" else TOKENS
    path = tmp_path_factory.mktemp("number") / "number.idx"
    handmade.write_handmade(path, handmade.NUMBER, tokens, EOS, "number", token_layout=request.param)
    data = path.read_bytes()
    assert indexc_runtime.load(data).header["token_class_rows"] == request.param
    return data, tokens


@pytest.mark.parametrize("dict_max", [0, 4_096], ids=["bisection", "dict"])
def test_live_token_rows_are_found_alike_by_dict_and_by_bisection(dict_max, monkeypatch, tmp_path):
    """The live_tokens layout looks ids up in a dict (small layouts) or by bisection (large):
    both give every id its own row, and no row to an id that is not live."""
    from indexc_runtime import tokens as token_rows

    monkeypatch.setattr(token_rows, "LIVE_DICT_MAX", dict_max)
    path = tmp_path / "number.idx"
    handmade.write_handmade(path, handmade.NUMBER, handmade.PADDED_NUMBER_TOKENS, EOS, "number",
                            token_layout="live_tokens")
    index = indexc_runtime.load(path)
    tokens = index._tokens
    live = list(tokens.live)
    assert live and len(live) < len(handmade.PADDED_NUMBER_TOKENS)
    for token in range(index.vocab_size):
        expected = (tokens.offsets[live.index(token)], tokens.offsets[live.index(token) + 1]) if token in live else (0, 0)
        assert tokens.span(token) == expected
    assert isinstance(tokens.live_rows, dict) == (dict_max > 0)
    matcher = index.matcher()  # and advance walks through the same lookup
    for raw in (b"1", b"2", b"."):
        token = TOKEN_ID[raw]
        if matcher.is_accepting() or token in index.state_token_ids(matcher.state).tolist():
            matcher.advance(token)
    assert matcher.num_tokens >= 1

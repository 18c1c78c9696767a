"""The llguidance oracle follows DESIGN.md's exact mask semantics on small, decisive cases."""

from __future__ import annotations

import numpy as np
import pytest

from .llguidance_oracle import LlgOracle, OracleError, TokenRejected, class_differences

SMALL = [b"1", b".", b"2", b"a", b"ab", b"b", None]  # id 6: EOS
EOS = 6


@pytest.fixture(scope="module")
def small() -> LlgOracle:
    return LlgOracle.from_token_bytes(SMALL, eos_ids=[EOS])


@pytest.fixture(scope="module")
def gpt2() -> LlgOracle:
    return LlgOracle("gpt2")


def ids(oracle: LlgOracle, *texts: bytes) -> list[int]:
    return [next(i for i in range(oracle.vocab_size) if oracle.token_bytes(i) == t) for t in texts]


def test_token_leaving_an_accepting_state_is_allowed(small):
    m = small.matcher(r"1(\.2)?")
    assert m.allowed_ids().tolist() == [0]
    m.advance(0)
    assert m.is_accepting()
    assert m.allowed_ids().tolist() == [1, EOS]
    m.advance(1)
    assert not m.is_accepting()
    assert m.allowed_ids().tolist() == [2]


def test_alternation_keeps_the_longer_branch(small):
    m = small.matcher("a|ab")
    assert m.allowed_ids().tolist() == [3, 4]
    m.advance(3)
    assert m.allowed_ids().tolist() == [5, EOS]


def test_dead_end_reports_eos_but_exact_mask_is_empty(small):
    m = small.matcher("1x")
    assert m.allowed_ids().tolist() == [0]
    m.advance(0)
    assert m.allowed_ids().tolist() == [EOS]
    assert m.is_dead_end()
    assert m.exact_allowed_ids().tolist() == []


def test_refused_token_raises(small):
    m = small.matcher("ab")
    with pytest.raises(TokenRejected):
        m.advance(0)


def test_forcing_is_off_with_a_real_tokenizer(gpt2):
    allowed = gpt2.matcher("abcdefgh|abcdxyz").allowed_ids()
    assert sorted(gpt2.token_bytes(i) for i in allowed) == [b"a", b"ab", b"abc"]


def test_gpt2_one_dot_two(gpt2):
    one, dot, eos = ids(gpt2, b"1", b".", b"<|endoftext|>")
    assert gpt2.eos_ids.tolist() == [eos] == [50256]
    m = gpt2.matcher(r"1(\.2)?")
    m.advance(one)
    assert m.allowed_ids().tolist() == [dot, eos]


def test_eos_override_allows_every_listed_id_when_accepting(gpt2):
    oracle = LlgOracle("gpt2", eos_ids=[50256, 0])  # 0 is "!": only for the test
    assert oracle.eos_ids.tolist() == [0, 50256]
    assert set(oracle.matcher("a?").exact_allowed_ids().tolist()) >= {0, 50256}


def test_special_tokens_never_in_a_mask_except_eos(gpt2):
    m = gpt2.matcher(r"(.|\n)*")
    allowed = m.allowed_ids()
    specials_allowed = np.intersect1d(allowed, gpt2.special_ids).tolist()
    assert specials_allowed == [50256]
    assert 187 in gpt2.special_ids.tolist()  # the single byte 0xFF is llguidance's marker
    assert gpt2.token_bytes(ids(gpt2, b"\xc3")[0]) == b"\xc3"
    assert ids(gpt2, b"\xc3")[0] in allowed  # a lead byte can be completed
    assert ids(gpt2, b"\xa9")[0] not in allowed  # a lone continuation byte cannot


def test_edge_anchors_accepted_inner_anchors_refused(gpt2):
    plain = gpt2.matcher("abc").allowed_ids().tolist()
    assert gpt2.matcher("^abc$").allowed_ids().tolist() == plain
    for pattern in ["a^b", "a$b", r"\bab", "a(?=b)"]:
        with pytest.raises(OracleError):
            gpt2.matcher(pattern)


def test_class_differences_with_python_re(gpt2):
    word = class_differences(gpt2, r"\w", range(0x00, 0x400))
    assert "\u0301" in word.only_llguidance  # combining acute accent: a mark
    assert "\u00b2" in word.only_python  # superscript two: category No
    assert not any(c.isascii() for c in word.only_llguidance + word.only_python)
    space = class_differences(gpt2, r"\s", range(0x00, 0x100))
    assert space == type(space)("", "\x1c\x1d\x1e\x1f")


def test_unreadable_tokenizer_is_a_typed_error():
    with pytest.raises(OracleError):
        LlgOracle("t5")


def test_added_tokens_not_marked_special_are_still_special_in_llguidance():
    qwen2 = LlgOracle("qwen2")
    tool_call = 151657  # "<tool_call>": "special": false in tokenizer.json
    assert qwen2.token_bytes(tool_call) == b"<tool_call>"
    assert tool_call in qwen2.special_ids.tolist()
    assert tool_call not in qwen2.matcher(r"(.|\n)*").allowed_ids().tolist()

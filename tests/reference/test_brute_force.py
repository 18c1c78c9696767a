"""The brute-force reference: decisive small cases, partial UTF-8, and agreement with two
independent engines (Python's ``re`` on whole strings, llguidance on masks)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from .brute_force import BruteForceError, BruteForceReference, brute_force_mask
from .llguidance_oracle import LlgOracle

E_ACUTE = "é".encode()  # C3 A9
TOKENS = [b"1", b".", b"2", b"a", b"ab", b"b", b"-", b"a-", b"12", b".2", b"1.",
          E_ACUTE, b"\xc3", b"\xa9", E_ACUTE + b"a", b"\xff", b"\xf0\x9f", b"\x98\x80", b"x", None]
EOS = len(TOKENS) - 1

PATTERNS = [r"1(\.2)?", r"a|ab", r"(ab|1)*-", r"[ab]{2,5}", r"a*b*1?", r"é+a?", r"[^a]*",
            r".{0,3}", r"[0-9]+(\.[0-9]+)?", r"(a|ab)(c|bcd)?", r"x|😀", r"[a-zé]+-?"]


def ids(*texts: bytes) -> list[int]:
    return sorted(TOKENS.index(t) for t in texts)


def test_tokens_leaving_an_accepting_state_are_allowed():
    assert brute_force_mask(r"1(\.2)?", TOKENS, [EOS], prefix=b"1").tolist() == ids(b".", b".2") + [EOS]
    assert brute_force_mask("a|ab", TOKENS, [EOS]).tolist() == ids(b"a", b"ab")


def test_partial_characters_across_tokens():
    ref = BruteForceReference("é+a?")
    assert ref.allowed(TOKENS, [EOS]).tolist() == ids(E_ACUTE, b"\xc3", E_ACUTE + b"a")
    assert ref.allowed(TOKENS, [EOS], prefix=b"\xc3").tolist() == ids(b"\xa9")
    assert ref.allowed(TOKENS, [EOS], prefix=E_ACUTE).tolist() == ids(b"a", E_ACUTE, b"\xc3", E_ACUTE + b"a") + [EOS]


def test_anything_else_and_invalid_utf8():
    ref = BruteForceReference("[^a]")
    assert ref.is_viable(b"\xf0\x9f")  # the start of an emoji: not "a"
    assert not ref.is_viable(b"\xff")  # never UTF-8
    assert not ref.is_viable(b"\xed\xa0")  # a surrogate's prefix
    assert not ref.is_viable(b"\xe0\x80")  # overlong
    assert not ref.is_viable(b"\xa9")  # a stray continuation byte
    assert not BruteForceReference("x|😀").is_viable(b"\xf0\x9e")  # completions exclude 😀


def test_dead_prefix_allows_nothing():
    assert brute_force_mask("ab", TOKENS, [EOS], prefix=b"b").tolist() == []


def test_class_escapes_are_ascii_unlike_llguidance(llg):
    """The documented restriction: interegular's \\d is [0-9]; Unicode's has U+1FBF0..9 (F0 9F BF B0..)."""
    assert TOKENS.index(b"\xf0\x9f") in llg.matcher(r"\d").exact_allowed_ids().tolist()
    assert not BruteForceReference(r"\d").is_viable(b"\xf0\x9f")


def test_unparseable_pattern_is_a_typed_error():
    with pytest.raises(BruteForceError):
        BruteForceReference("^a")


@settings(max_examples=150, deadline=None)
@given(pattern=st.sampled_from(PATTERNS), text=st.text(alphabet="12.ab-xé", max_size=6))
def test_accepts_matches_python_re(pattern, text):
    assert BruteForceReference(pattern).accepts(text.encode()) == (re.fullmatch(pattern, text) is not None)


@pytest.fixture(scope="module")
def llg() -> LlgOracle:
    return LlgOracle.from_token_bytes(TOKENS, eos_ids=[EOS])


@pytest.mark.parametrize("pattern", PATTERNS)
def test_masks_agree_with_llguidance_along_walks(pattern, llg):
    """Every walk of up to two tokens: brute force and llguidance give the same exact mask."""
    ref = BruteForceReference(pattern)
    start = llg.matcher(pattern)
    first = ref.allowed(TOKENS, [EOS])
    assert start.exact_allowed_ids().tolist() == first.tolist()
    for token in (t for t in first.tolist() if t != EOS):
        walk = llg.matcher(pattern)
        walk.advance(token)
        assert walk.exact_allowed_ids().tolist() == ref.allowed(TOKENS, [EOS], prefix=TOKENS[token]).tolist(), token

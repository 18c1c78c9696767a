"""Differential tests: ``compile_regex(p).matches(s.encode())`` == ``re.fullmatch(p, s)``.

Strings come from three sources per pattern: short strings over an alphabet made of the
pattern's own characters plus awkward Unicode (hypothesis), strings the regex itself
generates (``st.from_regex(..., fullmatch=True)``), and those strings mutated by one edit
(so near-misses are tested, not only members).
"""

from __future__ import annotations

import re
from functools import cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from indexc.automaton import compile_regex
from tests.automaton.helpers import bench_patterns

AWKWARD = "\n \t\u0085\u00a0\u2028\u3000é\u0130\u0131\u017f\u212a\u0345ß٣𝟘😀\x00\x7f\u07ff\u0800\uffff"

OWN_PATTERNS = [
    r"a|ab",
    r"1(\.2)?",
    r"\d+",
    r"\w+",
    r"\s*x\s*",
    r"[^a-z]+",
    r"[^\W\d]+",
    r"\D\W\S",
    r".{2,4}",
    r"(?s).{1,3}",
    r"[\u00e0-\u00ff]+",
    r"\u00e9|\U0001F600|\x41\101\0|\N{EM DASH}",
    r"(foo|bar|baz|qux){1,3}",
    r"(alpha|beta|gamma|delta|epsilon|zeta|eta|theta|iota|kappa|lambda|mu|nu|xi|omicron|pi)",
    r"a{0,5}",
    r"(ab){2,}",
    r"(a|b)*a(a|b){3}",
    r"colou?r",
    r"x*?y+?z??(ab){1,2}?",
    r"(?:ab)+(?P<tail>c|d)",
    r"The quick brown fox jumps over the lazy dog\.",
    r"a*",
    r"(a|)",
    r"()",
    r"(|b)c?",
    r"[\]\-^]+",
    r"[]a]",
    r"[a-]+",
    r"[^]]",
    r"x{|a{,2}|{}|a{1}b{2,}c{,3}",
    r"^abc$",
    r"\Aab\Z",
    r"^a|^b$",
    r"(^a|b)c",
    r"[\d\s]+[^\d\s]",
    r"[\w.-]+@[\w-]+\.\w{2,}",
    r"(?i)hello",
    r"(?i)[a-f]+",
    r"(?i:s)K",
    r"(?i)[^k]",
    r"a(?i:b)c",
    r"(?s:.)a.",
    r"(?#comment)x",
    r"\[\](\{\})*",
    r"[\x00-\x7f]*",
    r"[^\x00-\x7f]+",
    r"\$\^\.\*",
    r"(東京|大阪|京都|名古屋|札幌|Αθήνα|Москва|Zürich|São Paulo|København|İzmir|Ørsted)+",
]


@cache
def compiled(pattern: str):
    return compile_regex(pattern)


@cache
def language(pattern: str) -> st.SearchStrategy[str]:
    """Strings of the regex's language (the strategy is built once per pattern)."""
    return st.from_regex(re.compile(pattern), fullmatch=True)


def literal_alphabet(pattern: str) -> str:
    return "".join(sorted(set(pattern) | set(AWKWARD)))


# ``re`` backtracks exponentially on near-misses of a nested star such as ``([...]*)*``; the
# oracle uses the same language written without the nesting (``(x*)*`` = ``x*``).
ORACLE_EQUIVALENT = {
    r"(https?:\/\/)?([\da-z\.-]+)\.([a-z\.]{2,6})([\/\w \.-]*)*\/?": r"(https?:\/\/)?([\da-z\.-]+)\.([a-z\.]{2,6})[\/\w \.-]*\/?",
}


def check(pattern: str, text: str) -> None:
    expected = re.fullmatch(ORACLE_EQUIVALENT.get(pattern, pattern), text) is not None
    assert compiled(pattern).matches(text.encode("utf-8")) == expected, (pattern, text)


ALL = list(bench_patterns().values()) + OWN_PATTERNS
IDS = list(bench_patterns()) + [f"own{i}" for i in range(len(OWN_PATTERNS))]
# re's ignore-case matching of classes holding non-BMP characters has a quirk we do not copy
# (see case_folding); those patterns are tested on BMP strings only.
BMP_ONLY = {p for p in OWN_PATTERNS if "(?i" in p}

fast = settings(max_examples=20, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))


def texts_for(pattern: str):
    chars = st.sampled_from(literal_alphabet(pattern))
    if pattern in BMP_ONLY:
        any_char = st.characters(max_codepoint=0xFFFF, exclude_categories=("Cs",))
    else:
        any_char = st.characters(exclude_categories=("Cs",))
    return st.text(chars | any_char, max_size=12)


def mutated(text: str, position: int, char: str, how: int) -> str:
    position = min(position, len(text))
    if how == 0:
        return text[:position] + char + text[position:]
    if how == 1:
        return text[:position] + text[position + 1:]
    return text[:position] + char + text[position + 1:]


@pytest.mark.parametrize("pattern", ALL, ids=IDS)
@fast
@given(data=st.data())
def test_matches_like_re(pattern, data):
    """A random string, a string of the language, and a one-edit near-miss of it."""
    check(pattern, data.draw(texts_for(pattern)))
    generated = data.draw(language(pattern))
    if pattern in BMP_ONLY and any(ord(c) > 0xFFFF for c in generated):
        return
    check(pattern, generated)
    edit = mutated(
        generated,
        data.draw(st.integers(0, 40)),
        data.draw(st.sampled_from(literal_alphabet(pattern))),
        data.draw(st.integers(0, 2)),
    )
    check(pattern, edit)


@pytest.mark.parametrize("pattern", [r"a|ab", r"1(\.2)?", r"(a|b)*a(a|b){2}", r"[^a]b?|\d", r"(?i)k|ſ"])
def test_exhaustive_short_strings(pattern):
    """Every string of length <= 4 over a small alphabet."""
    alphabet = sorted(set(re.sub(r"[\\()|?*{}\[\]^]", "", pattern)) | {"é", "٣", "K", "S"})
    words = [""]
    for _ in range(4):
        words += [w + c for w in words if len(w) == _ for c in alphabet]
    for w in words:
        check(pattern, w)


def test_backslash_z_and_x_brace_extensions():
    """``\\z`` and ``\\x{...}`` are not Python syntax; they mean what PCRE means."""
    assert compile_regex(r"ab\z").matches(b"ab")
    assert not compile_regex(r"ab\z").matches(b"ab\n")
    dfa = compile_regex(r"\x{1F600}\x{e9}")
    assert dfa.matches("😀é".encode()) and not dfa.matches("😀e".encode())

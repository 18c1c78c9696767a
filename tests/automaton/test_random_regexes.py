"""Random regexes (hypothesis builds them from a small grammar) against ``re``.

The hand-written patterns of ``test_matches_re`` test what we thought of; these combine
literals (ASCII, 2-, 3- and 4-byte UTF-8), classes, groups, alternation and every quantifier
kind in ways nobody wrote down.  Each example compiles one regex and checks a batch of
strings over the same small alphabet.
"""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from indexc.automaton import compile_regex

ALPHABET = "ab1 é中😀_\n"

ATOMS = st.sampled_from(
    ["a", "b", "1", "é", "中", "😀", r"\.", ".", r"\d", r"\w", r"\s", r"\W", "[ab]", "[^a]", "[a-zé]", "[^\\w\\n]", "(?s:.)"]
)
QUANTIFIERS = st.sampled_from(["", "", "*", "+", "?", "*?", "??", "{2}", "{0,2}", "{1,3}?", "{2,}"])


def extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    concat = st.lists(inner, min_size=2, max_size=3).map("".join)
    alternation = st.lists(inner, min_size=2, max_size=3).map("|".join)
    group = st.tuples(st.sampled_from(["(", "(?:"]), inner | alternation, QUANTIFIERS).map(
        lambda t: f"{t[0]}{t[1]}){t[2]}"
    )
    return concat | group | st.tuples(inner, QUANTIFIERS).map(lambda t: f"(?:{t[0]}){t[1]}")


REGEXES = st.recursive(st.tuples(ATOMS, QUANTIFIERS).map("".join), extend, max_leaves=6)


@settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(pattern=REGEXES, texts=st.lists(st.text(ALPHABET, max_size=6), min_size=20, max_size=20))
def test_random_regex_matches_like_re(pattern, texts):
    dfa = compile_regex(pattern)
    compiled = re.compile(pattern)
    for text in texts + [""]:
        assert dfa.matches(text.encode()) == (compiled.fullmatch(text) is not None), (pattern, text)

"""Lazy quantifiers in Lark terminals (``indexc.grammar.lazy_ends``): the rewritten regex ends
where Python's ``re.match`` ends the written one (the function Lark's lexer calls), checked on
random texts; what is left alone; and the language a Lark file gets from it."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from indexc.automaton import compile_regex
from indexc.automaton.normalize import normalize
from indexc.grammar import parse_lark
from indexc.grammar.lazy_ends import first_match_regex
from tests.grammar_path.helpers import assert_walks_agree, compiled_index, small_vocabulary
from tests.reference.grammar_oracle import GrammarOracle

REWRITTEN = [
    r'".*?"',
    r'"(?:.*?)"(?:i)?',  # lark.lark's STRING as the Lark front end writes it
    r"a.+?b",  # one mandatory character, which may be the stop
    r"x[^y\n]*?y",  # the stop is outside the class: only the marker goes
    r"ab{2,}?c",
    r'"[^\n]*?"i?(?:xy)?',  # a nullable rest of several parts
    r"<!--.*?>",
]
LEFT_ALONE = [
    r"/\*(.|\n)*?\*/",  # stops at a two-character string
    r"x.*?y.*?z",  # two lazy parts
    r'".*?"z',  # the rest may fail: re backtracks into the lazy part
    r"(?i:ab).*?c",  # a prefix of two-letter sets is not one string
    r"\/(\\\/|[^\/])+?\/",  # an escape that does not escape itself: ``\\/`` is a stop again
    r"\/([^\/]|\\\/)+?\/",  # the single characters first: ``\/`` is a backslash, then the stop
    r"\/(\\\/|\\\\|[^\/]){2,}?\/",  # two units or more: pairs count once, other escapes twice
    r"a.{0,3}?b",  # bounded
    r".*?",  # nothing after it
    r"[a-z]+",  # not lazy at all
]
ALPHABET = '"abcixyz<!->/*\n '
# escaped forms: ``P (e x1|...|e xk|C){m,}? s R``, each with a text that ends a unit before a bare stop
ESCAPED = [
    (r"\/(\\\/|\\\\|[^\/])+?\/[imslux]*", "x/"),  # lark.lark's REGEXP
    (r'"(\\"|\\\\|[^"])*?"', 'x"'),
    (r"<(\\<|\\>|\\\\|[^>])+?>i?", "x>"),
]


@pytest.mark.parametrize("regex", REWRITTEN)
def test_a_rewritten_regex_has_no_lazy_quantifier_and_compiles(regex):
    rewritten = first_match_regex(regex)
    assert rewritten is not None and not normalize(rewritten).lazy
    compile_regex(rewritten)


@pytest.mark.parametrize("regex", LEFT_ALONE)
def test_what_the_form_cannot_write_is_left_alone(regex):
    assert first_match_regex(regex) is None


@settings(max_examples=400, deadline=None)
@given(text=st.text(alphabet=ALPHABET, max_size=14), which=st.sampled_from(REWRITTEN))
def test_the_rewritten_regex_ends_where_re_match_ends_the_lazy_one(text, which):
    """``re.match`` of the greedy rewrite (whose end one byte decides, so that longest match
    ends it there too) against ``re.match`` of the written regex: the same end, or both none."""
    rewritten = first_match_regex(which)
    lazy, greedy = re.match(which, text), re.match(rewritten, text)
    assert (lazy and lazy.end()) == (greedy and greedy.end()), (which, rewritten, text)


@pytest.mark.parametrize("regex", [regex for regex, _ in ESCAPED])
def test_an_escaped_form_is_rewritten_without_a_lazy_quantifier(regex):
    rewritten = first_match_regex(regex)
    assert rewritten is not None and not normalize(rewritten).lazy
    compile_regex(rewritten)


@settings(max_examples=400, deadline=None)
@given(text=st.text(alphabet='/\\"<>aix\n', max_size=12), after=st.text(alphabet='/\\"<>aix', max_size=4),
       which=st.sampled_from(ESCAPED))
def test_an_escaped_form_ends_where_re_match_ends_it_before_a_bare_stop(text, after, which):
    """Wherever a bare stop follows (here: the written text, one unit, the stop, more text),
    ``re.match`` ends the rewrite where it ends the lazy regex; a text without one may give the
    lazy regex an end at an escaped stop (``re`` backtracks into its last pair), which the
    rewrite lacks (the module note's one difference)."""
    regex, ending = which
    rewritten = first_match_regex(regex)
    for written in (text, text + ending + after):
        lazy, greedy = re.match(regex, written), re.match(rewritten, written)
        if greedy is not None or written != text:
            assert (lazy and lazy.end()) == (greedy and greedy.end()), (regex, rewritten, written)


def test_an_escaped_stop_ends_a_regexp_only_where_lark_backtracks():
    """``/a\\/`` is a whole REGEXP for ``re.match`` only when no bare slash comes later (it then
    backtracks into the pair ``\\/``); the rewrite reads the pair and goes on to the next one."""
    regex = r"\/(\\\/|\\\\|[^\/])+?\/[imslux]*"
    rewritten = first_match_regex(regex)
    assert re.match(regex, "/a\\/").end() == 4 and re.match(rewritten, "/a\\/") is None
    assert re.match(regex, "/a\\/b/i c").end() == 7 == re.match(rewritten, "/a\\/b/i c").end()
    assert re.match(regex, "/a\\\\/ /").end() == 5 == re.match(rewritten, "/a\\\\/ /").end()


def test_a_lark_string_ends_at_its_first_closing_quote():
    """lark.lark's ``_STRING_INNER: /.*?/`` inside ``"\\"" ... "\\""``: ``"a"b"`` is no string (Lark
    1.3.1's dynamic lexer refuses lark.lark's own text at its first ``"\\""`` for that reason)."""
    grammar = parse_lark('start: STRING+\nSTRING: _STRING "i"?\n_STRING: "\\"" _INNER "\\""\n_INNER: /.*?/\n'
                         '%ignore " "\n')
    assert not normalize(grammar.terminals["STRING"].regex).lazy
    oracle = GrammarOracle(grammar)
    for accepted in (b'"a"', b'"a""b"', b'"a"i "b"', b'""'):
        assert oracle.accepts(accepted), accepted
    for refused in (b'"a"b"', b'"a\\"b"'):
        assert not oracle.accepts(refused), refused


def test_masks_after_a_lazy_string_against_the_oracle(tmp_path):
    text = 'start: STRING ("," STRING)*\nSTRING: /".*?"/\n'
    grammar = parse_lark(text)
    vocab = small_vocabulary([b'"', b"a", b'"a', b'a"', b'""', b'","', b",", b'a",', b'"a"'])
    index = compiled_index(grammar, vocab, tmp_path)
    assert assert_walks_agree(index, GrammarOracle(grammar), vocab, walks=8, steps=10, seed=3) >= 8
    matcher = index.matcher()
    for piece in (b'"a', b'a"'):
        matcher.advance(vocab.token_bytes.index(piece))
    assert matcher.is_accepting()
    assert len(matcher._configs.threads[matcher._config]) == 1  # the string ended: no thread inside it


PREFIXES = st.sampled_from(["", '"', "ab", "<!", "(?i:a)"])
ATOMS = st.sampled_from([".", "[^x]", '[a-z"]', "x", "(?:.)", r"\S", "[^\n]"])
LAZY = st.sampled_from(["*?", "+?", "{2,}?", "{0,2}?", "*", "+"])
STOPS = st.sampled_from(['"', "x", "b", "ab", "(?:x|y)", ""])
RESTS = st.sampled_from(["", "i?", "(?:xy)?", "z*", "z", "(?:i|)", ".*?"])


@settings(max_examples=300, deadline=None)
@given(prefix=PREFIXES, atom=ATOMS, lazy=LAZY, stop=STOPS, rest=RESTS,
       texts=st.lists(st.text(alphabet=ALPHABET + "IXz", max_size=10), min_size=1, max_size=20))
def test_any_regex_the_rewrite_takes_ends_where_re_match_ends_it(prefix, atom, lazy, stop, rest, texts):
    """Random regexes of the rewritten form and of forms near it: wherever the rewrite answers, its
    regex compiles and ``re.match`` ends it where it ends the written one."""
    regex = prefix + atom + lazy + stop + rest
    rewritten = first_match_regex(regex)
    if rewritten is None:
        return
    compile_regex(rewritten)
    for text in texts:
        lazy_match, greedy_match = re.match(regex, text), re.match(rewritten, text)
        assert (lazy_match and lazy_match.end()) == (greedy_match and greedy_match.end()), (regex, rewritten, text)

"""The structure parser: tokens -> tree shapes, nesting depth, and very long patterns."""

from __future__ import annotations

import pytest

from indexc.automaton.code_point_sets import CodePointSet
from indexc.automaton.normalize import MAX_GROUP_DEPTH, NormalizedPattern, normalize
from indexc.automaton.parse import parse_structure
from indexc.automaton.regex_tree import EMPTY, Alternation, Chars, Concat, Repeat
from indexc.errors import RegexError

a, b, c, d = Chars(0), Chars(1), Chars(2), Chars(3)

SHAPES = {
    "a": a,
    "": EMPTY,
    "ab": Concat((a, b)),
    "a|b": Alternation((a, b)),
    "a|": Alternation((a, EMPTY)),
    "|a": Alternation((EMPTY, Chars(0))),
    "()": EMPTY,
    "((a))": a,
    "a(bc)d": Concat((a, Concat((b, c)), d)),
    "(?:a|b)*": Repeat(Alternation((a, b)), 0, None),
    "a+?b??": Concat((Repeat(a, 1, None, lazy=True), Repeat(b, 0, 1, lazy=True))),  # the language of a+b?
    "a{2}b{2,}c{1,3}d{0}": Concat((Repeat(a, 2, 2), Repeat(b, 2, None), Repeat(c, 1, 3), Repeat(d, 0, 0))),
    "(a|bc)?": Repeat(Alternation((a, Concat((b, c)))), 0, 1),
    "^a$|(?#note)b": Alternation((a, b)),
    "(?i)a": a,
}


@pytest.mark.parametrize("pattern", sorted(SHAPES))
def test_tree_shapes(pattern):
    assert parse_structure(normalize(pattern)) == SHAPES[pattern]


def test_equal_sets_share_an_index():
    normalized = normalize("a[a]b(?:a)")
    assert normalized.tokens == (0, 0, 1, "(", 0, ")")
    assert len(normalized.char_sets) == 2


def test_nesting_up_to_the_limit_parses_and_one_more_is_an_error():
    deep = "(" * MAX_GROUP_DEPTH + "a|b" + ")" * MAX_GROUP_DEPTH
    assert parse_structure(normalize(deep)) == Alternation((a, b))
    with pytest.raises(RegexError, match="nests too deeply") as caught:
        normalize("x" + "(" * (MAX_GROUP_DEPTH + 1) + "a" + ")" * (MAX_GROUP_DEPTH + 1))
    assert caught.value.position == 1 + MAX_GROUP_DEPTH


def test_long_patterns_need_no_recursion():
    tree = parse_structure(normalize("ab" * 50_000))
    assert isinstance(tree, Concat) and len(tree.parts) == 100_000
    assert parse_structure(normalize("|".join(["(?:ab)+"] * 5_000))).options[-1] == Repeat(Concat((a, b)), 1, None)


@pytest.mark.parametrize("tokens", [(")",), ("(", 0), ((0, 1),), ("|", (1, None))])
def test_malformed_tokens_are_a_regex_error_not_a_crash(tokens):
    with pytest.raises(RegexError, match="normaliser"):
        parse_structure(NormalizedPattern(tokens, (CodePointSet.of(0x61),)), source="x.regex")


def test_class_sets_are_reused_by_text_and_case_flag_but_errors_are_not():
    plain, folded = normalize("[a-c]").char_sets, normalize("(?i)[a-c]").char_sets
    assert plain != folded and normalize("x[a-c]").char_sets[1] == plain[0]
    assert normalize(r"[\]a]").char_sets == normalize(r"b|[\]a]").char_sets[1:]
    for pattern, position in (("[z-a]", 1), ("ab[z-a]", 3), ("[z-a]", 1)):
        with pytest.raises(RegexError, match="bad character range") as caught:
            normalize(pattern)
        assert caught.value.position == position


def test_set_indices_renumber_the_sets_while_parsing():
    normalized = normalize("a(b|a)*")
    assert parse_structure(normalized, set_indices=[7, 3]) == Concat((Chars(7), Repeat(Alternation((Chars(3), Chars(7))), 0, None)))

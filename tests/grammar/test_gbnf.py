"""The GBNF front end: each construct by the language it gives, folded and unfolded alike."""

from __future__ import annotations

import pytest

from indexc.grammar import GrammarError, parse_gbnf
from indexc.grammar.gbnf_folding import MAX_FOLDED_REGEX
from tests.reference.grammar_oracle import GrammarOracle


def assert_language(text: str, accepted: list[str], rejected: list[str]) -> None:
    """Both IRs (regular parts folded, and one terminal per literal/class) give the language."""
    for fold in (True, False):
        oracle = GrammarOracle(parse_gbnf(text, source="test.gbnf", fold=fold))
        for sentence in accepted:
            assert oracle.accepts(sentence.encode()), (fold, sentence)
        for other in rejected:
            assert not oracle.accepts(other.encode()), (fold, other)


def test_literal_escapes():
    assert_language(r'root ::= "\x41\u00e9\U0001F600\t\r\n\\\"\[\]"', ['Aé😀\t\r\n\\"[]'], ["Ae😀\t\r\n\\\"[]"])


def test_character_classes_ranges_negation_and_escapes():
    assert_language(
        r'root ::= [a-c0-9_] [^a-z\n] [\x41-\x43\-\]] [ぁ-ゟ]',
        ["a-Bあ", "_Z]を", "9Z-ぁ"],
        ["aaAあ", "a\nAあ", "a-Dあ", "a-Aア"],
    )


def test_dot_matches_any_character_including_newline():
    assert_language('root ::= "<" . ">"', ["<\n>", "<é>", "<x>"], ["<>", "<ab>"])


def test_repetitions():
    assert_language(
        'root ::= "a"* "b"+ "c"? "d"{2} "e"{1,} "f"{,2} "g"{1,3}',
        ["bddeg", "aabbcddeeeffggg"],
        ["bdeg", "bddg", "bddefffg", "bddegggg", "ddeg"],
    )


def test_groups_comments_names_and_line_continuations():
    assert_language(
        """
        # a comment line
        root ::= item-list  # trailing comment
        item-list ::=
            ( item_one |
              item-two ) (
              "," item-list )?
        item_one ::= "1"
        item-two ::= "2" | "22"
        """,
        ["1", "1,22,2"],
        ["1,", "3", "12"],
    )


def test_recursion_is_kept_and_regular_parts_are_folded():
    text = 'root ::= "(" ws root ")" ws | "x"\nws ::= [ \\t]*'
    grammar = parse_gbnf(text)
    assert {t.regex for t in grammar.terminals.values()} == {r"\((?:[\ \x09]*)", r"\)(?:[\ \x09]*)", "x"}
    assert_language(text, ["x", "( (\tx) ) ", "((x))"], ["(x", " x", "(x))"])


def test_all_splits_meaning_of_ws_before_a_required_newline():
    # arithmetic.gbnf's case: llama.cpp accepts it, a greedy lexer would not
    assert_language('root ::= [a-z] ws "\\n"\nws ::= [ \\t\\n]*', ["a\n", "a \n\n"], ["a", "a \n "])


def test_a_newline_outside_parentheses_ends_the_rule_as_in_llama_cpp():
    with pytest.raises(GrammarError) as error:
        parse_gbnf('root ::= "a"\n    "b"')
    assert (error.value.line, error.value.column) == (2, 5)


def test_empty_alternatives_and_empty_literal():
    assert_language('root ::= "a" ( | "b" ) ""', ["a", "ab"], ["b", ""])


def test_folding_stops_before_a_regex_grows_too_long():
    # r0 = r1 r1, r1 = r2 r2, ...: inlining doubles the regex at each level
    levels = 12
    lines = ["root ::= r0"] + [f"r{i} ::= r{i + 1} r{i + 1}" for i in range(levels)] + [f'r{levels} ::= "ab" | "cd"']
    text = "\n".join(lines)
    grammar = parse_gbnf(text)
    assert max(len(t.regex) for t in grammar.terminals.values()) <= MAX_FOLDED_REGEX
    sentence = b"ab" * 2**levels
    assert GrammarOracle(grammar).accepts(sentence)
    assert not GrammarOracle(grammar).accepts(sentence[:-2] + b"ac")


def test_a_run_whose_dfa_would_explode_is_folded_item_by_item():
    text = 'root ::= ab* "a" ab{20}\nab ::= "a" | "b"'
    grammar = parse_gbnf(text)  # one regex would need ~2^20 DFA states; three small ones do not
    assert sorted(t.regex for t in grammar.terminals.values()) == ["(?:a|b)*", "(?:a|b){20}", "a"]
    oracle = GrammarOracle(grammar)
    assert oracle.accepts(b"bba" + b"ab" * 10) and not oracle.accepts(b"bbb" + b"ab" * 10)

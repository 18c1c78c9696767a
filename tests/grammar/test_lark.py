"""The Lark front end: each construct, judged by the language it gives (through the oracle)."""

from __future__ import annotations

import pytest

from indexc.grammar import parse_lark
from tests.reference.grammar_oracle import GrammarOracle


def language(text: str) -> GrammarOracle:
    return GrammarOracle(parse_lark(text, source="test.lark"))


def assert_language(text: str, accepted: list[str], rejected: list[str]) -> None:
    oracle = language(text)
    for sentence in accepted:
        assert oracle.accepts(sentence.encode()), sentence
    for other in rejected:
        assert not oracle.accepts(other.encode()), other


def test_rules_alternatives_groups_and_tree_shaping_markers():
    assert_language(
        """
        start: greeting ("," name)+ -> hello
        ?greeting: "hi" | "hello"
        !name: "bob"
             | "ann"
        """,
        ["hi,bob", "hello,ann,bob"],
        ["hi", "hi,", "hibob", "hi,eve"],
    )


def test_repetitions_optionals_and_bounds():
    assert_language(
        'start: "a"* "b"+ ["c"] "d"? "e"~2 "f"~1..2 "g"{2,} "h"{,1} "i"{1,3}',
        ["beefggi", "aabbcdeeffggghiii"],
        ["beefggiiii", "eefggi", "beefgi", "beefffggi", "beeefggi", "beefgghhi"],
    )


def test_case_insensitive_literals_ranges_and_regex_flags():
    assert_language(
        'start: "select"i LETTER /[a-z]+/i /a.b/s\nLETTER: "a".."c"',
        ["SeLeCtbXyZa\nb", "selectcqa.b"],
        ["selectdxa.b", "selectbxa\nbb"],
    )


def test_regex_global_flags_become_scoped():
    assert_language("start: /(?i)ab/ \"c\"", ["ABc", "abc"], ["ABC"])


def test_string_escapes():
    assert_language('start: "\\x41\\u00e9\\n\\"\\\\"', ['Aé\n"\\'], ["Ae\n\"\\"])


def test_terminal_definitions_are_expanded_into_one_regex():
    grammar = parse_lark('start: INT\nINT: DIGIT+\nDIGIT: "0".."9"')
    assert set(grammar.terminals) == {"INT"}  # DIGIT is inlined, not a lexeme of its own
    oracle = GrammarOracle(grammar)
    assert oracle.accepts(b"2024") and not oracle.accepts(b"20a")


def test_priorities_are_read_and_ignored():
    assert_language('start.2: A | b\nb.-1: "y"\nA.3: "x"', ["x", "y"], ["xy"])


def test_ignore_and_common_imports():
    assert_language(
        """
        start: pair ("," pair)*
        pair: CNAME "=" value
        value: SIGNED_NUMBER | ESCAPED_STRING
        %import common (CNAME, SIGNED_NUMBER)
        %import common.ESCAPED_STRING
        %import common.WS -> SPACE
        %ignore SPACE
        %ignore /#[^\\n]*/
        """,
        ['a=1', ' a = -2.5e3 , b_2="x\\"y"  # note', 'a=1,b="s"\n'],
        ['a=1,', 'a="x"y"', "1a=2"],
    )


def test_common_terminals_match_what_lark_lexes():
    cases = {
        "ESCAPED_STRING": (['""', '"a\\"b"', '"\\\\"'], ['"a"b"', '"a', '"\\"']),
        "C_COMMENT": (["/**/", "/* a * b */", "/***/"], ["/* */ */", "/*/"]),
        "NUMBER": (["1", "1.5", ".5", "1e9", "2.e-3"], ["-1", "1.2.3", "e9"]),
        "SIGNED_NUMBER": (["-1", "+2.5"], ["--1"]),
        "CNAME": (["_a1", "b"], ["1a"]),
        "NEWLINE": (["\n", "\r\n\n"], ["\r"]),
        "SH_COMMENT": (["# hi"], ["# a\nb"]),
    }
    for name, (accepted, rejected) in cases.items():
        assert_language(f"start: {name}\n%import common.{name}", accepted, rejected)


def test_declare_override_and_extend():
    assert_language(
        """
        start: item+
        item: "a"
        %extend item: "b"
        %override start: item "!"
        %import common.INT
        %override INT: "7"
        %declare UNUSED
        """,
        ["a!", "b!"],
        ["ab!", "a"],
    )


def test_newlines_inside_brackets_and_comments_continue_a_definition():
    assert_language('start: ( "a"   // first\n  | "b" # second\n )\n  | "c"', ["a", "b", "c"], ["ab"])


def test_left_recursive_rules_are_fine():
    assert_language('start: start "+" NUM | NUM\nNUM: /[0-9]+/', ["1+22+3"], ["1+", "+1"])


def test_empty_literal_is_the_empty_string():
    assert_language('start: "a" ("" | "b") ""', ["a", "ab"], ["b"])


@pytest.mark.parametrize("start", ["expr", "atom"])
def test_a_start_rule_other_than_start(start):
    grammar = parse_lark('expr: atom "+" atom\natom: "x"', start=start)
    assert grammar.start == start


def test_windows_line_endings_and_a_repeated_import():
    assert_language(
        "start: WORD+\r\n%import common.WORD\r\n%import common.WORD\r\n%import common.WS\r\n%ignore WS\r\n\t// end",
        ["ab cd", "x"],
        ["ab1", ""],
    )

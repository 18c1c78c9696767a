"""Bad grammars: the error names the construct and its line and column; checks that only warn."""

from __future__ import annotations

import pytest

from indexc.grammar import GrammarError, load_grammar, parse_gbnf, parse_lark
from tests.reference.grammar_oracle import GrammarOracle


def error_of(text: str, syntax: str) -> GrammarError:
    with pytest.raises(GrammarError) as caught:
        load_grammar(text, syntax=syntax, source=f"bad.{syntax}")
    return caught.value


LARK_ERRORS = [
    # (grammar, line, column, words in the message)
    ('start: a b\na: "x"', 1, 10, "undefined symbol 'b'"),
    ('start: A\nA: "x" B\nB: "y" A', 3, 8, "recursive"),
    ('start: A\nA: "x" b\nb: "y"', 2, 8, "refers to the rule 'b'"),
    ('start: x\nx{p}: p', 2, 2, "templates"),
    ('start: pair{"a"}\npair: "b"', 1, 13, "templates"),
    ('%llguidance {}\nstart: "a"', 1, 1, "llguidance"),
    ('start: %json {"type": "string"}', 1, 8, "llguidance"),
    ('start: "a" <|eot_id|>', 1, 12, "special-token"),
    ("start: @sub", 1, 8, "subgrammar"),
    ('start: x\nx[lazy]: /a+/', 2, 2, "lexeme options"),
    ("start: X\n%import python.X", 2, 9, "only %import common"),
    ("start: X\n%import common.NOPE -> X", 2, 16, "no terminal 'NOPE'"),
    ("start: /a b/x", 1, 8, "flag 'x'"),
    ("start: \"a\"\n  | /a(/", 2, 5, "terminal"),
    ("start: /[^\\s\\S]/", 1, 8, "matches no string"),
    ("start: \"x\" /a(?=b)/", 1, 12, "look-ahead"),
    ('start: "abc', 1, 8, "unterminated string"),
    ('start: "a" INDENT\n%declare INDENT', 1, 12, "declare"),
    ('rule: "a"', 1, 1, "no start rule 'start'"),
    ('start: "a"\nstart: "b"', 2, 1, "defined twice"),
    ('start: "a"\n%override b: "c"', 2, 11, "not defined"),
    ('start: "a"{3,2}', 1, 11, "bounds"),
    ('start: ("a"', 1, 12, "unclosed"),
    ('start: a\na: "x" a', 1, 1, "language is empty"),
    ('start: "a"\n%ignore WS', 2, 9, "undefined terminal 'WS'"),
    ("start: \"a\" |\n\n?", 3, 1, "expected"),
]


@pytest.mark.parametrize("text, line, column, words", LARK_ERRORS, ids=[e[3] for e in LARK_ERRORS])
def test_lark_errors_are_located(text, line, column, words):
    error = error_of(text, "lark")
    assert words in error.message
    assert (error.line, error.column) == (line, column), str(error)
    assert str(error).startswith(f"bad.lark:{line}:{column}: ")


GBNF_ERRORS = [
    ('root ::= a\na ::= "x" b', 2, 11, "undefined symbol 'b'"),
    ('root "x"', 1, 6, "expected '::='"),
    ('root ::= "\\q"', 1, 11, "unknown escape"),
    ("root ::= [z-a]", 1, 11, "reversed range"),
    ("root ::= []", 1, 10, "empty character class"),
    ('root ::= "abc', 1, 10, "unterminated string"),
    ('root ::= "a" <[1000]>', 1, 14, "token references"),
    ('root ::= "a"\nroot ::= "b"', 2, 1, "defined twice"),
    ('main ::= "a"', 1, 1, "no 'root' rule"),
    ('root ::= a\na ::= "x" a', 1, 1, "language is empty"),
    ("root ::= * \"a\"", 1, 10, "nothing to repeat"),
    ('root ::= "a"{5,2}', 1, 13, "bounds"),
    ('root ::= ("a"', 1, 10, "unclosed"),
    ('root ::= "a" )', 1, 14, "unexpected"),
    ("root ::= [^\\x00-\\U0010FFFF]", 1, 10, "matches no string"),
]


@pytest.mark.parametrize("text, line, column, words", GBNF_ERRORS, ids=[e[3] for e in GBNF_ERRORS])
def test_gbnf_errors_are_located(text, line, column, words):
    error = error_of(text, "gbnf")
    assert words in error.message
    assert (error.line, error.column) == (line, column), str(error)


def test_unreachable_rules_are_warnings_and_left_out():
    grammar = parse_lark('start: "x"\nlost: "y" LOST\nLOST: "z"')
    assert grammar.warnings == (
        "2:1: rule 'lost' is never used (unreachable from the start rule)",
        "3:1: terminal 'LOST' is never used (unreachable from the start rule)",
    )
    assert grammar.nonterminals == {"start"} and set(grammar.terminals) == {'"x"'}
    gbnf = parse_gbnf('root ::= "x"\n\nlost ::= "y"')
    assert gbnf.warnings == ("3:1: rule 'lost' is never used (unreachable from the start rule)",)


def test_unproductive_rules_are_warnings_and_removed_with_their_uses():
    grammar = parse_lark('start: "a" | "b" loop\nloop: "c" loop')
    assert grammar.warnings == ("2:1: rule 'loop' derives no finite string (unproductive); removed",)
    assert [rule.rhs for rule in grammar.rules] == [('"a"',)]
    # after trimming, every viable prefix can be completed: "b" is not viable any more
    assert not GrammarOracle(grammar).is_prefix(b"b")


def test_left_recursion_and_nullable_rules_give_no_warning():
    grammar = parse_lark('start: start "a" | e\ne: ')
    assert grammar.warnings == ()
    grammar.validate()


def test_syntax_comes_from_the_file_extension():
    assert load_grammar('root ::= "a"', source="g.gbnf").start == "root"
    assert load_grammar('start: "a"', source="dir/G.LARK").start == "start"
    with pytest.raises(GrammarError, match=".lark or .gbnf"):
        load_grammar('start: "a"', source="g.txt")
    assert load_grammar('start: "a"', source="g.txt", syntax="lark").start == "start"

"""The grammar oracle on hand-written IR grammars whose languages are known exactly.

Each grammar's language up to a length is also computed by a second, unrelated method — a
fixpoint over "which strings of length <= n does each symbol derive" — so whole-text answers
are checked against every string over the grammar's alphabet, not only a few examples.
"""

from __future__ import annotations

import itertools
import random
import re

import pytest

from indexc.grammar.ir import Grammar, Rule, Terminal

from .grammar_oracle import GrammarOracle


def literal(name: str, text: str) -> Terminal:
    return Terminal(name, re.escape(text), is_literal=True)


def grammar(rules: list[tuple[str, tuple[str, ...]]], terminals: list[Terminal], ignore=(), start="S") -> Grammar:
    return Grammar(start, tuple(Rule(lhs, rhs) for lhs, rhs in rules), {t.name: t for t in terminals}, tuple(ignore))


OPEN, CLOSE = literal("(", "("), literal(")", ")")
BRACKETS = grammar([("S", ()), ("S", ("(", "S", ")", "S"))], [OPEN, CLOSE])
# E -> E + E | a : ambiguous (Catalan many parses of a+a+a+a)
AMBIGUOUS = grammar([("E", ("E", "+", "E")), ("E", ("a",))], [literal("+", "+"), literal("a", "a")], start="E")
# Nullable everywhere: S -> A B c ; A -> ε | a ; B -> ε | A A b
NULLABLE = grammar(
    [("S", ("A", "B", "c")), ("A", ()), ("A", ("a",)), ("B", ()), ("B", ("A", "A", "b"))],
    [literal("a", "a"), literal("b", "b"), literal("c", "c")],
)
LEFT_RECURSIVE = grammar([("L", ("L", "a")), ("L", ("b",))], [literal("a", "a"), literal("b", "b")], start="L")
RIGHT_RECURSIVE = grammar([("R", ("a", "R")), ("R", ("b",))], [literal("a", "a"), literal("b", "b")], start="R")
# Hidden left recursion through a nullable prefix: S -> N S x | y ; N -> ε
HIDDEN_LEFT = grammar([("S", ("N", "S", "x")), ("S", ("y",)), ("N", ())], [literal("x", "x"), literal("y", "y")])


def language_up_to(g: Grammar, alphabet: str, length: int) -> set[str]:
    """Sentences of ``g`` of at most ``length`` characters, by a derives-fixpoint (no parsing)."""
    strings = ["".join(p) for n in range(length + 1) for p in itertools.product(alphabet, repeat=n)]
    derives: dict[str, set[str]] = {
        name: {s for s in strings if re.fullmatch(t.regex, s)} for name, t in g.terminals.items()
    }
    derives.update({rule.lhs: set() for rule in g.rules})
    changed = True
    while changed:
        changed = False
        for rule in g.rules:
            produced = {""}
            for symbol in rule.rhs:
                produced = {a + b for a in produced for b in derives[symbol] if len(a) + len(b) <= length}
            if not produced <= derives[rule.lhs]:
                derives[rule.lhs] |= produced
                changed = True
    return derives[g.start]


@pytest.mark.parametrize(
    "g, alphabet, margin",
    [(BRACKETS, "()", 7), (AMBIGUOUS, "a+", 2), (NULLABLE, "abc", 2), (LEFT_RECURSIVE, "ab", 1),
     (RIGHT_RECURSIVE, "ab", 1), (HIDDEN_LEFT, "xy", 1)],
    ids=["brackets", "ambiguous", "nullable", "left-recursive", "right-recursive", "hidden-left"],
)
def test_whole_texts_match_the_language_exactly(g, alphabet, margin):
    """``margin``: every viable prefix of <= 7 characters completes within that many more."""
    oracle = GrammarOracle(g)
    length = 7
    language = language_up_to(g, alphabet, length + margin)
    prefixes = {s[:i] for s in language for i in range(len(s) + 1)}
    for n in range(length + 1):
        for chars in itertools.product(alphabet, repeat=n):
            text = "".join(chars)
            assert oracle.accepts(text.encode()) == (text in language), text
            assert oracle.is_prefix(text.encode()) == (text in prefixes), text


def test_brackets_prefixes_are_exactly_the_never_negative_strings():
    oracle = GrammarOracle(BRACKETS)
    for n in range(9):
        for chars in itertools.product("()", repeat=n):
            depths = list(itertools.accumulate(1 if c == "(" else -1 for c in chars))
            assert oracle.is_prefix("".join(chars).encode()) == all(d >= 0 for d in depths)


def test_terminals_are_regular_languages_split_every_way():
    # S -> W W with W = [a-z]+ : "abc" splits as a|bc or ab|c; a greedy lexer would take all of it
    g = grammar([("S", ("W", "W"))], [Terminal("W", "[a-z]+")])
    oracle = GrammarOracle(g)
    assert oracle.accepts(b"abc") and oracle.accepts(b"ab")
    assert not oracle.accepts(b"a") and oracle.is_prefix(b"a")
    assert not oracle.is_prefix(b"a1")


def test_arithmetic_style_ws_before_a_required_newline():
    # the GBNF case a greedy lexer gets wrong: ws ::= [ \t\n]* then "\n"
    g = grammar([("S", ("ID", "WS", "NL"))], [Terminal("ID", "[a-z]+"), Terminal("WS", "[ \\t\\n]*"), literal("NL", "\n")])
    oracle = GrammarOracle(g)
    assert oracle.accepts(b"a\n") and oracle.accepts(b"a \n\n") and not oracle.accepts(b"a ")


def test_ignored_terminals_between_terminals_and_at_both_ends():
    g = grammar([("S", ("W", "=", "W"))], [Terminal("W", "[a-z]+"), literal("=", "="), Terminal("SP", " +")], ignore=["SP"])
    oracle = GrammarOracle(g)
    for text in [b"a=b", b" a = b ", b"  ab=  cd  "]:
        assert oracle.accepts(text), text
    assert not oracle.is_prefix(b"a b=")  # "a b" would need two W before "="
    assert not oracle.accepts(b"a=")


def test_nullable_terminal_and_empty_language_parts():
    # T = x* may be empty; U has no finite derivation and must not make "u" look viable
    g = grammar(
        [("S", ("T", "y", "T")), ("S", ("u", "U")), ("U", ("u", "U"))],
        [Terminal("T", "x*"), literal("y", "y"), literal("u", "u")],
    )
    oracle = GrammarOracle(g)
    assert oracle.accepts(b"y") and oracle.accepts(b"xxyx")
    assert not oracle.is_prefix(b"u")


def test_allowed_tokens_and_end_of_sequence():
    vocab = [b"(", b")", b"()", b"((", b"))", b"", None, b"x"]
    oracle = GrammarOracle(BRACKETS)
    eos = [5, 6]
    assert oracle.allowed_tokens(b"", vocab, eos) == {0, 2, 3} | set(eos)
    assert oracle.allowed_tokens(b"(", vocab, eos) == {0, 1, 2, 3}
    assert oracle.allowed_tokens(b"((", vocab, eos) == {0, 1, 2, 3, 4}
    assert oracle.allowed_tokens(b")", vocab, eos) == set()


def test_partial_utf8_characters_are_viable_prefixes():
    g = grammar([("S", ("E",))], [Terminal("E", "é+")])
    oracle = GrammarOracle(g)
    vocab = ["é".encode(), b"\xc3", b"\xa9", b"e"]
    assert oracle.allowed_tokens(b"", vocab) == {0, 1}
    assert oracle.allowed_tokens(b"\xc3", vocab) == {2}
    assert oracle.is_prefix("éé".encode()[:3]) and not oracle.accepts("éé".encode()[:3])


def test_next_bytes_and_random_sentences():
    oracle = GrammarOracle(BRACKETS)
    assert oracle.next_bytes(b"") == [ord("(")]
    assert oracle.next_bytes(b"(") == [ord("("), ord(")")]
    assert oracle.next_bytes(b")") == []
    rng = random.Random(5)
    sentences = [oracle.random_sentence(rng, max_bytes=40) for _ in range(20)]
    for sentence in filter(None, sentences):
        assert oracle.accepts(sentence)
        depths = list(itertools.accumulate(1 if c == ord("(") else -1 for c in sentence))
        assert all(d >= 0 for d in depths) and (not depths or depths[-1] == 0)
    assert any(sentences)


def test_an_empty_language_has_no_viable_prefix():
    g = grammar([("S", ("a", "S"))], [literal("a", "a")])
    oracle = GrammarOracle(g)
    assert not oracle.is_prefix(b"") and not oracle.is_prefix(b"a")
    assert oracle.allowed_tokens(b"", [b"a"], [1]) == set()

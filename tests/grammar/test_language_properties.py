"""Random grammars: the two ways a front end can write the same language must agree.

- GBNF: folding regular parts into single terminals (``fold=True``) versus one terminal per
  literal and class (``fold=False``).  This exercises ``gbnf_folding`` and the regex printer
  (grouping, precedence, repetition bounds) on shapes nobody wrote by hand.
- Lark: an expression used as a terminal definition (``START: expr``, one regex) versus the
  same expression as a rule (``start: expr``, one lexeme per literal).  With no ``%ignore`` and
  the all-splits semantics the two languages are equal (under a Lark file's own rule, longest
  match, ``/b+/ "b"`` as a rule never leaves a ``b`` to the literal: both are read as all splits
  here).

Both are judged by the oracle on every string of up to 4 characters over ``abc``.
"""

from __future__ import annotations

import itertools
from dataclasses import replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from indexc.grammar import GrammarError, parse_gbnf, parse_lark
from tests.reference.grammar_oracle import GrammarOracle

TEXTS = [b"".join(chars) for n in range(5) for chars in itertools.product([b"a", b"b", b"c"], repeat=n)]
QUANTIFIERS = ["", "", "*", "+", "?", "{2}", "{0,2}", "{1,}", "{,1}"]


def expressions(names: list[str], atoms: list[str]) -> st.SearchStrategy[str]:
    """Grammar-notation expressions (shared by GBNF and Lark) over ``atoms`` and ``names``."""
    leaves = st.sampled_from(atoms + names)

    def extend(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        sequence = st.lists(children, min_size=1, max_size=3).map(" ".join)
        alternation = st.lists(children, min_size=2, max_size=3).map(lambda xs: "(" + " | ".join(xs) + ")")
        quantified = st.tuples(children, st.sampled_from(QUANTIFIERS)).map(lambda p: f"({p[0]}){p[1]}")
        return sequence | alternation | quantified

    return st.recursive(leaves, extend, max_leaves=6)


GBNF_ATOMS = ['"a"', '"b"', '"ab"', '""', "[ab]", "[^a]", "[a-c]"]
LARK_ATOMS = ['"a"', '"b"', '"ab"', '"A"i', "/[ab]/", "/b+/", '"a".."c"']


def answers(oracle: GrammarOracle) -> list[tuple[bool, bool]]:
    return [(oracle.accepts(text), oracle.is_prefix(text)) for text in TEXTS]


@st.composite
def gbnf_grammars(draw) -> str:
    # root may use r1 and r2; r1 may use r2 and root (recursion); r2 is a plain expression
    root = draw(expressions(["r1", "r2"], GBNF_ATOMS))
    r1 = draw(expressions(["r2", "root"], GBNF_ATOMS))
    r2 = draw(expressions([], GBNF_ATOMS))
    return f"root ::= {root}\nr1 ::= {r1} | \"c\"\nr2 ::= {r2}\n"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(gbnf_grammars())
def test_gbnf_folding_keeps_the_language(text):
    try:
        folded = parse_gbnf(text, fold=True)
    except GrammarError:
        try:
            parse_gbnf(text, fold=False)
        except GrammarError:
            return
        raise
    unfolded = parse_gbnf(text, fold=False)
    assert answers(GrammarOracle(folded)) == answers(GrammarOracle(unfolded)), text


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(expressions([], LARK_ATOMS))
def test_a_lark_expression_means_the_same_as_a_terminal_and_as_a_rule(expr):
    try:
        as_rule = replace(parse_lark(f"start: {expr}"), lexing="all_splits")
    except GrammarError:
        return  # e.g. only the empty string: a rule can say it, a terminal regex may not match anything else
    as_terminal = replace(parse_lark(f"start: START\nSTART: {expr}"), lexing="all_splits")
    assert answers(GrammarOracle(as_rule)) == answers(GrammarOracle(as_terminal)), expr

"""Deterministic reduction paths (Leo; ``earley._top``): right recursions, unit rules and their
cycles, nullable tails, a chain up to ``S' -> start .``, against the brute-force oracle, and a
right recursion kept in a bounded memo."""

from __future__ import annotations

import pytest

from tests.conftest import keep_coverages_wide
from tests.grammar_path.helpers import assert_walks_agree, compiled_index, grammar, small_vocabulary
from tests.reference.grammar_oracle import GrammarOracle

CASES = {
    "unary_chain_to_the_start": (  # C's unaryTerm: e -> "-" e, each completion passes S' -> e .
        grammar("e", {"e": [["MINUS", "e"], ["NUM"]]}, {"MINUS": "-", "NUM": "[0-9]+"}),
        [b"-", b"--", b"----", b"1", b"12", b"-1", b"--1", b"1-", b"-12", b"x"],
    ),
    "right_recursive_list": (
        grammar("l", {"l": [["ITEM", "COMMA", "l"], ["ITEM"]]}, {"ITEM": "[a-z]+", "COMMA": ","}),
        [b"a", b"ab", b",", b"a,", b",b", b"a,b", b",,", b"a,b,", b"1"],
    ),
    "through_unit_rules": (  # x -> y, y -> "(" x | "a": the path goes through a predicted unit item
        grammar("x", {"x": [["y"]], "y": [["LP", "x"], ["A"]], "w": [["x", "RP"]]}, {"LP": r"\(", "A": "a", "RP": r"\)"}),
        [b"(", b"((", b"a", b"(a", b"((a", b")", b"a)"],
    ),
    "unit_rule_cycle": (  # a -> b, b -> a: the path must stop, not loop
        grammar("s", {"s": [["a"]], "a": [["b"], ["X"], ["P", "a"]], "b": [["a"], ["Y"]]},
                {"X": "x", "Y": "y", "P": "p"}),
        [b"x", b"y", b"p", b"pp", b"px", b"ppy", b"xp", b"z"],
    ),
    "nullable_right_recursion": (  # s -> "a" s | (empty): the item is stepped over at closure too
        grammar("t", {"t": [["s", "B"]], "s": [["A", "s"], []]}, {"A": "a", "B": "b"}),
        [b"a", b"aa", b"aaa", b"b", b"ab", b"aab", b"ba"],
    ),
    "two_items_wait_on_one_symbol": (  # s -> a x | a x c: one of them ends at x, the other does not
        grammar("s", {"s": [["A", "x"], ["A", "x", "C"]], "x": [["B"], ["B", "x"]]}, {"A": "a", "B": "b", "C": "c"}),
        [b"a", b"b", b"c", b"ab", b"bb", b"bc", b"abc", b"abb", b"ca"],
    ),
    "two_items_wait_on_one_symbol_swapped": (  # the same, rules in the other order (item order differs)
        grammar("s", {"s": [["A", "x", "C"], ["A", "x"]], "x": [["B"], ["B", "x"]]}, {"A": "a", "B": "b", "C": "c"}),
        [b"a", b"b", b"c", b"ab", b"bb", b"bc", b"abc", b"abb", b"ca"],
    ),
    "a_predicted_item_waits_too": (  # s -> p b, b -> b q | r: b's left recursion also waits on b
        grammar("s", {"s": [["P", "b"]], "b": [["b", "Q"], ["R"]]}, {"P": "p", "Q": "q", "R": "r"}),
        [b"p", b"q", b"r", b"pr", b"rq", b"qq", b"prq", b"rqq", b"qp"],
    ),
    "right_recursion_inside_brackets": (  # the path stops below the bracket: "( s ) s" is not its end
        grammar("s", {"s": [["LP", "s", "RP", "s"], ["A", "s"], []]}, {"LP": r"\(", "RP": r"\)", "A": "a"}),
        [b"(", b")", b"a", b"aa", b"()", b"(a", b"a)", b"((", b"))", b"a(", b")a"],
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_masks_equal_the_oracle_along_random_walks(name, tmp_path, monkeypatch):
    import indexc_runtime.grammar.walker as walker

    monkeypatch.setattr(walker, "NARROW", 0)  # numpy levels too, not only the Python tail
    monkeypatch.setattr(walker, "TAIL_TOKENS", -1)
    ir, pieces = CASES[name]
    vocab = small_vocabulary(pieces)
    index = compiled_index(ir, vocab, tmp_path)
    checked = assert_walks_agree(index, GrammarOracle(ir), vocab, walks=8, steps=12, seed=len(name))
    assert checked >= 8


def test_a_right_recursion_keeps_a_bounded_memo(tmp_path):
    ir, pieces = CASES["unary_chain_to_the_start"]
    vocab = small_vocabulary(pieces)
    index = compiled_index(ir, vocab, tmp_path)
    matcher = index.matcher()
    dashes = vocab.token_bytes.index(b"----")
    sizes = []
    for _ in range(50):  # 200 nested unary minus signs
        matcher.allowed_token_ids()
        matcher.advance(dashes)
        sizes.append(len(matcher._sets))
    assert sizes[-1] == sizes[5] < 10  # one set for every depth (it grew by one per dash before)
    assert not matcher.is_accepting()
    matcher.advance(vocab.token_bytes.index(b"1"))
    assert matcher.is_accepting()


def test_dash_runs_are_entered_a_chain_at_a_time(tmp_path, monkeypatch):
    """C's unary minus after an operand: a token of many dashes is a chain of trie nodes of one
    class, which a configuration that loops on it enters at once (``_class_chain_pairs``),
    including the chain's other children (``-1``, ``->``) and one decided part-way."""
    import indexc_runtime.grammar.walker as walker

    used = []
    chain_pairs = walker.MaskWalker._class_chain_pairs
    monkeypatch.setattr(walker.MaskWalker, "_class_chain_pairs",
                        lambda self, *args: used.append(1) or chain_pairs(self, *args))
    keep_coverages_wide(monkeypatch)
    ir = grammar("e", {"e": [["t"], ["t", "OP", "e"]], "t": [["MINUS", "t"], ["NUM"], ["ID"]]},
                 {"OP": "[-+]", "MINUS": "-", "NUM": "[0-9]+", "ID": "[a-z]+"})
    runs = [b"-" * n for n in range(1, 40)] + [b"-" * 9 + b"1", b"-" * 20 + b">", b"-" * 12 + b"a", b"-" * 30 + b"+"]
    vocab = small_vocabulary([b"a", b"b", b"1", b"+", b"a-", b"a+-", b"1-"] + runs + [b"a" + r for r in runs[5:15]])
    index = compiled_index(ir, vocab, tmp_path)
    checked = assert_walks_agree(index, GrammarOracle(ir), vocab, walks=12, steps=8, seed=3)
    assert checked >= 12 and used

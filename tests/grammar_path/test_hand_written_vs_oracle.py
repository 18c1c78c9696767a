"""Hand-written grammars (nested brackets, ambiguity, nullable rules, left recursion, ignored
terminals, overlapping lexemes) against the brute-force oracle along random walks."""

from __future__ import annotations

import pytest

from tests.grammar_path.helpers import assert_walks_agree, compiled_index, grammar, small_vocabulary
from tests.reference.grammar_oracle import GrammarOracle

CASES = {
    "nested_brackets": (
        grammar("s", {"s": [["LP", "s", "RP", "s"], ["LB", "s", "RB", "s"], []]},
                {"LP": r"\(", "RP": r"\)", "LB": r"\[", "RB": r"\]"}),
        [b"(", b")", b"[", b"]", b"()", b"((", b"))", b"[]", b"([", b"])", b"()[", b"(()", b"x"],
    ),
    "ambiguous_sum": (
        grammar("e", {"e": [["e", "PLUS", "e"], ["NUM"]]}, {"PLUS": r"\+", "NUM": r"[0-9]+"}),
        [b"1", b"2", b"12", b"+", b"1+", b"+2", b"+12", b"1+2", b"++", b"a"],
    ),
    "nullable_chain": (
        grammar("s", {"s": [["a", "b", "c"]], "a": [["A"], []], "b": [["B", "b"], []], "c": [["C"], []]},
                {"A": "a", "B": "b", "C": "c"}),
        [b"a", b"b", b"c", b"ab", b"bb", b"bc", b"ac", b"abc", b"ca", b"cc"],
    ),
    "left_recursion": (
        grammar("list", {"list": [["list", "COMMA", "ITEM"], ["ITEM"]]}, {"COMMA": ",", "ITEM": "[a-z]+"}),
        [b"a", b"b", b"ab", b",", b"a,", b",b", b"a,b", b",,", b"abc", b"1"],
    ),
    "ignored_whitespace": (
        grammar("pair", {"pair": [["KEY", "EQ", "VALUE"]]},
                {"KEY": "[a-z]+", "EQ": "=", "VALUE": "[0-9]+", "WS": "[ ]+"}, ignore=["WS"]),
        [b"a", b"ab", b" ", b"  ", b"=", b" =", b"= ", b"1", b"12", b"a =", b"= 1", b"a=1", b"b "],
    ),
    "all_splits_ws_before_newline": (  # arithmetic.gbnf's case: ws* then a required "\n"
        grammar("line", {"line": [["ID", "EQ", "ID", "WS", "NL"]]},
                {"ID": "[a-z]+", "EQ": "=", "WS": "[ \\t\\n]*", "NL": "\\n"}),
        [b"a", b"b", b"=", b"\n", b" ", b"b\n", b"a=", b"=b", b"\n\n", b" \n", b"=b\n"],
    ),
    "adjacent_identifiers": (  # all splits: "ab" may be one identifier or two
        grammar("s", {"s": [["ID", "ID"], ["ID", "NUM"]]}, {"ID": "[a-z]+", "NUM": "[a-z0-9]+9"}),
        [b"a", b"b", b"ab", b"9", b"a9", b"ba", b"abc", b"99"],
    ),
    "quoted_strings": (  # a wide loop inside a lexeme: the walk starts at the loop's exits
        grammar("s", {"s": [["STR"], ["STR", "COMMA", "s"]]}, {"STR": '"[a-z ]*"', "COMMA": ","}),
        [b'"', b"a", b"ab", b" ", b'a"', b'",', b'","', b'"a', b"a b", b'b",', b",", b'"",'],
    ),
    "nullable_terminal": (
        grammar("s", {"s": [["OPT", "X", "OPT"]]}, {"OPT": "y*", "X": "x"}),
        [b"x", b"y", b"yx", b"xy", b"yy", b"yxy", b"z"],
    ),
}


@pytest.mark.parametrize("loop_exits", [False, True], ids=["root_starts", "loop_exits"])
@pytest.mark.parametrize("boundary_masks", [True, False], ids=["boundary_masks", "live_walk_only"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_masks_equal_the_oracle_along_random_walks(name, boundary_masks, loop_exits, tmp_path, monkeypatch):
    import indexc_runtime.grammar.loop_exits as exits

    monkeypatch.setattr(exits, "MIN_REGION_NODES", 1 if loop_exits else 1 << 40)  # every loop, or none
    ir, pieces = CASES[name]
    vocab = small_vocabulary(pieces)
    index = compiled_index(ir, vocab, tmp_path, boundary_masks=boundary_masks)
    checked = assert_walks_agree(index, GrammarOracle(ir), vocab, walks=6, steps=10, seed=len(name))
    assert checked >= 6

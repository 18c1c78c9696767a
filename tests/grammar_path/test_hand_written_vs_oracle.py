"""Hand-written grammars (nested brackets, ambiguity, nullable rules, left recursion, ignored
terminals, overlapping lexemes) against the brute-force oracle along random walks."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tests.conftest import keep_coverages_wide
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
    "string_or_literal": (  # a literal thread beside a string's: the loop starts a letter or two down
        grammar("s", {"s": [["STR"], ["LIT"], ["STR", "COMMA", "s"]]},
                {"STR": '"[a-z ]*"', "LIT": '"ab"', "COMMA": ","}),
        [b'"', b"a", b"b", b"ab", b"x", b"y", b" ", b'b"', b'"a', b'"ab', b'"x', b'"xy', b'",', b"abx", b'ab",',
         b",", b',"', b',"x', b',"xy', b',"xy ', b',"ab', b',"abx', b'","xy'],  # a string begun inside a token
    ),
    "literal_then_body": (  # "ab" ends inside a token and a string body goes on: a loop with a new origin
        grammar("s", {"s": [["KW", "BODY"]]}, {"KW": "ab", "BODY": '[a-z ]*"'}),
        [b"a", b"b", b"ab", b"x", b"y", b" ", b'"', b"abx", b"abxy", b"abxy ", b"aby", b'abxy"', b'xy"', b"xy",
         b"ba"],
    ),
    "nullable_terminal": (
        grammar("s", {"s": [["OPT", "X", "OPT"]]}, {"OPT": "y*", "X": "x"}),
        [b"x", b"y", b"yx", b"xy", b"yy", b"yxy", b"z"],
    ),
    "one_terminal": (  # a regular GBNF grammar folds into this: no configuration walks (test below)
        grammar("s", {"s": [["DOC"]]}, {"DOC": "(ab|a[0-9]+)(,(ab|a[0-9]+))*"}),
        [b"a", b"b", b"ab", b"a1", b"12", b",", b"ab,", b",a", b"1,a", b"a1,ab", b"x"],
    ),
}


@pytest.mark.parametrize("loop_exits, levels", [(False, "python"), (True, "python"), (True, "numpy"),
                                                 (True, "numpy_then_python"), (True, "open_places")],
                         ids=["root_starts", "loop_exits", "loop_exits_numpy_levels", "loop_exits_handed_to_python",
                              "wide_coverage_as_open_places"])
@pytest.mark.parametrize("boundary_masks", ["every", "wide", "none"], ids=["every_pair", "wide_pairs", "live_walk_only"])
@pytest.mark.parametrize("lexing", ["all_splits", "longest_match"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_masks_equal_the_oracle_along_random_walks(name, lexing, boundary_masks, loop_exits, levels, tmp_path,
                                                   monkeypatch):
    """``open_places``: the runtime's setting, where a small vocabulary's wide coverages are all
    served as open places (``OPEN_FROM_WIDE``); the other variants keep them wide, so that the
    trie walk, its loop jumps and its levels are what is checked.  Each case under both lexing
    rules (``longest_match``: a Lark file's, ``indexc.grammar.longest_match``)."""
    import indexc_runtime.grammar.loop_exits as exits
    import indexc_runtime.grammar.walker as walker

    monkeypatch.setattr(exits, "MIN_REGION_NODES", 1 if loop_exits else 1 << 40)  # every loop, or none
    if levels != "open_places":
        keep_coverages_wide(monkeypatch)
    if levels not in ("python", "open_places"):  # small vocabularies never fill a numpy level: force them (and the loop jumps in them)
        monkeypatch.setattr(walker, "NARROW", 0)
        # "numpy": never hand a level's live pairs to the Python tail; else once they hold 3 tokens or fewer
        monkeypatch.setattr(walker, "TAIL_TOKENS", -1 if levels == "numpy" else 3)
    ir, pieces = CASES[name]
    ir = replace(ir, lexing=lexing)
    vocab = small_vocabulary(pieces)
    index = compiled_index(ir, vocab, tmp_path, boundary_masks=boundary_masks)
    checked = assert_walks_agree(index, GrammarOracle(ir), vocab, walks=6, steps=10, seed=len(name))
    assert checked >= 6


def test_the_walk_jumps_over_a_loop_region_that_starts_below_the_root(tmp_path, monkeypatch):
    """``literal_then_body``: ``ab`` completes inside the token ``abxy`` and a string body begins,
    whose configuration loops one letter down (``abx``): the walk must jump there, flag the
    region's tokens below (``abxy``: no precomputed mask holds it without boundary masks) and
    agree with the oracle."""
    import indexc_runtime.grammar.loop_exits as exits
    import indexc_runtime.grammar.walker as walker

    monkeypatch.setattr(exits, "MIN_REGION_NODES", 1)
    monkeypatch.setattr(walker, "NARROW", 0)
    monkeypatch.setattr(walker, "TAIL_TOKENS", -1)
    keep_coverages_wide(monkeypatch)
    taken = []
    jumps = walker.MaskWalker._loop_jumps

    def counting(self, *args):
        found = jumps(self, *args)
        taken.append(found is not None)
        return found

    monkeypatch.setattr(walker.MaskWalker, "_loop_jumps", counting)
    ir, pieces = CASES["literal_then_body"]
    vocab = small_vocabulary(pieces)
    index = compiled_index(ir, vocab, tmp_path, boundary_masks="none")
    assert_walks_agree(index, GrammarOracle(ir), vocab, walks=6, steps=10, seed=3)
    assert any(taken)


def test_a_one_terminal_grammar_is_served_from_its_in_lexeme_masks(tmp_path, monkeypatch):
    """No token can end the only lexeme and go on, so every mask is the in-lexeme mask (plus
    eos where the text is a sentence): the walker never walks, and still agrees with the oracle."""
    import indexc_runtime.grammar.walker as walker

    walks = []
    real_walk = walker.MaskWalker._walk

    def counting(self, *args):
        walks.append(1)
        return real_walk(self, *args)

    monkeypatch.setattr(walker.MaskWalker, "_walk", counting)
    ir, pieces = CASES["one_terminal"]
    vocab = small_vocabulary(pieces)
    index = compiled_index(ir, vocab, tmp_path)
    assert assert_walks_agree(index, GrammarOracle(ir), vocab, walks=6, steps=10, seed=3) >= 6
    assert not walks

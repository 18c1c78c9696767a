"""Longest match (``lexing = "longest_match"``, Lark files): which terminals end so, the runtime's
masks against the oracle under that rule, the header that records it."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import indexc_runtime
from indexc.automaton import compile_regex
from indexc.grammar import load_grammar
from indexc.grammar.ir import Terminal
from indexc.grammar.lexemes import Lexer, build_lexer
from indexc.grammar.longest_match import ends_by_longest_match
from indexc.pipeline.grammar import compile_grammar_ir
from indexc.trie import build_trie
from indexc.vocab import vocabulary_from_tokens
from indexc_runtime.errors import ArtifactError
from tests.diff.test_diff_random_grammars import SHAPES, TERMINALS, TOKENS
from tests.grammar_path.helpers import EOS, assert_walks_agree, compiled_index, small_vocabulary
from tests.reference.grammar_oracle import GrammarOracle, _one_byte_decides
from tests.runtime.surgery import rewrite_header

# regex -> whether one byte of lookahead decides its longest match (character by character)
DECIDES = {
    "[a-z]+": True,
    "if": True,
    "a|ab": True,  # the longest here; re.match would take "a" (documented difference)
    "[ \\t]+": True,
    "//[^\\n]*": True,  # every character extends it: a lead byte tells
    "[0-9]+(\\.[0-9]+)?": False,  # "1." passes a state that does not accept
    '"[^\\n]*"': False,  # a closing quote may be followed by more body
    "\\s+": False,  # \xc2 starts U+00A0 (a space) and U+00A1 (not one)
    "[a-zé]+": False,  # \xc3 starts é and è
    "x*": False,  # matches the empty string
    "(\\r?\\n)+": False,  # "\\n\\r" passes a state that does not accept
    "[^,]+": True,
}


def _lexer(regexes: list[str]) -> Lexer:
    """The regexes as a grammar's terminals, side by side (``lexemes.build_lexer``)."""
    return build_lexer([Terminal(f"T{i}", regex) for i, regex in enumerate(regexes)], max_states=10_000, source="t")


def test_which_terminals_end_by_longest_match_and_the_oracle_agrees():
    regexes = list(DECIDES)
    assert ends_by_longest_match(_lexer(regexes)).tolist() == list(DECIDES.values())
    assert [_one_byte_decides(compile_regex(r)) for r in regexes] == list(DECIDES.values())


def test_a_lark_file_is_lexed_by_longest_match_and_a_gbnf_file_by_all_splits():
    assert load_grammar('start: A\nA: /a+/\n', syntax="lark").lexing == "longest_match"
    assert load_grammar('root ::= "a"+\n', syntax="gbnf").lexing == "all_splits"


LONGEST_CASES = {
    "keyword_then_name": (  # "ifx": the keyword ends before x (x cannot extend it), or one name
        'start: KW NAME | NAME\nKW: "if"\nNAME: /[a-z]+/\n',
        [b"i", b"f", b"if", b"x", b"ifx", b"fx", b"xi", b" ", b"1"],
    ),
    "names_need_a_separator": (  # "ab" is one name: a second name needs the comma
        'start: NAME ("," NAME)*\nNAME: /[a-z]+/\n',
        [b"a", b"b", b"ab", b",", b"a,", b",b", b"a,b", b"ba"],
    ),
    "number_keeps_all_splits": (  # one byte cannot decide "1." : the number may end before the dot
        'start: NUM (DOT NAME)?\nNUM: /[0-9]+(\\.[0-9]+)?/\nDOT: "."\nNAME: /[a-z]+/\n',
        [b"1", b"2", b"12", b".", b"1.", b".5", b"1.5", b".x", b"x", b"5.x"],
    ),
    "ignored_spaces_and_comments": (
        'start: NAME+\nNAME: /[a-z]+/\nWS: /[ ]+/\nCOMMENT: /#[^\\n]*/\n%ignore WS\n%ignore COMMENT\n',
        [b"a", b"ab", b" ", b"  ", b"a b", b"#", b"#a", b"# b", b"\n", b"b ", b" #"],
    ),
    "non_ascii_names": (  # [a-zé]+ keeps all splits; the comment body takes every character
        'start: NAME (";" NAME)* COMMENT?\nNAME: /[a-zé]+/\nCOMMENT: /\\/\\/[^\\n]*/\n',
        [b"a", "é".encode(), "è".encode(), b";", b"/", b"//", "//è".encode(), b"a;", "aé".encode(), b"\xc3"],
    ),
    "lazy_string_ends_at_its_first_quote": (  # Lark's ".*?" (``lazy_ends``): re.match's end
        'start: STRING+\nSTRING: /".*?"/\n',
        [b'"', b"a", b'"a', b'a"', b'""', b'" "', b" ", b'a""'],
    ),
    "greedy_string_keeps_all_splits": (  # ".*" : any closing quote may end the string
        'start: STRING+\nSTRING: /".*"/\n',
        [b'"', b"a", b'"a', b'a"', b'""', b'" "', b" ", b'a""'],
    ),
}


@pytest.mark.parametrize("boundary_masks", ["every", "none"], ids=["every_pair", "live_walk_only"])
@pytest.mark.parametrize("name", sorted(LONGEST_CASES))
def test_lark_grammars_against_the_oracle_under_longest_match(name, boundary_masks, tmp_path):
    text, pieces = LONGEST_CASES[name]
    ir = load_grammar(text, syntax="lark")
    assert ir.lexing == "longest_match"
    vocab = small_vocabulary(pieces)
    index = compiled_index(ir, vocab, tmp_path, boundary_masks=boundary_masks)
    assert assert_walks_agree(index, GrammarOracle(ir), vocab, walks=8, steps=10, seed=len(name)) >= 8


def test_a_name_is_one_thread_not_one_per_split(tmp_path):
    """Under all splits every letter of a run may end a name, and the configuration carries
    threads for the ways to cut the run (4 here, after ``OriginMerger``); under longest match the
    run is one lexeme, one thread."""
    text = 'start: NAME*\nNAME: /[a-z]+/\n%ignore " "\n'
    vocab = small_vocabulary([b"a", b"b", b"ab", b" "])
    threads = {}
    for lexing in ("all_splits", "longest_match"):
        ir = replace(load_grammar(text, syntax="lark"), lexing=lexing)
        index = compiled_index(ir, vocab, tmp_path, name=f"{lexing}.idx")
        matcher = index.matcher()
        for _ in range(12):
            matcher.advance(vocab.token_bytes.index(b"ab"))
        threads[lexing] = len(matcher._configs.threads[matcher._config])
        assert_walks_agree(index, GrammarOracle(ir), vocab, walks=3, steps=8)
    assert threads["longest_match"] == 1 and threads["all_splits"] > 1


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(a=TERMINALS, b=TERMINALS, c=TERMINALS, shape=st.sampled_from(SHAPES), tokens=TOKENS)
def test_random_lark_grammars_against_the_oracle(tmp_path_factory, a, b, c, shape, tokens):
    """The random grammars of ``test_diff_random_grammars`` (which compares them under all splits
    with the DFA of their language), under their own rule, against the oracle."""
    vocab = vocabulary_from_tokens([b"<eos>"] + [t.encode() for t in tokens], eos_ids=[EOS])
    ir = load_grammar(f"start: {shape[0]}\nA: /{a}/\nB: /{b}/\nC: /{c}/\n", syntax="lark")
    oracle = GrammarOracle(ir)
    if oracle.language_is_empty:
        return
    index = compiled_index(ir, vocab, tmp_path_factory.mktemp("longest"))
    assert_walks_agree(index, oracle, vocab, walks=3, steps=6)


def test_the_header_records_the_rule_and_the_terminals(tmp_path):
    ir = load_grammar('start: NAME NUM?\nNAME: /[a-z]+/\nNUM: /[0-9]+(\\.[0-9]+)?/\n', syntax="lark")
    vocab = small_vocabulary([b"a", b"1", b"1.", b".5"])
    index = compiled_index(ir, vocab, tmp_path)
    assert index.header["lexing"] == "longest_match"
    names = index.terminal_names
    assert [names[t] for t in index.header["longest_match_terminals"]] == ["NAME"]
    gbnf = compiled_index(load_grammar('root ::= [a-z]+\n', syntax="gbnf"), vocab, tmp_path, name="g.idx")
    assert gbnf.header["lexing"] == "all_splits" and "longest_match_terminals" not in gbnf.header


@pytest.mark.parametrize("change, message", [
    (lambda h: h.__setitem__("lexing", "greedy"), "lexing"),
    (lambda h: h.pop("longest_match_terminals"), "longest_match_terminals"),
    (lambda h: h.__setitem__("longest_match_terminals", [99]), "longest_match_terminals"),
    (lambda h: h.__setitem__("longest_match_terminals", [0, 0]), "strictly increasing"),
    (lambda h: h.__setitem__("longest_match_terminals", "0"), "longest_match_terminals"),
], ids=["unknown_rule", "missing", "out_of_range", "repeated", "not_a_list"])
def test_a_hostile_lexing_header_is_refused(change, message, tmp_path):
    ir = load_grammar('start: NAME ("," NAME)*\nNAME: /[a-z]+/\n', syntax="lark")
    index = compiled_index(ir, small_vocabulary([b"a", b"b", b","]), tmp_path)
    data = (tmp_path / "g.idx").read_bytes()
    assert [index.terminal_names[t] for t in indexc_runtime.load(data).header["longest_match_terminals"]] == [
        "NAME", '","']
    with pytest.raises(ArtifactError, match=message):
        indexc_runtime.load(rewrite_header(data, change))


@pytest.mark.parametrize("listed", [["NAME"], ['","'], ["NAME", '","', "LIST"]],
                         ids=["comma_left_out", "name_left_out", "one_too_many"])
def test_verify_refuses_a_longest_match_list_the_lexer_does_not_give(listed, tmp_path):
    """The header's list is decided again from the file's lexer tables (``one_byte_ends``): load
    bounds it, ``verify`` checks it is the lexer's."""
    ir = load_grammar('start: NAME ("," NAME)* LIST?\nNAME: /[a-z]+/\nLIST: /[0-9]+(\\.[0-9]+)?/\n', syntax="lark")
    index = compiled_index(ir, small_vocabulary([b"a", b"b", b",", b"1", b"1."]), tmp_path)
    index.verify()
    names = list(index.terminal_names)
    wrong = sorted(names.index(name) for name in listed)
    data = rewrite_header((tmp_path / "g.idx").read_bytes(), lambda h: h.__setitem__("longest_match_terminals", wrong))
    with pytest.raises(ArtifactError, match="longest_match_terminals are not"):
        indexc_runtime.load(data).verify()


@pytest.mark.parametrize("text, never", [
    ('start: A B\nA: /a+/\nB: "a"\n', ["A"]),  # every byte after A extends it
    ('start: A B?\nA: /a+/\nB: "a"\n', []),  # A may end the text
    ('start: A B\nA: /a+/\nB: /[ab]/\n', []),  # B may start with b, which ends A
    ('start: A B\nA: /a+/\nB: "a"\n%ignore " "\n', []),  # a space may come between
])
def test_a_terminal_that_never_ends_is_warned_about(text, never, tmp_path):
    ir = load_grammar(text, syntax="lark")
    vocab = small_vocabulary([b"a", b"b"])
    result = compile_grammar_ir(ir, vocab, build_trie(vocab), source="t")
    assert [w.split()[1] for w in result.constraint["warnings"] if "never ends" in w] == never

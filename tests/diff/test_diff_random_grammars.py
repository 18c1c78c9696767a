"""Random regular grammars on the grammar path against the DFA of the same language, every state.

Hypothesis builds small terminals (pieces over ``a b 1 , space``), puts them in a grammar shape
(a sequence, an alternative, an optional, a repetition), written in Lark (terminals as
``/regex/``) or in GBNF (rules of character classes and literals, which the GBNF front end
turns into lexemes itself), and a random small vocabulary of multi-byte tokens; the grammar is
compiled on the grammar path (lexer tables, boundary masks, undecided sets, the live Earley
walk) and the regex that spells the same language on the DFA path.  A regular grammar's parser configurations are finite, so ``indexc diff`` walks every
reachable state pair and must find every mask equal.  The tokens cross terminal boundaries
(``a,``, ``1 b``), which is what the boundary masks, the undecided sets and the live walk are
for; the DFA path knows nothing of terminals.  The Lark grammars are compiled under all splits (the
IR's ``lexing``), where a grammar's language is its terminals' languages concatenated; under
Lark's own rule, longest match, ``A: /aa?/`` before ``B: /a/`` never ends after one ``a``, and
no regex of the shape says so (``tests/grammar_path/test_longest_match.py`` checks that rule
against the oracle instead).
"""

from __future__ import annotations

from dataclasses import replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from indexc.diff import diff_artifacts
from indexc.grammar import load_grammar
from indexc.pipeline import write
from indexc.pipeline.grammar import compile_grammar, compile_grammar_ir
from indexc.trie.build import build_trie
from indexc.vocab import vocabulary_from_tokens
from tests.diff.conftest import compile_to

ALPHABET = "ab1, "
# a piece as a regex and as GBNF (a literal is quoted there; classes read the same)
PIECES = st.sampled_from([("a", '"a"'), ("b", '"b"'), ("1", '"1"'), (",", '","'), (" ", '" "'), ("[ab]", "[ab]"),
                          ("[a1]", "[a1]"), ("[^,]", "[^,]"), ("[0-9]", "[0-9]")])
FIRST = st.tuples(PIECES, st.sampled_from(["", "", "+", "{1,2}"]))  # never empty
REST = st.tuples(PIECES, st.sampled_from(["", "?", "*", "+", "{0,2}"]))
PIECE_LISTS = st.tuples(FIRST, st.lists(REST, max_size=2)).map(lambda t: [t[0], *t[1]])


def regex_of(pieces) -> str:
    return "".join(regex + quantifier for (regex, _), quantifier in pieces)


def gbnf_of(pieces) -> str:
    return " ".join(gbnf + quantifier for (_, gbnf), quantifier in pieces)


TERMINALS = PIECE_LISTS.map(regex_of)

# (Lark rule over terminals A, B and C, the same language as one regex; a space ignored between
# terminals, before and after them, in the last shape)
SHAPES = [
    ("A B", "(?:{a})(?:{b})"),
    ("A | B", "(?:{a})|(?:{b})"),
    ("A B?", "(?:{a})(?:{b})?"),
    ("(A B)+", "(?:(?:{a})(?:{b}))+"),
    ("A (B A)*", "(?:{a})(?:(?:{b})(?:{a}))*"),
    ("(A | B)+ C", "(?:(?:{a})|(?:{b}))+(?:{c})"),
    ("A (B | C)* A", "(?:{a})(?:(?:{b})|(?:{c}))*(?:{a})"),
    ("A B+\n%ignore \" \"", " *(?:{a}) *(?:(?:{b}) *)+"),
]
TOKENS = st.lists(st.text(ALPHABET, min_size=1, max_size=5), min_size=8, max_size=32, unique=True)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(a=TERMINALS, b=TERMINALS, c=TERMINALS, shape=st.sampled_from(SHAPES), tokens=TOKENS)
def test_grammar_path_equals_dfa_path_in_every_state(tmp_path_factory, a, b, c, shape, tokens):
    rule, regex = shape
    vocab = vocabulary_from_tokens([t.encode() for t in tokens] + [b"<eos>"], eos_ids=[len(tokens)])
    folder = tmp_path_factory.mktemp("random-grammar")
    grammar = f"start: {rule}\nA: /{a}/\nB: /{b}/\nC: /{c}/\n"
    ir = replace(load_grammar(grammar, syntax="lark"), lexing="all_splits")
    write(compile_grammar_ir(ir, vocab, build_trie(vocab), source=grammar), vocab, str(folder / "g.idx"))
    compile_to(folder / "d.idx", regex.format(a=a, b=b, c=c), vocab)
    assert_same_masks(folder, grammar)


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(a=PIECE_LISTS, b=PIECE_LISTS, shape=st.sampled_from(SHAPES[:5]), tokens=TOKENS)
def test_gbnf_grammar_path_equals_dfa_path_in_every_state(tmp_path_factory, a, b, shape, tokens):
    rule, regex = shape
    vocab = vocabulary_from_tokens([t.encode() for t in tokens] + [b"<eos>"], eos_ids=[len(tokens)])
    folder = tmp_path_factory.mktemp("random-gbnf")
    grammar = f"root ::= {rule.replace('A', 'ra').replace('B', 'rb')}\nra ::= {gbnf_of(a)}\nrb ::= {gbnf_of(b)}\n"
    write(compile_grammar(grammar, vocab, build_trie(vocab), syntax="gbnf"), vocab, str(folder / "g.idx"))
    compile_to(folder / "d.idx", regex.format(a=regex_of(a), b=regex_of(b)), vocab)
    assert_same_masks(folder, grammar)


def assert_same_masks(folder, grammar: str) -> None:
    report = diff_artifacts(str(folder / "d.idx"), str(folder / "g.idx"), max_pairs=20_000)
    assert report.complete, grammar
    assert report.identical, (grammar, [(p.witness, p.only_a, p.only_b) for p in report.pairs[:3]],
                              report.accepted_witness)

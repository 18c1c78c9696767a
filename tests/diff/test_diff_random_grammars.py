"""Random regular grammars on the grammar path against the DFA of the same language, every state.

Hypothesis builds small terminals (regexes over ``a b 1 , space``), puts them in a grammar shape
(a sequence, an alternative, an optional, a repetition) and a random small vocabulary of
multi-byte tokens; the grammar is compiled on the grammar path (lexer tables, boundary masks,
undecided sets, the live Earley walk) and the regex that spells the same language on the DFA
path.  A regular grammar's parser configurations are finite, so ``indexc diff`` walks every
reachable state pair and must find every mask equal.  The tokens cross terminal boundaries
(``a,``, ``1 b``), which is what the boundary masks, the undecided sets and the live walk are
for; the DFA path knows nothing of terminals.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from indexc.diff import diff_artifacts
from indexc.pipeline import write
from indexc.pipeline.grammar import compile_grammar
from indexc.trie.build import build_trie
from indexc.vocab import vocabulary_from_tokens
from tests.diff.conftest import compile_to

ALPHABET = "ab1, "
PIECES = st.sampled_from(["a", "b", "1", ",", " ", "[ab]", "[a1]", "[^,]", "[0-9]"])
FIRST = st.tuples(PIECES, st.sampled_from(["", "", "+", "{1,2}"])).map("".join)  # never empty
REST = st.tuples(PIECES, st.sampled_from(["", "?", "*", "+", "{0,2}"])).map("".join)
TERMINALS = st.tuples(FIRST, st.lists(REST, max_size=2)).map(lambda t: t[0] + "".join(t[1]))
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
    write(compile_grammar(grammar, vocab, build_trie(vocab), syntax="lark"), vocab, str(folder / "g.idx"))
    compile_to(folder / "d.idx", regex.format(a=a, b=b, c=c), vocab)
    report = diff_artifacts(str(folder / "d.idx"), str(folder / "g.idx"), vocab_a=vocab, vocab_b=vocab,
                            max_pairs=20_000)
    assert report.complete, grammar
    assert report.identical, (grammar, [(p.witness, p.only_a, p.only_b) for p in report.pairs[:3]],
                              report.accepted_witness)

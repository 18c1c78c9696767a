"""Against llguidance (``no_forcing``) with Llama-3 along the bundled sample documents.

llguidance lexes greedily (a lexeme extends as far as it can), we follow every split for GBNF
and, for a Lark file (``rfc.lark``), end each terminal by its own longest match where one byte
decides it (``docs/grammar-path.md``).  A text that greedy lexing accepts is accepted by either
rule (llguidance ends a lexeme only where nothing can take the next byte, so that lexeme could
not take it either), so the languages nest: at every step llguidance's allowed text tokens must be a subset of
ours, and where llguidance may stop, so may we.  Where a shorter split exists ours is larger:
the test reports how much (``-s``), requires exactly the documented differences
(``EXPECTED_EXTRA``; none but one step of C), and checks that both accept the sample's own
tokens.
"""

from __future__ import annotations

from pathlib import Path

import llguidance
import pytest

import indexc_runtime
from indexc.grammar import load_grammar
from indexc.pipeline import write
from indexc.pipeline.grammar import compile_grammar_ir
from indexc.trie import build_trie
from tests.conftest import bundled_tokenizer_file
from tests.reference.llguidance_oracle import NO_FORCING_HEADER, LlgOracle, LlgRegexMatcher

GRAMMARS = Path(__file__).resolve().parents[1] / "data" / "grammars"
# grammar -> (sample document, steps compared): 40 tokens, or all of rfc.xml's 168 (Lark, ~3 s)
CASES = {"gbnf/json.gbnf": ("json.json", 40), "gbnf/vllm-sql.gbnf": ("vllm-sql.sql", 40), "gbnf/c.gbnf": ("c.c", 40),
         "lark/rfc.lark": ("rfc.xml", None)}
# the steps where we allow more than llguidance, and how many tokens more (``docs/grammar-path.md``,
# "Tests"): after ``int main(){int`` also `` =``, `` (`` ...: ``int`` is an identifier too, and
# llguidance's lexer gives the tie to the keyword.  Everywhere else the masks are the same.
EXPECTED_EXTRA = {"gbnf/c.gbnf": {14: 13}}


@pytest.fixture(scope="module")
def llama3(bundled_vocabulary):
    vocab = bundled_vocabulary("llama3")
    return vocab, build_trie(vocab), LlgOracle(bundled_tokenizer_file("llama3"))


def llguidance_grammar(grammar_file: str, text: str) -> str:
    lark = llguidance.gbnf_to_lark.gbnf_to_lark(text) if grammar_file.endswith(".gbnf") else text
    return f"{NO_FORCING_HEADER}\n{lark}"


@pytest.mark.parametrize("grammar_file", sorted(CASES))
def test_llguidance_masks_are_subsets_of_ours_along_the_sample(grammar_file, llama3, tmp_path):
    vocab, trie, oracle = llama3
    text = (GRAMMARS / grammar_file).read_text()
    ir = load_grammar(text, source=grammar_file)
    write(compile_grammar_ir(ir, vocab, trie, source=text), vocab, str(tmp_path / "g.idx"))
    ours = indexc_runtime.load(tmp_path / "g.idx", expected_fingerprint=vocab.fingerprint).matcher()
    theirs = LlgRegexMatcher(oracle, llguidance.LLMatcher(oracle.tokenizer, llguidance_grammar(grammar_file, text),
                                                          log_level=0))
    eos = set(oracle.eos_ids.tolist()) | set(vocab.eos_ids)
    sample_file, steps = CASES[grammar_file]
    extra = []
    for position, token in enumerate(oracle.tokenize((GRAMMARS / "samples" / sample_file).read_text())[:steps]):
        mine = set(ours.allowed_token_ids().tolist()) - eos
        llg = set(theirs.exact_allowed_ids().tolist()) - eos
        assert llg <= mine, f"step {position}: llguidance only {sorted(llg - mine)[:10]}"
        if theirs.is_accepting():
            assert ours.is_accepting(), f"step {position}: llguidance may stop here, we may not"
        assert token in mine and token in llg, f"step {position}: the sample's token {token}"
        extra.append(len(mine - llg))
        ours.advance(token)
        theirs.advance(token)
    print(f"{grammar_file}: tokens only we allow, per step: {extra}")
    assert {step: n for step, n in enumerate(extra) if n} == EXPECTED_EXTRA.get(grammar_file, {})

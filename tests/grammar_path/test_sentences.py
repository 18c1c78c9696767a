"""``indexc.grammar.sentences``: sampled sentences are sentences, every derivation ends, the
sampler is reproducible and covers every rule; the warm-up tokens they become."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from indexc.artifact import warm_memo
from indexc.artifact.warm_memo import TEXT_END
from indexc.grammar import load_grammar
from indexc.grammar.earley_tables import trimmed
from indexc.grammar.lexemes import build_lexer
from indexc.grammar.longest_match import ends_by_longest_match
from indexc.grammar.sentences import SentenceLimits, SentenceSampler
from indexc.pipeline.grammar import warm_up_tokens
from tests.grammar_path.helpers import grammar, vocabulary_from_text
from tests.reference.grammar_oracle import GrammarOracle

GRAMMARS = Path(__file__).resolve().parents[1] / "data" / "grammars"
BUNDLED = ["gbnf/arithmetic.gbnf", "gbnf/c.gbnf", "gbnf/chess.gbnf", "gbnf/json.gbnf", "gbnf/json_arr.gbnf",
           "gbnf/list.gbnf", "gbnf/vllm-sql.gbnf", "gbnf/english.gbnf", "lark/rfc.lark", "lark/lark.lark"]


def sampler(ir, seed: int = 0, limits: SentenceLimits = SentenceLimits()) -> SentenceSampler:
    rules, names, _ = trimmed(ir)
    lexer = build_lexer([ir.terminals[name] for name in names], max_states=100_000, source="test")
    longest = ends_by_longest_match(lexer) if ir.lexing == "longest_match" else None
    return SentenceSampler(ir.start, rules, lexer, ir.ignore, seed=seed, limits=limits, longest=longest)


@pytest.mark.parametrize("grammar_file", BUNDLED)
def test_every_sampled_sentence_of_a_bundled_grammar_is_in_its_language(grammar_file):
    ir = load_grammar((GRAMMARS / grammar_file).read_text(encoding="utf-8"), source=grammar_file)
    oracle = GrammarOracle(ir)
    sentences = sampler(ir, seed=7, limits=SentenceLimits(max_terminals=40)).sentences()
    for _ in range(10):
        text = next(sentences)
        assert oracle.accepts(text), (grammar_file, text[:200])


def test_recursion_unit_cycles_and_nullable_rules_end_and_ignored_terminals_go_between():
    """Left and right recursion, a cycle of unit rules (``a -> b``, ``b -> a | X``) and a nullable
    loop: every derivation ends (the least-height rules close it); ``%ignore``'s terminal appears
    between terminals, never first."""
    ir = grammar("s", {"s": [["s", "PLUS", "t"], ["t"]], "t": [["a"], ["LP", "s", "RP"], ["t", "opt"]],
                       "a": [["b"]], "b": [["a"], ["X"]], "opt": [[], ["opt", "BANG"]]},
                 {"PLUS": r"\+", "LP": r"\(", "RP": r"\)", "X": "x[0-9]*", "BANG": "!", "WS": " "}, ignore=["WS"])
    oracle = GrammarOracle(ir)
    sentences = sampler(ir, limits=SentenceLimits(max_depth=12, max_terminals=30)).sentences()
    texts = [next(sentences) for _ in range(40)]
    assert all(oracle.accepts(text) for text in texts)
    assert any(b" " in text for text in texts) and not any(text.startswith(b" ") for text in texts)
    assert any(b"(" in text for text in texts) and any(b"!" in text for text in texts)


def test_the_same_seed_gives_the_same_sentences_and_every_rule_is_taken():
    ir = load_grammar((GRAMMARS / "gbnf/arithmetic.gbnf").read_text(encoding="utf-8"), source="arithmetic.gbnf")
    first, again, other = (sampler(ir, seed=seed) for seed in (1, 1, 2))
    texts = [first.sentence() for _ in range(20)]
    assert texts == [again.sentence() for _ in range(20)] != [other.sentence() for _ in range(20)]
    rules, _, _ = trimmed(ir)
    taken = {(lhs, rhs) for (_, lhs, rhs) in first.used}
    assert taken == {(rule.lhs, rule.rhs) for rule in rules}  # the least-used option first: all of them


def test_warm_up_tokens_end_each_text_and_keep_to_the_budget(monkeypatch):
    vocab = vocabulary_from_text("[1, 22, 333]", pieces=30)
    sentences = iter([b"[1]", b"", b"[22, 333]", b"[1, 1]"])
    tokens = warm_up_tokens(vocab, "[333]", sentences, sampled=5)
    texts = np.split(tokens, np.flatnonzero(tokens == TEXT_END) + 1)
    assert tokens[-1] == TEXT_END and texts[-1].size == 0  # every text ends with TEXT_END
    assert [bytes(b"".join(vocab.token_bytes[t] for t in text[:-1])) for text in texts[:-1]][0] == b"[333]"
    assert (tokens != TEXT_END).sum() - len(texts[0][:-1]) == 5  # the sampled ones: cut at the budget
    assert warm_up_tokens(vocab, None, iter([b"[1]"]), sampled=0).size == 0
    monkeypatch.setattr(warm_memo, "MAX_WARM_UP_TOKENS", 4)  # in all: the given text first, then samples
    assert (warm_up_tokens(vocab, "[1, 22, 333]", iter([b"[1]"]), sampled=5) != TEXT_END).sum() == 4
    capped = warm_up_tokens(vocab, "[1]", iter([b"[1]", b"[22]"]), sampled=5)
    assert (capped != TEXT_END).sum() == 4 and (capped == TEXT_END).sum() == 2

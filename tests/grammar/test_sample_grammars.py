"""Every bundled sample grammar loads, and the oracle agrees with its sample document.

The IR sizes (rules, terminals) are printed with ``-s`` for the record; what is asserted is
behaviour: the document is a sentence, the corrupted document is not even a prefix, and GBNF's
folding of regular parts gives the same answers as one terminal per literal and class.
"""

from __future__ import annotations

import random

import pytest

from indexc.grammar import GrammarError, load_grammar, load_grammar_file, parse_gbnf
from tests.grammar.samples import GBNF_SAMPLES, GRAMMAR_DIR, SAMPLES
from tests.reference.grammar_oracle import GrammarOracle

REGULAR_GBNF = ["chess.gbnf", "english.gbnf", "japanese.gbnf", "list.gbnf", "vllm-sql.gbnf"]


@pytest.fixture(scope="module")
def oracles():
    cache: dict[str, GrammarOracle] = {}

    def get(sample):
        if sample.grammar not in cache:
            cache[sample.grammar] = GrammarOracle(load_grammar_file(sample.grammar_path))
        return cache[sample.grammar]

    return get


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda s: s.name)
def test_sample_document_is_a_sentence_and_its_corruption_is_not_viable(sample, oracles):
    grammar = load_grammar_file(sample.grammar_path)
    print(f"{sample.name}: {len(grammar.rules)} rules, {len(grammar.terminals)} terminals")
    grammar.validate()
    assert _every_rule_reachable_and_productive(grammar)
    oracle = oracles(sample)
    assert oracle.accepts(sample.document_bytes)
    assert not oracle.is_prefix(sample.corrupted_bytes)
    assert not oracle.accepts(sample.document_bytes + b"\x00")


@pytest.mark.parametrize("name", REGULAR_GBNF)
def test_a_regular_gbnf_grammar_becomes_one_terminal(name):
    grammar = load_grammar_file(GRAMMAR_DIR / "gbnf" / name)
    assert len(grammar.terminals) == 1
    assert [rule.rhs for rule in grammar.rules] == [tuple(grammar.terminals)]


@pytest.mark.parametrize("sample", GBNF_SAMPLES, ids=lambda s: s.name)
def test_folding_keeps_the_gbnf_language(sample):
    folded = GrammarOracle(parse_gbnf(sample.grammar_text, source=sample.grammar))
    unfolded_grammar = parse_gbnf(sample.grammar_text, source=sample.grammar, fold=False)
    unfolded = GrammarOracle(unfolded_grammar)
    assert len(unfolded_grammar.terminals) >= len(folded.grammar.terminals)
    document = sample.document_bytes
    rng = random.Random(sample.name)
    texts = [document[:i] for i in range(len(document) + 1)]
    for _ in range(30):  # random single-byte edits of the document, mostly unviable
        i = rng.randrange(len(document))
        texts.append(document[:i] + bytes([rng.choice(b" \n\"(){}[],.:;=+-*/0123456789abexyz")]) + document[i + 1 :])
    for text in texts:
        assert folded.is_prefix(text) == unfolded.is_prefix(text), text
        assert folded.accepts(text) == unfolded.accepts(text), text


@pytest.mark.parametrize("sample", GBNF_SAMPLES, ids=lambda s: s.name)
def test_random_sentences_of_one_gbnf_form_are_sentences_of_the_other(sample):
    folded = GrammarOracle(parse_gbnf(sample.grammar_text))
    unfolded = GrammarOracle(parse_gbnf(sample.grammar_text, fold=False))
    rng = random.Random(sample.name)
    for source, judge in ((folded, unfolded), (unfolded, folded)):
        for _ in range(3):
            sentence = source.random_sentence(rng, max_bytes=40, stop_probability=0.3)
            if sentence is not None:
                assert judge.accepts(sentence), sentence


def test_simple_py_uses_llguidance_extensions_and_is_refused_where_they_start():
    text = (GRAMMAR_DIR / "lark" / "simple_py.lark").read_text()
    with pytest.raises(GrammarError) as error:
        load_grammar(text, source="simple_py.lark")
    assert (error.value.line, error.value.column) == (1, 1)
    assert "%llguidance" in str(error.value)
    # without its %llguidance block, the indentation terminals it relies on are undefined
    body = text[text.index("}") + 1 :]
    with pytest.raises(GrammarError, match="undefined symbol 'KEEPDENT'"):
        load_grammar(body, source="simple_py.lark")


def _every_rule_reachable_and_productive(grammar) -> bool:
    """The invariant the Earley path relies on (see ``indexc.grammar.checks``)."""
    productive = set(grammar.terminals)
    for _ in grammar.rules:
        productive |= {rule.lhs for rule in grammar.rules if all(s in productive for s in rule.rhs)}
    reachable, pending = set(), [grammar.start]
    while pending:
        symbol = pending.pop()
        if symbol not in reachable:
            reachable.add(symbol)
            pending.extend(s for rule in grammar.rules if rule.lhs == symbol for s in rule.rhs)
    used = reachable | set(grammar.ignore)
    return grammar.nonterminals <= productive and grammar.nonterminals <= reachable and set(grammar.terminals) <= used

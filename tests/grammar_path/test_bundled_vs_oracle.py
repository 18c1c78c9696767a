"""The bundled Lark and GBNF grammars against the brute-force oracle, on small vocabularies made
from each grammar's sample document: masks along the document's own (greedy) tokenization,
then along random walks from the start."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from indexc.grammar import load_grammar
from indexc_runtime.grammar.format import GRAMMAR_FORMAT_VERSION
from tests.conftest import keep_coverages_wide
from tests.grammar_path.helpers import EOS, assert_walks_agree, compiled_index, vocabulary_from_text
from tests.reference.grammar_oracle import GrammarOracle

GRAMMARS = Path(__file__).resolve().parents[1] / "data" / "grammars"
SAMPLES = {
    "gbnf/arithmetic.gbnf": "arithmetic.txt",
    "gbnf/json.gbnf": "json.json",
    "gbnf/json_arr.gbnf": "json_arr.json",
    "gbnf/list.gbnf": "list.txt",
    "gbnf/chess.gbnf": "chess.pgn",
    "gbnf/c.gbnf": "c.c",
    "gbnf/vllm-sql.gbnf": "vllm-sql.sql",
    "lark/rfc.lark": "rfc.xml",
    "lark/lark.lark": "lark.lark.txt",
    "gbnf/english.gbnf": "english.txt",
    "gbnf/japanese.gbnf": "japanese.txt",
}
DOCUMENT_TOKENS = 24


def greedy_tokens(text: bytes, vocab) -> list[int]:
    """Longest-match tokenization of ``text`` with the small vocabulary (it holds every byte)."""
    by_bytes = {b: i for i, b in enumerate(vocab.token_bytes) if b and i != EOS}
    longest = max(len(b) for b in by_bytes)
    ids, position = [], 0
    while position < len(text):
        for size in range(min(longest, len(text) - position), 0, -1):
            token = by_bytes.get(text[position : position + size])
            if token is not None:
                ids.append(token)
                position += size
                break
    return ids


@pytest.mark.parametrize("boundary_masks, loop_exits, open_places",
                         [("every", False, False), ("wide", False, False), ("none", False, False),
                          ("every", True, False), ("none", True, True)],
                         ids=["every_pair", "wide_pairs", "live_walk_only", "every_loop_exit",
                              "wide_coverage_as_open_places"])
@pytest.mark.parametrize("grammar_file", sorted(SAMPLES))
def test_masks_equal_the_oracle_on_the_sample_and_random_walks(grammar_file, boundary_masks, loop_exits, open_places,
                                                                tmp_path, monkeypatch):
    """``open_places``: the runtime's setting, where a small vocabulary's wide coverages (every
    one, without boundary masks) are served as open places (``OPEN_FROM_WIDE``); the other
    variants keep them wide, so that the trie walk and its loop jumps are what is checked."""
    import indexc_runtime.grammar.loop_exits as exits

    monkeypatch.setattr(exits, "MIN_REGION_NODES", 1 if loop_exits else 1 << 40)  # every loop, or none
    if not open_places:
        keep_coverages_wide(monkeypatch)
    text = (GRAMMARS / "samples" / SAMPLES[grammar_file]).read_text()[:400]
    ir = load_grammar((GRAMMARS / grammar_file).read_text(), source=grammar_file)
    vocab = vocabulary_from_text(text, pieces=80)
    index = compiled_index(ir, vocab, tmp_path, boundary_masks=boundary_masks)
    oracle = GrammarOracle(ir)
    token_bytes = [None if i == EOS else b for i, b in enumerate(vocab.token_bytes)]
    matcher, prefix = index.matcher(), b""
    for token in greedy_tokens(text.encode(), vocab)[:DOCUMENT_TOKENS]:
        expected = oracle.allowed_tokens(prefix, token_bytes, [EOS])
        assert set(matcher.allowed_token_ids().tolist()) == expected, f"after {prefix!r}"
        assert token in expected, f"the sample's token {vocab.token_bytes[token]!r} after {prefix!r}"
        matcher.advance(token)
        prefix += vocab.token_bytes[token]
    assert_walks_agree(index, oracle, vocab, walks=2, steps=6, seed=1)


@pytest.mark.parametrize("grammar_file", sorted(SAMPLES))
def test_masks_served_by_language_key_equal_the_oracle(grammar_file, tmp_path):
    """As ``indexc compile --grammar`` writes it: sampled sentences walked at compile time, their
    configurations' masks stored with their language keys (format 8), so that the sample's and
    the random walks' masks may come from a stored key, a live one or a walk."""
    index, _ = _sample_and_walks_agree(grammar_file, tmp_path, seed=2, boundary_masks="default",
                                       sampled_warm_up=256, language_keys=True)
    assert index.format_version == GRAMMAR_FORMAT_VERSION and index.header["stats"]["warm_up"]["language_keys"] > 0


@pytest.mark.parametrize("grammar_file", sorted(SAMPLES))
def test_masks_equal_the_oracle_with_every_configuration_merged(grammar_file, tmp_path, monkeypatch):
    """``languages.OriginMerger`` on every configuration (the runtime merges only those where
    more than ``MERGE_FROM_SHARED`` threads share a terminal and state): a thread whose origin
    has the language of another's, with the same terminal and state, is dropped, and no mask
    changes.  Under all splits lark.lark's names may be split at any letter, so its configurations
    hold one origin per split: there threads are dropped (under its own rule, longest match, a
    name is one thread and no bundled sample merges)."""
    import indexc_runtime.grammar.languages as languages

    monkeypatch.setattr(languages, "MERGE_FROM_SHARED", 0)
    _, matcher = _sample_and_walks_agree(grammar_file, tmp_path, seed=3)
    if grammar_file == "lark/lark.lark":  # lexed by all splits: one thread per way to cut a name
        _, matcher = _sample_and_walks_agree(grammar_file, tmp_path, seed=3, lexing="all_splits")
        assert matcher._configs.merger.dropped > 0
        assert matcher._configs._merged_ids  # steps whose merge dropped threads are kept by their threads before it


def _sample_and_walks_agree(grammar_file: str, tmp_path, *, seed: int, lexing: str | None = None, **options):
    """Compile the grammar with a small vocabulary from its sample (``options``: ``compiled_index``'s;
    ``lexing``: another rule than the front end's), check the masks along the sample and random
    walks against the oracle; the index, and the matcher that walked the sample."""
    text = (GRAMMARS / "samples" / SAMPLES[grammar_file]).read_text()[:400]
    ir = load_grammar((GRAMMARS / grammar_file).read_text(), source=grammar_file)
    ir = ir if lexing is None else replace(ir, lexing=lexing)
    vocab = vocabulary_from_text(text, pieces=80)
    index = compiled_index(ir, vocab, tmp_path, **options)
    oracle = GrammarOracle(ir)
    token_bytes = [None if i == EOS else b for i, b in enumerate(vocab.token_bytes)]
    matcher, prefix = index.matcher(), b""
    for token in greedy_tokens(text.encode(), vocab)[:DOCUMENT_TOKENS]:
        assert set(matcher.allowed_token_ids().tolist()) == oracle.allowed_tokens(prefix, token_bytes, [EOS]), prefix
        matcher.advance(token)
        prefix += vocab.token_bytes[token]
    assert_walks_agree(index, oracle, vocab, walks=3, steps=8, seed=seed)
    return index, matcher

"""The loop regions the compiler stores (format version 3) are the ones the runtime would build.

For every lexer state, the compiler stores the region of its self-loop
class set ``L(q)`` (``grammar_table.stored_loop_regions``, with the runtime's own
``find_region``); the runtime answers those sets from the file (``LoopExits.of``) and builds
only the others.  Checked here: the stored sets are exactly the wide ``L(q)`` of the
lexer states, deduplicated; each decodes to the exits a runtime without stored
regions builds (flags, nodes, classes, region); a stored set is answered without a build; and
the masks along random walks still equal the oracle's with regions served from the file.
Small vocabularies with ``MIN_REGION_NODES`` at 1 (every loop is wide), and the bundled JSON
and C grammars with Llama-3 at the real threshold.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from indexc.grammar import load_grammar
from indexc.pipeline import write
from indexc.pipeline.grammar import compile_grammar_ir
from indexc.trie import build_trie
import indexc_runtime
from indexc_runtime.grammar.loop_exits import LoopExits
from tests.conftest import keep_coverages_wide
from tests.grammar_path.helpers import assert_walks_agree, compiled_index, vocabulary_from_text
from tests.reference.grammar_oracle import GrammarOracle

GRAMMARS = Path(__file__).resolve().parents[1] / "data" / "grammars"
SAMPLES = {"gbnf/json.gbnf": "json.json", "gbnf/c.gbnf": "c.c", "gbnf/vllm-sql.gbnf": "vllm-sql.sql",
           "lark/rfc.lark": "rfc.xml", "gbnf/arithmetic.gbnf": "arithmetic.txt"}


def expected_loop_sets(index) -> set[bytes]:
    """The keys of the lexer states' loop sets whose region is wide (``_loop_of`` asks for the
    non-accepting ones', ``_starts`` for an accepting one's where its configuration loops so)."""
    lexer = index._lexer
    fresh = LoopExits(index._trie, 32 * index.mask_words)
    found = set()
    for state in range(index.n_states):
        loop = lexer.next[state] == state
        if loop.any() and fresh.of(loop) is not None:
            found.add(np.packbits(loop).tobytes())
    return found


def assert_stored_regions_are_built_ones(index) -> int:
    """Every stored region's exits equal a fresh build's; the stored sets are the expected ones."""
    loops = index.section("loop_classes").astype(bool)
    assert {np.packbits(loop).tobytes() for loop in loops} == expected_loop_sets(index)
    fresh = LoopExits(index._trie, 32 * index.mask_words)  # no stored regions: builds every set
    for loop in loops:
        stored, built = index._loop_exits.of(loop), fresh.of(loop)
        assert stored is not None and built is not None
        for name in ("token_flags", "nodes", "classes", "in_region", "region_tokens"):
            assert np.array_equal(getattr(stored, name), getattr(built, name)), name
    return len(loops)


@pytest.mark.parametrize("grammar_file", sorted(SAMPLES))
def test_stored_regions_equal_the_built_ones_on_small_vocabularies(grammar_file, tmp_path, monkeypatch):
    import indexc_runtime.grammar.loop_exits as exits

    monkeypatch.setattr(exits, "MIN_REGION_NODES", 1)  # the compiler reads it too: every loop is stored
    text = (GRAMMARS / "samples" / SAMPLES[grammar_file]).read_text()[:400]
    ir = load_grammar((GRAMMARS / grammar_file).read_text(), source=grammar_file)
    vocab = vocabulary_from_text(text, pieces=80)
    index = compiled_index(ir, vocab, tmp_path, boundary_masks="none")
    assert index.format_version >= 3  # the loop sections (version 3 on)
    stored = assert_stored_regions_are_built_ones(index)
    if grammar_file in ("gbnf/json.gbnf", "gbnf/c.gbnf"):  # string bodies, identifiers: the loops to store
        assert stored > 0
    index.verify()


def test_a_stored_loop_set_is_answered_without_a_build(tmp_path, monkeypatch):
    """Regions served from the file along the oracle's random walks: ``find_region`` is only
    called for sets the compiler did not store (a configuration-level loop at the walk's root)."""
    import indexc_runtime.grammar.loop_exits as exits

    monkeypatch.setattr(exits, "MIN_REGION_NODES", 1)
    keep_coverages_wide(monkeypatch)
    ir = load_grammar((GRAMMARS / "gbnf/json.gbnf").read_text(), source="json.gbnf")
    vocab = vocabulary_from_text((GRAMMARS / "samples" / "json.json").read_text()[:400], pieces=80)
    index = compiled_index(ir, vocab, tmp_path, boundary_masks="none")
    stored = {np.packbits(loop).tobytes() for loop in index.section("loop_classes").astype(bool)}
    built = []
    find_region = exits.find_region

    def recording(trie, loop, *args, **kwargs):
        built.append(np.packbits(loop).tobytes())
        return find_region(trie, loop, *args, **kwargs)

    monkeypatch.setattr(exits, "find_region", recording)
    assert_walks_agree(index, GrammarOracle(ir), vocab, walks=6, steps=10, seed=2)
    assert not stored & set(built)
    assert index._loop_exits._decoded  # some stored region was used


def test_llama3_json_and_c_store_the_regions_the_runtime_builds(bundled_vocabulary, tmp_path):
    """The real threshold on the real vocabulary: JSON's string body, C's identifiers and strings."""
    vocab = bundled_vocabulary("llama3")
    trie = build_trie(vocab)
    for grammar_file in ("gbnf/json.gbnf", "gbnf/c.gbnf"):
        ir = load_grammar((GRAMMARS / grammar_file).read_text(), source=grammar_file)
        result = compile_grammar_ir(ir, vocab, trie, source=grammar_file)
        path = tmp_path / "g.idx"
        write(result, vocab, str(path))  # the writer's self-check runs verify: every region rebuilt
        assert assert_stored_regions_are_built_ones(indexc_runtime.load(path)) >= 1

"""Lexeme paths (format 12): undecided tokens grouped by the lexemes they read, decided by the parser per path.

A decomposition must never change a mask: every bundled grammar's file is checked against the
oracle with its states decomposed (the default, ``test_bundled_vs_oracle.py``); here along random
walks against the same file read without its paths, each group against a walk of its tokens
alone, and the hostile forms of the sections."""

from __future__ import annotations

import random

import numpy as np
import pytest

import indexc.artifact.lexeme_paths as artifact_paths
import indexc_runtime
import indexc_runtime.grammar.lexeme_paths as lexeme_paths
from indexc.pipeline import write
from indexc.pipeline.grammar import compile_grammar_ir
from indexc.trie import build_trie
from indexc_runtime.errors import ArtifactError
from indexc_runtime.grammar.item_bounds import follow_terminals
from indexc_runtime.grammar.lexeme_paths import Decomposer, LexemePaths
from tests.grammar_path.helpers import assert_readings_agree, every_state_decomposed, grammar, vocabulary_from_text
from tests.grammar_path.test_bundled_vs_oracle import SAMPLES, _sample_and_walks_agree
from tests.runtime.surgery import assert_refused_at_load, rewrite_section, setting

# a body is any run of names, brackets nest, spaces are ignored: tokens read many lexemes each
IR = grammar("start", {"start": [["rules"]], "rules": [["rule"], ["rules", "NL", "rule"]],
                       "rule": [["NAME", "COLON", "body"]], "body": [["body", "atom"], []],
                       "atom": [["NAME"], ["UPPER"], ["LP", "body", "RP"]]},
             {"NAME": "[a-z]+", "UPPER": "[A-Z][A-Z]*", "COLON": ":", "NL": "\n", "LP": r"\(", "RP": r"\)",
              "WS": " +"}, ignore=["WS"])
DECOMPOSED = {"gbnf/arithmetic.gbnf", "gbnf/c.gbnf", "gbnf/json.gbnf", "gbnf/json_arr.gbnf", "lark/lark.lark",
              "lark/rfc.lark"}
TEXT = "a: bCd (eFg h)\nij: K lMn\nop: (q)\nx: yZ ((w))\nv: uT\n"


@pytest.fixture(autouse=True)
def every_state_worth_it(monkeypatch):
    """A small vocabulary's states hold few undecided tokens and, by ``MIN_PATH_UNDECIDED`` and
    ``MAX_PAIRS_PER_TOKEN``, would be left to the walk: here every state is decomposed."""
    every_state_decomposed(monkeypatch)


def _written(tmp_path, ir=IR):
    """``ir`` compiled (every boundary pair built) and written to ``tmp_path / "g.idx"``; the vocabulary."""
    vocab = vocabulary_from_text(TEXT, pieces=120, seed=5)
    result = compile_grammar_ir(ir, vocab, build_trie(vocab), source="lexeme paths", min_wide_tokens=0)
    write(result, vocab, str(tmp_path / "g.idx"))
    return vocab


@pytest.fixture
def compiled(tmp_path):
    """(artifact bytes, vocabulary)."""
    vocab = _written(tmp_path)
    return (tmp_path / "g.idx").read_bytes(), vocab


def _without_paths(data: bytes):
    index = indexc_runtime.load(data)
    index._lexeme_paths = LexemePaths.empty()
    return index


def _random_walks(index, vocab, seed: int, walks: int = 40, steps: int = 14):
    """Matchers along random walks of ``index``: yields each position's matcher."""
    rng = random.Random(seed)
    for _ in range(walks):
        matcher = index.matcher()
        for _ in range(steps):
            yield matcher
            text = [t for t in matcher.allowed_token_ids().tolist() if t not in vocab.eos_ids]
            if not text:
                break
            matcher.advance(rng.choice(text))


def test_states_are_decomposed_stored_and_verified(compiled):
    data, _ = compiled
    index = indexc_runtime.load(data, verify=True)  # verify: every state decomposed again
    stats = index.header["stats"]["lexeme_paths"]
    assert stats["states"] == len(index._lexeme_paths) > 5 and stats["skipped"] == 0
    assert index.format_version >= 12 and index.section("path_group_tokens").size > 0


def test_masks_with_the_paths_equal_the_masks_without(compiled):
    """Along random walks, every mask is the same with the paths and with the undecided tokens walked."""
    data, vocab = compiled
    checked, last = assert_readings_agree(indexc_runtime.load(data), _without_paths(data), vocab, walks=40, steps=14,
                                          seed=4)
    assert checked > 300 and len(last._memo.walker._path_rows) > 20


def test_a_threads_path_row_decides_what_its_precomputed_masks_leave(compiled):
    """Each thread taken alone, walked without paths: its path row holds only tokens that walk
    allows, and every undecided token it allows is in the row or in the thread's precomputed
    masks (which may also hold the tokens of the fresh threads a completion starts beside it)."""
    data, vocab = compiled
    with_paths, without = indexc_runtime.load(data), _without_paths(data)
    memo = without.matcher()._memo
    seen, mostly = 0, {True: 0, False: 0}
    for matcher in _random_walks(without, vocab, seed=9, walks=20, steps=10):
        configs, walker = memo.configs, memo.walker
        for origin, terminal, state in configs.threads[matcher.state]:
            if state not in with_paths._lexeme_paths.states:
                continue
            alone = configs.adopt({(origin, terminal, state)}, False)
            walked = np.unpackbits(walker.mask(alone).view(np.uint8), bitorder="little").astype(bool)
            precomputed = np.unpackbits(walker._unions.row(walker._precomputed_masks(alone)[0]).view(np.uint8),
                                        bitorder="little").astype(bool)
            _, tokens = without._undecided.members(without._undecided.of(state))
            paths = with_paths._lexeme_paths.of(state)
            allowed = paths.allowed_tokens(origin, configs)
            row = np.isin(tokens, allowed)
            assert set(allowed.tolist()) <= set(tokens.tolist())
            assert not (row & ~walked[tokens]).any()
            assert not (walked[tokens] & ~row & ~precomputed[tokens]).any()
            bits = paths.row_of(paths.held_groups(origin, configs), with_paths.mask_words)
            assert np.flatnonzero(np.unpackbits(bits.view(np.uint8), bitorder="little")).tolist() == sorted(allowed.tolist())
            mostly[2 * allowed.size >= paths.group_tokens.size] += 1  # row_of's two ways
            seen += 1
    assert seen > 30 and all(mostly.values())


def test_the_decomposition_does_not_depend_on_what_was_decomposed_before(compiled):
    """The FOLLOW parser is shared by a terminal's states: a state decomposed alone and after
    all the others gives the same arrays (the order of groups and pairs is the paths')."""
    index = indexc_runtime.load(compiled[0])
    follow = follow_terminals(index._rules)
    everyone = Decomposer(index, follow)
    ordered = {state: everyone.decompose(state) for state in sorted(index._lexeme_paths.states)}
    for state in sorted(index._lexeme_paths.states, reverse=True):
        alone = Decomposer(index, follow).decompose(state)
        assert all(np.array_equal(a, b) for a, b in zip(alone.arrays(), ordered[state].arrays()))


def test_a_state_past_the_path_limit_is_left_to_the_walk_and_counted(tmp_path, monkeypatch):
    monkeypatch.setattr(lexeme_paths, "MAX_PATHS", 3)
    vocab = _written(tmp_path)
    data = (tmp_path / "g.idx").read_bytes()
    index = indexc_runtime.load(data, verify=True)
    stats = index.header["stats"]["lexeme_paths"]
    assert stats["skipped"] > 0 and stats["states"] == len(index._lexeme_paths)
    checked, _ = assert_readings_agree(index, _without_paths(data), vocab, walks=10, steps=14, seed=2)
    assert checked > 50


def test_the_work_budget_stops_decomposing(tmp_path, monkeypatch):
    monkeypatch.setattr(artifact_paths, "MAX_PATH_WORK", 1)
    _written(tmp_path)
    index = indexc_runtime.load(tmp_path / "g.idx", verify=True)
    stats = index.header["stats"]["lexeme_paths"]
    assert stats["states"] == 1 and stats["skipped"] > 0


@pytest.mark.parametrize("section, change, message", [
    ("path_states", setting(0, 10**6), "lexer state out of range"),
    ("path_states", lambda a: a.__setitem__(1, a[0]), "strictly increasing"),
    ("path_node_offsets", setting(-1, 10**6), "does not rise"),
    ("path_node_offsets", setting(1, 0), "one or more each"),
    ("path_group_offsets", setting(-1, 10**6), "does not rise"),
    ("path_pair_offsets", setting(1, 10**6), "does not rise"),
    ("path_group_token_offsets", setting(-1, 10**6), "does not rise"),
    ("path_group_pair_offsets", setting(1, 0), "one or more each"),
    ("path_nodes", setting(0, 0), "root"),
    ("path_nodes", setting(2, 5), "parent"),
    ("path_nodes", setting(3, 10**6), "terminal out of range"),
    ("path_pair_terminal", setting(0, -2), "terminal out of range"),
])
def test_a_path_number_out_of_bounds_is_refused_at_load(compiled, section, change, message):
    assert_refused_at_load(compiled[0], section, change, message)


@pytest.mark.parametrize("section, message", [("path_group_tokens", "outside the vocabulary"),
                                              ("path_group_pairs", "pair outside its state")])
def test_a_large_section_out_of_bounds_is_refused_where_its_state_is_first_read(compiled, section, message):
    """The group pairs and tokens (the largest sections) are bounded on a state's first use:
    load takes the file, the first mask that reads the state and ``verify`` refuse it."""
    tampered = rewrite_section(compiled[0], section, setting(0, 10**6))
    index = indexc_runtime.load(tampered)
    with pytest.raises(ArtifactError, match=f"{section}.*{message}"):
        index.verify()


def test_verify_finds_groups_that_are_not_the_grammars(compiled):
    data, _ = compiled
    index = indexc_runtime.load(data)
    tokens, vocab_size = index.section("path_group_tokens"), index.vocab_size
    other = next(t for t in range(vocab_size) if t not in set(tokens.tolist()) and t not in index.special_token_ids)
    tampered = rewrite_section(data, "path_group_tokens", setting(0, other))  # a token the state never decides
    indexc_runtime.load(tampered)  # in range: the load takes it
    with pytest.raises(ArtifactError, match="lexeme paths of lexer state .* are not the grammar's"):
        indexc_runtime.load(tampered, verify=True)


def test_the_writers_check_compares_the_stored_paths_with_its_own(compiled):
    data, _ = compiled
    index = indexc_runtime.load(data)
    decomposer = Decomposer(index, follow_terminals(index._rules))
    mine = {state: decomposer.decompose(state) for state in index._lexeme_paths.states}
    index.verify(stored_lexeme_paths=mine)
    state = min(mine)
    mine[state].group_tokens[:] = 0
    with pytest.raises(ArtifactError, match=f"lexer state {state}"):
        index.verify(stored_lexeme_paths=mine)
    del mine[state]
    with pytest.raises(ArtifactError, match="not the compiler's"):
        index.verify(stored_lexeme_paths=mine)


@pytest.mark.parametrize("grammar_file", sorted(SAMPLES))
def test_bundled_grammars_with_every_state_decomposed_equal_the_oracle(grammar_file, tmp_path):
    """Along the sample and random walks (``test_bundled_vs_oracle``'s protocol), every state worth it."""
    index, matcher = _sample_and_walks_agree(grammar_file, tmp_path, seed=7, boundary_masks="default")
    assert len(index._lexeme_paths) == index.header["stats"].get("lexeme_paths", {}).get("states", 0)
    if grammar_file in DECOMPOSED:  # the others' small vocabularies leave no state undecided tokens
        assert len(index._lexeme_paths) > 0 and matcher._memo.walker._path_rows

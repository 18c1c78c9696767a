"""Item bounds (format 11): the keys a warm-up meets, their stored bounds, and the masks that read them.

The bounds must never change a mask: checked against the oracle on the bundled grammars, and
against the same file read without them along random walks.  Small vocabularies hold few
undecided tokens, so the tests key every thread (``MIN_ITEM_UNDECIDED``, ``MIN_HEAVY_UNDECIDED`` = 1).
The lexeme paths (format 12) decide a thread whose items are not all keyed."""

from __future__ import annotations

import random
from dataclasses import replace

import numpy as np
import pytest

import indexc.artifact.item_masks as item_masks
import indexc.artifact.lexeme_paths as artifact_paths
import indexc_runtime
from indexc.pipeline import write
from indexc.pipeline.grammar import compile_grammar_ir
from indexc.trie import build_trie
from indexc.vocab.greedy_tokens import greedy_token_ids
from indexc_runtime.errors import ArtifactError
from indexc_runtime.grammar.item_bounds import ItemBounds
from indexc_runtime.grammar.item_masks import NO_LOWER, ItemMasks
from indexc_runtime.grammar.lexeme_paths import LexemePaths
from tests.grammar_path.helpers import assert_readings_agree, every_state_decomposed, grammar, vocabulary_from_text
from tests.grammar_path.test_bundled_vs_oracle import GRAMMARS, SAMPLES, _sample_and_walks_agree
from tests.runtime.surgery import assert_refused_at_load, rewrite_section, setting

# expansion-like: a body is any run of names, so a token of several names is allowed after each
IR = grammar("start", {"start": [["rules"]], "rules": [["rule"], ["rules", "NL", "rule"]],
                       "rule": [["NAME", "COLON", "body"]], "body": [["body", "atom"], []],
                       "atom": [["NAME"], ["UPPER"], ["LP", "body", "RP"]]},
             {"NAME": "[a-z]+", "UPPER": "[A-Z][A-Z]*", "COLON": ":", "NL": "\n", "LP": r"\(", "RP": r"\)",
              "WS": " +"}, ignore=["WS"])
KEYED = {"gbnf/arithmetic.gbnf", "gbnf/c.gbnf", "gbnf/json.gbnf", "gbnf/json_arr.gbnf", "lark/lark.lark", "lark/rfc.lark"}
SAMPLE = "a: bCd (eFg h)\nij: K lMn\nop: (q)"
WARM_UP = "x: yZ (w)\nv: uT\n"


@pytest.fixture
def every_thread_keyed(monkeypatch):
    monkeypatch.setattr(item_masks, "MIN_ITEM_UNDECIDED", 1)
    monkeypatch.setattr(item_masks, "MIN_HEAVY_UNDECIDED", 1)
    every_state_decomposed(monkeypatch)  # and the paths decide the threads not all of whose items are keyed


def _written(tmp_path, *, given: int):
    """``IR`` compiled with ``WARM_UP`` as its warm-up (``given``: 1 as ``--warm-up``, 0 as sampled
    sentences) and written to ``tmp_path / "g.idx"``; the vocabulary."""
    vocab = vocabulary_from_text(SAMPLE + WARM_UP, pieces=90, seed=5)
    result = compile_grammar_ir(IR, vocab, build_trie(vocab), source="item masks", min_wide_tokens=0)
    result.table = replace(result.table, warm_up_tokens=greedy_token_ids(vocab, WARM_UP.encode(), limit=1000),
                           warm_up_given=given)
    write(result, vocab, str(tmp_path / "g.idx"))
    return vocab


@pytest.fixture
def compiled(tmp_path, every_thread_keyed):
    """(artifact bytes, vocabulary): ``IR`` with ``WARM_UP`` given (its item keys stored)."""
    vocab = _written(tmp_path, given=1)
    return (tmp_path / "g.idx").read_bytes(), vocab


def _without_items(data: bytes):
    index = indexc_runtime.load(data)
    index._item_masks = ItemMasks.empty()
    return index


def test_keys_are_stored_and_verified(compiled):
    data, _ = compiled
    index = indexc_runtime.load(data, verify=True)  # verify: every key's bounds computed again
    assert index.header["stats"]["item_masks"]["keys"] == len(index._item_masks) > 10


def test_masks_read_with_the_bounds_equal_the_masks_without(compiled):
    """Along random walks, every mask is the same with the stored bounds and without them."""
    data, vocab = compiled
    with_items, without = indexc_runtime.load(data), _without_items(data)
    checked, a = assert_readings_agree(with_items, without, vocab, walks=40, steps=12, seed=4)
    walker = a._memo.walker
    read = sum(bool(bounds[0]) or bounds[1] is not None for bounds in walker._thread_bounds.values())
    assert checked > 300 and read > 10


def test_a_lower_bound_is_in_the_mask_and_an_upper_set_holds_what_the_walk_allows(compiled):
    """Each bound taken alone, at the walks' threads: the lower mask is a subset of the mask of a
    configuration of that one thread, and every undecided token that mask allows is in the
    lower mask or the upper set."""
    data, vocab = compiled
    index = _without_items(data)
    items = indexc_runtime.load(data)._item_masks
    memo = index.matcher()._memo
    rng, seen = random.Random(9), 0
    for _ in range(20):
        matcher = index.matcher()
        for _ in range(10):
            configs = memo.configs
            for origin, terminal, state in configs.threads[matcher.state]:
                listed = item_masks.thread_items(configs.sets, origin, terminal, configs.scanned(origin, terminal)) or []
                hits = [items.get(state, *item) for item in listed]
                if not hits or None in hits:
                    continue
                alone = memo.walker.mask(configs.adopt({(origin, terminal, state)}, False))
                allowed = np.unpackbits(alone.view(np.uint8), bitorder="little").astype(bool)
                lower = np.zeros_like(allowed)
                for low, _ in hits:
                    if low == NO_LOWER:
                        continue
                    lower |= np.unpackbits(index._masks.row(low).view(np.uint8), bitorder="little").astype(bool)
                assert not (lower & ~allowed).any()
                places, tokens = index._undecided.members(index._undecided.of(state))
                upper = set()
                for _, up in hits:
                    upper.update(index._undecided.members(up)[1].tolist())
                assert all(lower[t] or t in upper for t in tokens[allowed[tokens]].tolist())
                seen += 1
            text = [t for t in matcher.allowed_token_ids().tolist() if t not in vocab.eos_ids]
            if not text:
                break
            matcher.advance(rng.choice(text))
    assert seen > 20


@pytest.mark.parametrize("grammar_file", sorted(SAMPLES))
def test_bundled_grammars_with_every_thread_keyed_equal_the_oracle(grammar_file, tmp_path, every_thread_keyed):
    """The keys of the sample's first half as given warm-up text (``--warm-up``)."""
    text = (GRAMMARS / "samples" / SAMPLES[grammar_file]).read_text()[:200]
    index, _ = _sample_and_walks_agree(grammar_file, tmp_path, seed=6, boundary_masks="default", sampled_warm_up=256,
                                       warm_up=text)
    stats = index.header["stats"].get("item_masks")
    if grammar_file in KEYED:  # the others' small vocabularies leave no thread undecided tokens
        assert stats["keys"] == len(index._item_masks) > 0


@pytest.mark.parametrize("section, change, message", [
    ("item_key", lambda a: a.__setitem__((0, 0), 10**6), "lexer state"),
    ("item_key", lambda a: a.__setitem__((0, 2), 10**6), "dot"),
    ("item_key", lambda a: a.__setitem__((0, 3), 10**6), "wanted set"),
    ("item_wanted", lambda a: a.__setitem__(0, 10**6), "nonterminal"),
    ("item_wanted_offsets", lambda a: a.__setitem__(-1, 10**6), "does not rise"),
    ("item_lower_mask", lambda a: a.__setitem__(0, 10**6), "mask id"),
    ("item_upper_set", lambda a: a.__setitem__(0, -1), "set id"),
])
def test_an_item_number_out_of_bounds_is_refused_at_load(compiled, section, change, message):
    assert_refused_at_load(compiled[0], section, change, message)


def test_a_repeated_key_is_refused(compiled):
    data, _ = compiled
    keys = indexc_runtime.load(data).section("item_key")
    with pytest.raises(ArtifactError, match="repeats a key"):
        indexc_runtime.load(rewrite_section(data, "item_key", lambda a: a.__setitem__(1, keys[0])))


def test_a_key_on_a_state_without_an_undecided_set_is_refused_by_verify(tmp_path, every_thread_keyed, monkeypatch):
    """The state of key 0 made one whose every token is undecided (``undecided_set`` 0): the
    walker never reads the key, and ``verify`` names it instead of computing its bounds (no state
    decomposed: the load would refuse a decomposed one, ``lexeme_paths``)."""
    monkeypatch.setattr(artifact_paths, "MAX_PATH_WORK", 0)
    _written(tmp_path, given=1)
    data = (tmp_path / "g.idx").read_bytes()
    state = int(indexc_runtime.load(data).section("item_key")[0, 0])
    tampered = rewrite_section(data, "undecided_set", setting(state, 0))
    indexc_runtime.load(tampered)  # in range: the load takes it
    with pytest.raises(ArtifactError, match=f"item key 0 names lexer state {state}, which has no undecided set"):
        indexc_runtime.load(tampered, verify=True)


def test_verify_finds_bounds_that_are_not_the_grammars(compiled):
    data, _ = compiled
    index = indexc_runtime.load(data)
    lower, upper = index.section("item_lower_mask"), index.section("item_upper_set")
    other = next(i for i in range(1, len(lower)) if int(lower[i]) != int(lower[0]))
    tampered = rewrite_section(data, "item_lower_mask", setting(0, int(lower[other])))
    indexc_runtime.load(tampered)  # in range: the load takes it
    with pytest.raises(ArtifactError, match="item bounds of key 0 .* are not the grammar's"):
        indexc_runtime.load(tampered, verify=True)
    wider = next(i for i in range(len(upper)) if index._undecided.size(int(upper[i])) != index._undecided.size(int(upper[0])))
    with pytest.raises(ArtifactError, match="are not the grammar's"):
        indexc_runtime.load(rewrite_section(data, "item_upper_set", setting(0, int(upper[wider]))), verify=True)


def test_the_writers_check_compares_the_stored_bounds_with_its_own(compiled):
    data, _ = compiled
    index = indexc_runtime.load(data)
    bounds = ItemBounds(index)
    rows = [bounds.of(*key) for key in index._item_masks.stored_keys()]
    index.verify(stored_item_bounds=rows)
    rows[0] = (rows[0][0], rows[0][1][:-1] if rows[0][1].size else np.array([0], dtype=np.int32))
    with pytest.raises(ArtifactError, match="key 0"):
        index.verify(stored_item_bounds=rows)


def test_the_key_budget_is_kept_and_reported(tmp_path, every_thread_keyed, monkeypatch):
    monkeypatch.setattr(item_masks, "MAX_ITEM_KEYS", 3)
    _written(tmp_path, given=1)
    index = indexc_runtime.load(tmp_path / "g.idx", verify=True)
    stats = index.header["stats"]["item_masks"]
    assert stats["keys"] == len(index._item_masks) == 3 < stats["met"]


def test_sampled_texts_give_no_keys(tmp_path, every_thread_keyed):
    """Only a given warm-up text's keys are stored (``warm_memo``): the same walk as sampled text stores none."""
    _written(tmp_path, given=0)
    index = indexc_runtime.load(tmp_path / "g.idx")
    assert index.header["stats"]["warm_up"]["walked"] > 0 and not len(index._item_masks)


def test_a_grammar_without_heavy_states_stores_no_keys(tmp_path, monkeypatch):
    """By default only a grammar with a state of ``MIN_HEAVY_UNDECIDED`` undecided tokens gets
    keys: with the threshold above every set of ``IR``'s small vocabulary, none."""
    monkeypatch.setattr(item_masks, "MIN_ITEM_UNDECIDED", 1)
    _written(tmp_path, given=1)
    index = indexc_runtime.load(tmp_path / "g.idx")
    assert not len(index._item_masks) and "item_masks" not in index.header["stats"]
    assert index.section("item_key").shape == (0, 4)


def test_a_thread_reads_its_bounds_where_every_item_is_keyed_and_its_paths_elsewhere(compiled):
    """Both accelerators in one file: every mask the same as the file read with neither."""
    data, vocab = compiled
    both = indexc_runtime.load(data)
    neither = _without_items(data)
    neither._lexeme_paths = LexemePaths.empty()
    _, a = assert_readings_agree(both, neither, vocab, walks=30, steps=12, seed=11)
    walker = a._memo.walker
    assert len(both._lexeme_paths) and walker._path_rows
    assert any(upper is not None for _, upper in walker._thread_bounds.values())

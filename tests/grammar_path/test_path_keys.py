"""Path keys (format 13): a lexeme-path row read by the language of the set its paths are scanned from.

A key must never change a mask: along random walks the masks of a file read with its keys equal
the same file's read without them, each stored row is the one its set gives (scanned again), the
bundled grammars agree with the oracle, and the hostile forms of the sections are refused."""

from __future__ import annotations

import numpy as np
import pytest

import indexc.artifact.path_keys as artifact_keys
import indexc_runtime
from indexc.pipeline import write
from indexc.pipeline.grammar import compile_grammar_ir
from indexc.trie import build_trie
from indexc_runtime.errors import ArtifactError
from indexc_runtime.grammar.path_keys import PathKeys
from indexc_runtime.grammar.walker import MaskWalker
from tests.grammar_path.helpers import assert_readings_agree, every_state_decomposed, vocabulary_from_text
from tests.grammar_path.test_bundled_vs_oracle import SAMPLES, _sample_and_walks_agree
from tests.grammar_path.test_lexeme_paths import IR, TEXT, _random_walks
from tests.runtime.surgery import assert_refused_at_load, rewrite_section, setting


@pytest.fixture(autouse=True)
def every_state_worth_it(monkeypatch):
    every_state_decomposed(monkeypatch)


def _written(tmp_path) -> tuple[bytes, object]:
    """``IR`` compiled with a sampled warm-up (so with path keys), its bytes and vocabulary."""
    vocab = vocabulary_from_text(TEXT, pieces=120, seed=5)
    result = compile_grammar_ir(IR, vocab, build_trie(vocab), source="path keys", min_wide_tokens=0,
                                sampled_warm_up=512, language_keys=True)
    write(result, vocab, str(tmp_path / "g.idx"))
    return (tmp_path / "g.idx").read_bytes(), vocab


@pytest.fixture
def compiled(tmp_path):
    return _written(tmp_path)


def _without_keys(data: bytes):
    index = indexc_runtime.load(data)
    index._path_keys = PathKeys.empty()
    return index


def test_keys_are_stored_counted_and_verified(compiled):
    index = indexc_runtime.load(compiled[0], verify=True)
    stats = index.header["stats"]["path_keys"]
    assert index.format_version == 13 and stats["keys"] == len(index._path_keys) > 5
    assert stats["threads"] >= stats["keys"] and stats["over_budget"] == 0


def test_masks_read_by_key_equal_the_masks_scanned(compiled):
    """Along random walks, every mask is the same with the keys and without; the keys were read."""
    data, vocab = compiled
    checked, last = assert_readings_agree(indexc_runtime.load(data), _without_keys(data), vocab, walks=40, steps=14,
                                          seed=4)
    assert checked > 300 and last._memo.walker._path_keys.hits > 20


def test_every_key_met_holds_the_row_its_set_gives(compiled):
    """At each decomposed thread of random walks whose key is stored, the stored groups are the
    ones its paths give when scanned (a fresh scan, not the key)."""
    data, vocab = compiled
    index = indexc_runtime.load(data)
    memo = index.matcher()._memo
    rows, seen = memo.walker._path_keys, 0
    for matcher in _random_walks(index, vocab, seed=9, walks=20, steps=10):
        for origin, _, state in memo.configs.threads[matcher.state]:
            key = rows.key(state, origin) if state in rows.states else None
            stored = index._path_keys.get(*key) if key is not None else None
            if stored is not None:
                assert np.array_equal(stored, rows.paths.of(state).held_groups(origin, memo.configs))
                seen += 1
    assert seen > 30


def test_a_row_computed_once_is_read_by_key_in_another_context(compiled):
    """A key met again in the same memo (no stored row): the row computed the first time."""
    data, vocab = compiled
    checked, last = assert_readings_agree(_without_stored_rows(data), _without_keys(data), vocab, walks=40,
                                          steps=14, seed=6)
    rows = last._memo.walker._path_keys
    assert checked > 300 and rows.hits > 0 and len(rows.computed()) > 0


def _without_stored_rows(data: bytes):
    """The file's keyed states, no stored row read: every row is computed, then read by key."""
    index = indexc_runtime.load(data)
    index._path_keys.get = lambda state, digest: None
    return index


def test_the_key_budget_stops_the_pass(tmp_path, monkeypatch):
    monkeypatch.setattr(artifact_keys, "MAX_PATH_KEYS", 2)
    index = indexc_runtime.load(_written(tmp_path)[0], verify=True)
    assert index.header["stats"]["path_keys"]["keys"] == len(index._path_keys) == 2


@pytest.mark.parametrize("section, change, message", [
    ("path_key_state", setting(0, 10**6), "no lexeme paths"),
    ("path_key_state", lambda a: a.__setitem__(slice(None), a[::-1].copy()), "strictly increasing"),
    ("path_key_digest", lambda a: a.__setitem__(slice(None), a[::-1].copy()), "strictly increasing"),
    ("path_key_held_offsets", setting(1, 0), "ceil"),
    ("path_key_held_offsets", setting(-1, 10**6), "ceil"),
])
def test_a_key_out_of_bounds_is_refused_at_load(compiled, section, change, message):
    assert_refused_at_load(compiled[0], section, change, message)


def test_a_padding_bit_is_refused_where_its_key_is_read(compiled):
    data, _ = compiled
    index = indexc_runtime.load(data)
    decomposed, group_offsets = index._lexeme_paths.states_and_group_offsets()
    counts = dict(zip(decomposed.tolist(), np.diff(group_offsets).tolist()))
    states, offsets = index.section("path_key_state"), index.section("path_key_held_offsets")
    padded = next(k for k, state in enumerate(states.tolist()) if counts[state] % 8)
    byte, bit = int(offsets[padded + 1]) - 1, counts[int(states[padded])] % 8
    tampered = rewrite_section(data, "path_key_held", lambda a: a.__setitem__(byte, a[byte] | (1 << bit)))
    loaded = indexc_runtime.load(tampered)  # the load reads no bit
    with pytest.raises(ArtifactError, match="path_key_held.*padding bit"):
        loaded.verify()


def test_the_writers_check_compares_the_stored_keys_with_its_own(compiled):
    index = indexc_runtime.load(compiled[0])
    with pytest.raises(ArtifactError, match="path keys are not the compiler's"):
        index.verify(stored_path_keys={})


@pytest.mark.parametrize("grammar_file", sorted(SAMPLES))
def test_bundled_grammars_read_by_key_equal_the_oracle(grammar_file, tmp_path, monkeypatch):
    """As ``indexc compile --grammar`` writes it, every state decomposed: the sample's and the random
    walks' masks, some of their path rows read by key, against the oracle.  The configurations'
    language keys are not read, so that every mask is computed (a mask found by its key reads no
    path row)."""
    monkeypatch.setattr(MaskWalker, "use_stored_languages", lambda self, table, shapes: None)
    index, matcher = _sample_and_walks_agree(grammar_file, tmp_path, seed=5, boundary_masks="default",
                                             sampled_warm_up=256, language_keys=True)
    if len(index._lexeme_paths):  # 7 of the 11 grammars with this vocabulary
        assert index.header["stats"]["path_keys"]["keys"] == len(index._path_keys) > 0
        assert matcher._memo.walker._path_keys.hits > 0


def test_a_key_is_found_whatever_bytes_its_digest_ends_with():
    """Keys are looked up as byte strings, and numpy drops a string's trailing zero bytes: a digest
    that ends in them (one in 256 does) is found all the same, and a near miss is not."""
    states = np.array([3, 3, 5], dtype=np.int32)
    digests = np.zeros((3, 16), dtype=np.uint8)
    digests[0, 0], digests[1, 0] = 1, 2  # (3, 01 00..), (3, 02 00..), (5, 00..): increasing
    keys = PathKeys(states, digests, np.arange(4), np.array([1, 0, 1], dtype=np.uint8), np.ones(3, dtype=np.int64))
    assert keys.get(5, bytes(16)).tolist() == [True] and keys.get(3, bytes([2]) + bytes(15)).tolist() == [False]
    assert keys.get(4, bytes(16)) is None and keys.get(3, bytes(16)) is None and keys.get(5, bytes(15) + b"\x01") is None


def test_a_memo_keeps_at_most_its_bound_of_computed_rows(compiled, monkeypatch):
    """Rows computed under their keys are dropped oldest first past ``MAX_COMPUTED_ROWS``; the
    masks do not change (a dropped row is scanned again)."""
    import indexc_runtime.grammar.path_keys as path_keys

    monkeypatch.setattr(path_keys, "MAX_COMPUTED_ROWS", 2)
    data, vocab = compiled
    checked, last = assert_readings_agree(_without_stored_rows(data), _without_keys(data), vocab, walks=20,
                                          steps=14, seed=8)
    assert checked > 150 and len(last._memo.walker._path_keys.computed()) == 2




def _written_without_names(path, monkeypatch, expected: bool = True) -> bytes:
    """``IR`` compiled with a warm-up text whose bodies hold no name (``a: (K)``): the name's
    states are met nowhere but expected after ``:`` and ``(``."""
    monkeypatch.setattr(artifact_keys, "EXPECTED_STATES", expected)
    vocab = vocabulary_from_text(TEXT, pieces=120, seed=5)
    result = compile_grammar_ir(IR, vocab, build_trie(vocab), source="path keys", min_wide_tokens=0,
                                warm_up="a: (K)\n", language_keys=True)
    write(result, vocab, str(path))
    return path.read_bytes()


def test_states_the_met_origins_expect_are_keyed_beyond_the_threads_met(tmp_path, monkeypatch):
    """Every decomposed state of a terminal a met origin expects gets its key too, and masks read
    by those keys are the masks scanned."""
    met_only = _written_without_names(tmp_path / "met.idx", monkeypatch, expected=False)
    data = _written_without_names(tmp_path / "expected.idx", monkeypatch)
    index = indexc_runtime.load(data, verify=True)
    stored = set(index._path_keys._keys.tolist())
    assert set(indexc_runtime.load(met_only)._path_keys._keys.tolist()) < stored
    assert index.header["stats"]["path_keys"]["expected"] > 0
    vocab = vocabulary_from_text(TEXT, pieces=120, seed=5)
    checked, last = assert_readings_agree(index, _without_keys(data), vocab, walks=30, steps=12, seed=8)
    assert checked > 200 and last._memo.walker._path_keys.hits > 0

@pytest.mark.parametrize("limit_at", [1, 17])
def test_a_parser_limit_in_the_pass_keeps_the_keys_made_before_it(tmp_path, monkeypatch, limit_at):
    """A ``GrammarLimitExceeded`` while the pass scans a row (the memo at a limit) ends it, in
    the threads met (at the 2nd row) or in the expected states' (at the 18th: the threads met
    make 16 keys, the expected states 2 more): the keys made before it are stored and counted,
    and the file is verified."""
    from indexc_runtime.grammar.errors import GrammarLimitExceeded
    from indexc_runtime.grammar.lexeme_paths import StatePaths

    scanned, original = StatePaths.held_groups, artifact_keys.path_key_sections

    def limited(self, root, configs, calls=[]):
        calls.append(root)
        if len(calls) > limit_at:
            raise GrammarLimitExceeded("max_sets", 1, "a test's limit")
        return scanned(self, root, configs)

    def pass_at_a_limit(index, memo, positions, rows):
        rows.computed().clear()  # the walk's rows forgotten: every key of the pass is scanned
        StatePaths.held_groups = limited
        try:
            return original(index, memo, positions, rows)
        finally:
            StatePaths.held_groups = scanned

    monkeypatch.setattr("indexc.artifact.warm_memo.path_key_sections", pass_at_a_limit)
    index = indexc_runtime.load(_written_without_names(tmp_path / "g.idx", monkeypatch), verify=True)
    stats = index.header["stats"]["path_keys"]
    assert stats["keys"] == len(index._path_keys) == limit_at
    assert stats["threads"] >= 1 and (stats["expected"] > 0) == (limit_at == 17)

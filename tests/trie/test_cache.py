"""The vocabulary+trie cache: a hit gives exactly what a fresh load gives; a bad entry is rebuilt."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

import numpy as np

from indexc.trie import build_trie
from indexc.trie.cache import load_vocabulary_and_trie
from indexc.vocab import load_vocabulary

MISTRAL = Path(__file__).resolve().parents[1] / "data" / "tokenizers" / "mistral.json.zst"


def assert_same(vocab, trie, fresh_vocab, fresh_trie):
    assert vocab.token_bytes == fresh_vocab.token_bytes
    assert vocab.names == fresh_vocab.names
    assert np.array_equal(vocab.kinds, fresh_vocab.kinds)
    assert vocab.eos_ids == fresh_vocab.eos_ids and vocab.family == fresh_vocab.family
    assert vocab.fingerprint == fresh_vocab.fingerprint
    for f in fields(trie):
        assert np.array_equal(getattr(trie, f.name), getattr(fresh_trie, f.name)), f.name


def test_hit_equals_fresh_load(tmp_path):
    fresh_vocab = load_vocabulary(MISTRAL)
    fresh_trie = build_trie(fresh_vocab)
    first = load_vocabulary_and_trie(MISTRAL, cache_dir=tmp_path)
    second = load_vocabulary_and_trie(MISTRAL, cache_dir=tmp_path)
    assert (first[2], second[2]) == (False, True)
    assert_same(second[0], second[1], fresh_vocab, fresh_trie)


def test_overrides_are_part_of_the_key(tmp_path):
    default = load_vocabulary_and_trie(MISTRAL, cache_dir=tmp_path)[0]
    overridden, _, hit = load_vocabulary_and_trie(MISTRAL, eos_ids=[0], cache_dir=tmp_path)
    assert not hit and overridden.eos_ids == (0,) and overridden.fingerprint != default.fingerprint


def test_corrupt_entry_is_ignored_and_rewritten(tmp_path):
    load_vocabulary_and_trie(MISTRAL, cache_dir=tmp_path)
    (entry,) = tmp_path.glob("*.npz")
    entry.write_bytes(entry.read_bytes()[: entry.stat().st_size // 3])
    vocab, trie, hit = load_vocabulary_and_trie(MISTRAL, cache_dir=tmp_path)
    assert not hit
    assert_same(vocab, trie, load_vocabulary(MISTRAL), build_trie(load_vocabulary(MISTRAL)))
    assert load_vocabulary_and_trie(MISTRAL, cache_dir=tmp_path)[2]


def test_changed_file_is_not_served_stale(tmp_path):
    copy = tmp_path / "tok.json.zst"
    copy.write_bytes(MISTRAL.read_bytes())
    load_vocabulary_and_trie(copy, cache_dir=tmp_path / "c")
    other = Path(str(MISTRAL).replace("mistral", "t5"))
    copy.write_bytes(other.read_bytes())
    vocab, _, hit = load_vocabulary_and_trie(copy, cache_dir=tmp_path / "c")
    assert not hit and vocab.size == load_vocabulary(other).size

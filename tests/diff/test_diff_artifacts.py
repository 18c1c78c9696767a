"""diff_artifacts: identical compiles, a one-character regex change, a vocabulary with a token removed."""

from __future__ import annotations

import pytest

from indexc.diff import DiffError, diff_artifacts
from tests.diff.conftest import TOKENS, compile_to, tiny_vocabulary


def test_identical_compiles_diff_clean(tmp_path):
    vocab = tiny_vocabulary()
    a = compile_to(tmp_path / "a.idx", "ab[0-9]+!", vocab)
    b = compile_to(tmp_path / "b.idx", "a(b)[0-9]+!", vocab)  # another spelling, the same language
    report = diff_artifacts(str(a), str(b), vocab_a=vocab, vocab_b=vocab)
    assert report.identical and report.same_vocabulary
    assert report.differing_pairs == 0 and report.accepted_witness is None and report.reachable_pairs >= 4


def test_one_character_change_found_with_shortest_witness(tmp_path):
    vocab = tiny_vocabulary()
    a = compile_to(tmp_path / "a.idx", "ab[0-9]+", vocab)
    b = compile_to(tmp_path / "b.idx", "ab[0-8]+", vocab)
    report = diff_artifacts(str(a), str(b), vocab_a=vocab, vocab_b=vocab)
    assert not report.identical
    first = report.pairs[0]
    assert first.witness == b"ab"
    assert first.only_a == ["5 '9'", "6 '89'"] and first.only_b == []
    assert report.accepted_witness == b"ab9" and report.accepted_only_by == "A"
    # After "ab0" B still lives, but "9" leads only A on: every differing pair lies past "ab".
    assert all(pair.witness.startswith(b"ab") for pair in report.pairs)
    assert report.tokens_only_b == 0 and report.tokens_only_a == sum(p.n_only_a for p in report.pairs)


def test_vocabulary_with_one_token_removed_is_reported(tmp_path):
    full = tiny_vocabulary()
    smaller = tiny_vocabulary([t for t in TOKENS if t != b"89"])
    a = compile_to(tmp_path / "a.idx", "ab[0-9]+", full)
    b = compile_to(tmp_path / "b.idx", "ab[0-9]+", smaller)
    report = diff_artifacts(str(a), str(b), vocab_a=full, vocab_b=smaller)
    assert not report.same_vocabulary
    assert (report.n_vocab_only_a, report.n_vocab_only_b) == (1, 0)
    assert report.vocab_only_a == ["6 '89'"]
    assert report.differing_pairs == 0 and report.accepted_witness is None  # same masks on shared tokens
    assert not report.identical


def test_different_vocabularies_need_their_tokenizers(tmp_path):
    full, smaller = tiny_vocabulary(), tiny_vocabulary([t for t in TOKENS if t != b"89"])
    a = compile_to(tmp_path / "a.idx", "ab", full)
    b = compile_to(tmp_path / "b.idx", "ab", smaller)
    with pytest.raises(DiffError, match="different vocabularies"):
        diff_artifacts(str(a), str(b))


def test_without_vocabulary_tokens_are_ids(tmp_path):
    vocab = tiny_vocabulary()
    a = compile_to(tmp_path / "a.idx", "a[0-9]", vocab)
    b = compile_to(tmp_path / "b.idx", "a[0-8]", vocab)
    report = diff_artifacts(str(a), str(b))
    # 'a9' at the start, '9' after 'a', and after 'a9' end of sequence (id 9) in A only: B is dead there.
    assert [(pair.witness, pair.only_a) for pair in report.pairs] == [(b"", ["7"]), (b"a", ["5"]), (b"a9", ["9"])]


def test_limit_caps_lists_not_totals(tmp_path):
    vocab = tiny_vocabulary()
    a = compile_to(tmp_path / "a.idx", "[0-9]{1,6}", vocab)
    b = compile_to(tmp_path / "b.idx", "[0-8]{1,6}", vocab)
    report = diff_artifacts(str(a), str(b), vocab_a=vocab, vocab_b=vocab, limit=1)
    assert len(report.pairs) == 1 and report.pairs[0].witness == b""
    assert report.pairs[0].only_a == ["5 '9'"] and report.pairs[0].n_only_a == 2  # '9' listed, '89' counted
    # Six pairs where both live (after "", "0", ..., "00000") and six where only A does (after "9",
    # "09", ..., "000009": A still allows more digits or end of sequence, B nothing).
    assert report.differing_pairs == 12


def test_sparse_and_dense_seen_sets_walk_the_same_pairs(tmp_path, monkeypatch):
    import numpy as np

    from indexc.diff import product
    from indexc.diff.tables import read_tables

    vocab = tiny_vocabulary()
    a = read_tables(str(compile_to(tmp_path / "a.idx", "(ab|a9)[0-9]{0,5}!?", vocab)))
    b = read_tables(str(compile_to(tmp_path / "b.idx", "ab[0-8]{1,4}!", vocab)))
    dense = product.walk_product(a, b)
    monkeypatch.setattr(product, "DENSE_SEEN_MAX", 0)
    sparse = product.walk_product(a, b)
    assert dense.size > 5
    for name in ("state_a", "state_b", "parent", "byte"):
        assert np.array_equal(getattr(dense, name), getattr(sparse, name))

"""Format 4's ``trie_dense_masks``: the dense masks in the trie's token order, read by the walk.

The compiler writes each dense mask a second time, laid out as the runtime's
``coverage.TrieOrderMasks`` would lay it out on first use; the walk's pruning test then reads
the stored row.  Checked here on the golden v4 artifact: the rows are the layout the runtime
makes, the masks along the golden walk are the same with and without them (and equal the
oracle's, ``test_golden``), ``verify`` refuses a row that is not its mask (behind a valid
checksum), and the header refuses rows of the wrong width.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import indexc_runtime
import surgery
from indexc_runtime import ArtifactError
from indexc_runtime.grammar.coverage import TrieOrderMasks

GOLDEN = Path(__file__).resolve().parents[1] / "grammar_path" / "golden"
RAW = (GOLDEN / "grammar-v4-brackets-strings.idx").read_bytes()
EXPECTED = json.loads((GOLDEN / "grammar-v4-brackets-strings.expected.json").read_text())


def walk_masks(index) -> list[np.ndarray]:
    matcher, out, rows = index.matcher(), np.zeros((1, index.mask_words), dtype=np.int32), []
    for token in EXPECTED["walk"]:
        matcher.fill_bitmask(out)
        rows.append(out.copy())
        matcher.advance(token)
    matcher.fill_bitmask(out)
    return rows + [out.copy()]


def test_stored_rows_are_the_runtime_layout_of_the_dense_masks():
    index = indexc_runtime.load(RAW)
    stored = index.section("trie_dense_masks")
    assert stored.shape[0] == index.section("dense_masks").shape[0] > 0
    laid_out = TrieOrderMasks(index._masks, index._trie.sorted_tokens)  # no stored rows: built as before
    dense = np.flatnonzero(index.section("mask_form") == 0)
    for mask_id in dense.tolist():
        assert np.array_equal(stored[index.section("mask_dense_row")[mask_id]], laid_out.row(mask_id))


def test_masks_are_the_same_without_the_stored_rows():
    with_rows = indexc_runtime.load(RAW)
    without = indexc_runtime.load(RAW)
    without._trie_order = TrieOrderMasks(without._masks, without._trie.sorted_tokens)
    for a, b in zip(walk_masks(with_rows), walk_masks(without)):
        assert np.array_equal(a, b)


def test_the_walk_reads_the_stored_rows(monkeypatch):
    """No dense mask is laid out by a gather when the file holds its row."""
    index = indexc_runtime.load(RAW)

    def no_gather(*_):
        raise AssertionError("a stored dense row was laid out again")

    monkeypatch.setattr(index._trie_order, "_from_words", no_gather)
    walk_masks(index)


def test_verify_refuses_a_row_that_is_not_its_mask():
    def flip(rows: np.ndarray) -> None:
        rows[0, 0] ^= 1

    index = indexc_runtime.load(surgery.rewrite_section(RAW, "trie_dense_masks", flip))  # the checksum is valid
    with pytest.raises(ArtifactError, match="trie_dense_masks"):
        index.verify()


def test_rows_of_the_wrong_width_are_refused_at_load():
    header, data = surgery.split(RAW)
    entry = surgery.section(header, "trie_dense_masks")
    rows, words = entry["shape"]
    entry["shape"], entry["nbytes"] = [rows, words - 1], rows * (words - 1) * 4
    with pytest.raises(ArtifactError, match="n_trie_words"):
        indexc_runtime.load(surgery.join(header, data))

"""The runtime still reads the committed golden grammar artifacts and gives the oracle's masks.

``golden/make_golden.py`` wrote each file once, at its format version (raw and ``.zst``), with
masks from the brute-force oracle: version 2 (no loop regions), version 3 (a stored loop
region, which the walk uses), version 4 (the stored start mask, which the first mask reads),
version 5 (the undecided sets, which restrict the walk), version 6 (the sets stored as bit
rows, the regions' tokens by id), version 7 (a stored parser memo), version 8 (its language keys),
version 9 (the header's ``origin_merge``: the memo was made merging threads by origin language),
version 10 (lexed by longest match: the header's ``lexing`` and ``longest_match_terminals``),
version 11 (item bounds), version 12 (lexeme paths, which decide the undecided tokens).
A failure here after a change means files already shipped no longer read the same: fix the
reader, or bump the grammar format version and keep reading these.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import indexc_runtime
from indexc_runtime.grammar import GrammarIndex
from tests.grammar_path.helpers import EOS

GOLDEN = Path(__file__).resolve().parent / "golden"
VERSIONS = {"grammar-v2-brackets": 2, "grammar-v3-brackets-strings": 3, "grammar-v4-brackets-strings": 4,
            "grammar-v5-brackets-strings": 5, "grammar-v6-brackets-strings": 6, "grammar-v7-brackets-strings": 7,
            "grammar-v8-brackets-strings": 8, "grammar-v9-brackets-strings": 9, "grammar-v10-brackets-strings": 10,
            "grammar-v11-brackets-strings": 11, "grammar-v12-brackets-strings": 12}


@pytest.mark.parametrize("suffix", [".idx", ".idx.zst"])
@pytest.mark.parametrize("name", sorted(VERSIONS))
def test_golden_grammar_artifact_gives_the_recorded_masks(name, suffix):
    expected = json.loads((GOLDEN / f"{name}.expected.json").read_text())
    index = indexc_runtime.load(GOLDEN / f"{name}{suffix}", expected_fingerprint=expected["fingerprint"], verify=True)
    assert isinstance(index, GrammarIndex) and index.vocab_size == expected["vocab_size"]
    assert index.format_version == VERSIONS[name]
    assert index.section("pair_mask").size > 0  # the golden files exercise boundary masks
    if VERSIONS[name] >= 3:  # and the loop regions, version 3's
        assert index.section("loop_classes").shape[0] > 0
    if VERSIONS[name] >= 4:  # and the start mask, version 4's
        assert index.section("start_mask").any()
    if VERSIONS[name] == 5:  # and the undecided sets, version 5's
        assert index.section("undecided_set").any() and index.section("undecided_positions").size
    if VERSIONS[name] >= 6:  # version 6's: the sets as rows (a small vocabulary: a row is never larger), the
        assert index.section("undecided_set").any() and index.section("undecided_rows").size  # regions by token id
        assert index.section("loop_region_token_ids").any()
    if VERSIONS[name] >= 7:  # and a stored parser memo, version 7's (``verify`` recomputed it)
        assert index.section("memo_config_mask").size and index.section("memo_transitions").size
    if VERSIONS[name] >= 8:  # and the stored configurations' language keys, version 8's
        assert index.section("memo_language_mask").size
    assert index.origin_merge == (4 if VERSIONS[name] >= 9 else None)  # version 9's: the merge threshold
    assert index.header["lexing"] == ("longest_match" if VERSIONS[name] >= 10 else "all_splits")  # version 10's
    assert (index._lexer.longest is not None) == (VERSIONS[name] >= 10)
    if VERSIONS[name] == 11:  # and item bounds, version 11's (``verify`` recomputed them)
        assert index.section("item_key").shape[0] > 0 and index.section("item_upper_set").size
    if VERSIONS[name] >= 12:  # and lexeme paths, version 12's (``verify`` decomposed the states again)
        assert index.section("path_states").size and index.section("path_group_tokens").size
    _assert_walk_gives(index, expected)


def _assert_walk_gives(index: GrammarIndex, expected: dict) -> None:
    matcher = index.matcher()
    out = np.zeros((1, index.mask_words), dtype=np.int32)
    for step, mask in enumerate(expected["masks"]):
        matcher.fill_bitmask(out)
        assert np.flatnonzero(np.unpackbits(out[0].view(np.uint8), bitorder="little")).tolist() == mask, step
        if step < len(expected["walk"]):
            matcher.advance(expected["walk"][step])
    assert matcher.is_accepting() == expected["accepting_at_end"] == (EOS in expected["masks"][-1])

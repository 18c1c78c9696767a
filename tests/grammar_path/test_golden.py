"""The runtime still reads the committed golden grammar artifact and gives the oracle's masks.

``golden/make_golden.py`` wrote the file once (raw and ``.zst``) with masks from the
brute-force oracle.  A failure here after a change means files already shipped no longer read
the same: fix the reader, or bump the grammar format version and keep reading this one.
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
EXPECTED = json.loads((GOLDEN / "grammar-v2-brackets.expected.json").read_text())


@pytest.mark.parametrize("suffix", [".idx", ".idx.zst"])
def test_golden_grammar_artifact_gives_the_recorded_masks(suffix):
    index = indexc_runtime.load(GOLDEN / f"grammar-v2-brackets{suffix}", expected_fingerprint=EXPECTED["fingerprint"],
                                verify=True)
    assert isinstance(index, GrammarIndex) and index.vocab_size == EXPECTED["vocab_size"]
    assert index.section("pair_mask").size > 0  # the golden file exercises boundary masks
    matcher = index.matcher()
    out = np.zeros((1, index.mask_words), dtype=np.int32)
    for step, mask in enumerate(EXPECTED["masks"]):
        matcher.fill_bitmask(out)
        assert np.flatnonzero(np.unpackbits(out[0].view(np.uint8), bitorder="little")).tolist() == mask, step
        if step < len(EXPECTED["walk"]):
            matcher.advance(EXPECTED["walk"][step])
    assert matcher.is_accepting() == EXPECTED["accepting_at_end"] == (EOS in EXPECTED["masks"][-1])

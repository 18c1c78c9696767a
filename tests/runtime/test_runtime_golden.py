"""The runtime still reads the committed golden artifacts and gives the masks recorded beside them.

The golden files (``tests/data/golden``) were written once by ``make_golden.py``; their
expected masks and walks come from a brute-force reference, not from the runtime.  If this
test fails after a change, the change broke compatibility with files already shipped: fix the
reader, or bump ``format_version`` and keep reading version 1.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import indexc_runtime

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "golden"
EXPECTED = json.loads((GOLDEN / "format-v1-small.expected.json").read_text())


@pytest.fixture(params=["format-v1-small.idx", "format-v1-small.idx.zst"])
def golden(request) -> indexc_runtime.Index:
    return indexc_runtime.load(GOLDEN / request.param, expected_fingerprint=EXPECTED["fingerprint"], verify=True)


def test_golden_metadata(golden):
    assert golden.vocab_size == EXPECTED["vocab_size"] and golden.format_version == 1
    assert list(golden.eos_token_ids) == EXPECTED["eos_ids"]
    assert golden.n_states == len(EXPECTED["masks"])
    assert golden.mask_form_counts() == {"dense": 2, "sparse": 2, "complement": 1}


def test_golden_masks_of_every_state(golden):
    out = np.full((1, golden.mask_words), 0x33333333, dtype=np.int32)
    for state, expected in enumerate(EXPECTED["masks"]):
        assert golden.state_token_ids(state).tolist() == expected
    matcher = golden.matcher()
    matcher.fill_bitmask(out)
    assert np.flatnonzero(np.unpackbits(out[0].view(np.uint8), bitorder="little")).tolist() == EXPECTED["masks"][0]


def test_golden_walks(golden):
    for walk in EXPECTED["walks"]:
        matcher = golden.matcher()
        for token, state in zip(walk["tokens"], walk["states"]):
            matcher.advance(token)
            assert matcher.state == state
            assert matcher.allowed_token_ids().tolist() == EXPECTED["masks"][state]
        assert matcher.is_accepting() == walk["accepting"]
        matcher.advance(EXPECTED["eos_ids"][0])
        assert matcher.is_finished()

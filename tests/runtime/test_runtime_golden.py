"""The runtime still reads the committed golden artifacts and gives the masks recorded beside them.

The golden files (``tests/data/golden``) were written once per format version by
``make_golden.py``; their expected masks and walks come from a brute-force reference, not from
the runtime.  If this test fails after a change, the change broke compatibility with files
already shipped: fix the reader, or bump ``format_version`` and keep reading the old versions.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import indexc_runtime

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "golden"
VERSIONS = (1, 2, 3)
EXPECTED = {v: json.loads((GOLDEN / f"format-v{v}-small.expected.json").read_text()) for v in VERSIONS}
# version 2 stores a word pair in 12 bytes instead of 8: one 4-word mask became dense (40 bytes)
FORMS = {1: {"dense": 2, "sparse": 2, "complement": 1}, 2: {"dense": 3, "sparse": 1, "complement": 1},
         3: {"dense": 3, "sparse": 1, "complement": 1}}


@pytest.fixture(params=[(v, suffix) for v in VERSIONS for suffix in (".idx", ".idx.zst")], ids=str)
def golden(request) -> tuple[indexc_runtime.Index, dict]:
    version, suffix = request.param
    expected = EXPECTED[version]
    index = indexc_runtime.load(GOLDEN / f"format-v{version}-small{suffix}",
                                expected_fingerprint=expected["fingerprint"], verify=True)
    assert index.format_version == version
    return index, expected


def test_every_format_version_written_so_far_has_a_golden_file():
    assert max(VERSIONS) == indexc_runtime.FORMAT_VERSION


def test_golden_metadata(golden):
    index, expected = golden
    assert index.vocab_size == expected["vocab_size"]
    assert list(index.eos_token_ids) == expected["eos_ids"]
    assert index.n_states == len(expected["masks"])
    assert index.mask_form_counts() == FORMS[index.format_version]  # every form, in every version
    assert index.n_live_tokens == 293


def test_golden_masks_of_every_state(golden):
    index, expected = golden
    out = np.full((1, index.mask_words), 0x33333333, dtype=np.int32)
    for state, mask in enumerate(expected["masks"]):
        assert index.state_token_ids(state).tolist() == mask
    matcher = index.matcher()
    matcher.fill_bitmask(out)
    assert np.flatnonzero(np.unpackbits(out[0].view(np.uint8), bitorder="little")).tolist() == expected["masks"][0]


def test_golden_walks(golden):
    index, expected = golden
    for walk in expected["walks"]:
        matcher = index.matcher()
        for token, state in zip(walk["tokens"], walk["states"]):
            matcher.advance(token)
            assert matcher.state == state
            assert matcher.allowed_token_ids().tolist() == expected["masks"][state]
        assert matcher.is_accepting() == walk["accepting"]
        matcher.advance(expected["eos_ids"][0])
        assert matcher.is_finished()

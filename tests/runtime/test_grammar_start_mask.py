"""A format 4 grammar artifact's stored start mask: served without a walk, checked at load and by ``verify``.

The golden file ``grammar-v4-brackets-strings`` is the version 3 golden's grammar with the
start mask stored.  Its first mask must be the oracle's and must come from the file (the walk
is switched off for it); a start mask edited behind a valid checksum (``surgery``) is refused
at load where it sets a bit ``advance`` would refuse, and by ``verify`` where it is in range
but not the grammar's; random damage either serves or raises ``ArtifactError``.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

import indexc_runtime
import surgery
from indexc_runtime import ArtifactError
from indexc_runtime.grammar.errors import GrammarLimits
from indexc_runtime.grammar.walker import MaskWalker
from tests.conftest import keep_coverages_wide

GOLDEN = Path(__file__).resolve().parents[1] / "grammar_path" / "golden"
RAW = (GOLDEN / "grammar-v4-brackets-strings.idx").read_bytes()
RAW_V3 = (GOLDEN / "grammar-v3-brackets-strings.idx").read_bytes()
EXPECTED = json.loads((GOLDEN / "grammar-v4-brackets-strings.expected.json").read_text())


def first_mask(data: bytes) -> list[int]:
    return indexc_runtime.load(data).matcher().allowed_token_ids().tolist()


def no_walk(*_args, **_kwargs):
    raise AssertionError("the start mask was walked, not read")


def test_the_first_mask_is_read_from_the_file_and_is_the_oracles(monkeypatch):
    monkeypatch.setattr(MaskWalker, "_walk", no_walk)
    keep_coverages_wide(monkeypatch)  # the later masks walked (``no_walk`` must see them)
    matcher = indexc_runtime.load(RAW).matcher()
    assert matcher.allowed_token_ids().tolist() == EXPECTED["masks"][0]
    matcher.advance(EXPECTED["walk"][0])
    with pytest.raises(AssertionError, match="walked"):  # past the start, masks are walked again
        matcher.allowed_token_ids()


def test_the_stored_start_mask_is_the_walked_one():
    assert first_mask(RAW) == first_mask(RAW_V3) == EXPECTED["masks"][0]
    indexc_runtime.load(RAW, verify=True)


def test_a_reset_matcher_and_a_fresh_memo_read_it_again(monkeypatch):
    index = indexc_runtime.load(RAW)
    matcher = index.matcher()
    for token in EXPECTED["walk"]:
        matcher.advance(token)
    matcher.reset()
    monkeypatch.setattr(MaskWalker, "_walk", no_walk)
    assert matcher.allowed_token_ids().tolist() == EXPECTED["masks"][0]
    other_limits = GrammarLimits(max_configs=1000)  # another memo of the same index
    assert index.matcher(other_limits).allowed_token_ids().tolist() == EXPECTED["masks"][0]


def _set_bit(bit: int):
    def change(row: np.ndarray) -> None:
        row[bit // 32] |= np.uint32(1 << (bit % 32))
    return change


def test_a_bit_past_the_vocabulary_is_refused_at_load():
    vocab_size = EXPECTED["vocab_size"]
    assert vocab_size % 32, "the golden vocabulary leaves padding bits in the last word"
    with pytest.raises(ArtifactError, match="past the vocabulary"):
        indexc_runtime.load(surgery.rewrite_section(RAW, "start_mask", _set_bit(vocab_size)))


def test_a_wrong_bit_in_range_is_served_but_refused_by_verify():
    wrong = next(t for t in range(1, EXPECTED["vocab_size"]) if t not in EXPECTED["masks"][0])
    data = surgery.rewrite_section(RAW, "start_mask", _set_bit(wrong))
    assert wrong in first_mask(data)  # served as stored: the checksum is valid and the bit in range
    with pytest.raises(ArtifactError, match="start mask differs"):
        indexc_runtime.load(data, verify=True)
    matcher = indexc_runtime.load(data).matcher()
    with pytest.raises(indexc_runtime.TokenNotAllowed):  # advance still follows the grammar
        matcher.advance(wrong)


@pytest.mark.parametrize("seed", range(12))
def test_random_damage_serves_or_raises_artifact_error(seed):
    rng = random.Random(seed)

    def change(row: np.ndarray) -> None:
        row.reshape(-1)[rng.randrange(row.size)] = rng.getrandbits(32)

    data = surgery.rewrite_section(RAW, "start_mask", change)
    try:
        indexc_runtime.load(data).matcher().allowed_token_ids()
        indexc_runtime.load(data, verify=True)
    except ArtifactError:
        pass

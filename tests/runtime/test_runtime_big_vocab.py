"""A Llama-3-sized vocabulary (128,256 ids): all three mask forms, filled and advanced on,
with sparse and complement masks materialised into rows on first use and (budget 0) not."""

from __future__ import annotations

import numpy as np
import pytest

import handmade
import indexc_runtime
from indexc_runtime import TokenNotAllowed

MASKS = handmade.big_masks()


@pytest.fixture(scope="module", params=["materialised", "scattered"])
def big_index(big_artifact, request):
    import indexc_runtime.masks as mask_store

    budget = mask_store.MATERIALISE_BYTES
    mask_store.MATERIALISE_BYTES = budget if request.param == "materialised" else 0
    try:
        return indexc_runtime.load(big_artifact, verify=True)
    finally:
        mask_store.MATERIALISE_BYTES = budget


def test_the_masks_use_every_storage_form(big_index):
    assert big_index.mask_form_counts() == {"dense": 1, "sparse": 2, "complement": 1}
    assert big_index.mask_words == 4008


@pytest.mark.parametrize("state", range(4))
def test_fill_gives_the_mask_of_each_form(big_index, state):
    out = np.full((2, big_index.mask_words), -1, dtype=np.int32)
    matcher = big_index.matcher()
    matcher._state = state  # the table's states are not all reachable from 0 in one step
    matcher.fill_bitmask(out, row=1)
    bits = np.unpackbits(out[1].view(np.uint8), bitorder="little")
    assert np.array_equal(np.flatnonzero(bits), MASKS[state])
    assert np.array_equal(matcher.allowed_token_ids(), MASKS[state])
    assert (out[0] == -1).all()
    allowed = np.zeros(128_256, dtype=bool)
    allowed[MASKS[state]] = True
    for token in np.random.default_rng(state).integers(0, 128_256, 400).tolist() + MASKS[state][:50].tolist():
        assert big_index._masks.contains(big_index._automaton.state_mask[state], token) == allowed[token]


def test_advance_and_batch_fill(big_index):
    matchers = [big_index.matcher() for _ in range(3)]
    matchers[1].advance(int(MASKS[0][0]))
    matchers[2].advance(int(MASKS[0][-1]))
    matchers[2].advance(int(MASKS[1][5]))
    out = np.zeros((3, big_index.mask_words), dtype=np.int32)
    indexc_runtime.fill_bitmasks(matchers, out)
    for row, state in enumerate([0, 1, 2]):
        assert np.array_equal(np.flatnonzero(np.unpackbits(out[row].view(np.uint8), bitorder="little")), MASKS[state])
    excluded = int(np.setdiff1d(np.arange(128_000), MASKS[2])[0])
    with pytest.raises(TokenNotAllowed, match=f"token {excluded} is not allowed in state 2"):
        matchers[2].advance(excluded)
    matchers[2].advance(handmade.BIG_EOS[1])
    assert matchers[2].is_finished()


def test_special_ids_come_from_their_section(big_index):
    assert np.array_equal(big_index.special_token_ids, np.arange(128_000, 128_256))
    assert big_index.eos_token_ids == handmade.BIG_EOS


def test_or_into_is_the_or_of_each_form(big_index):
    # every form, materialised or scattered, ORed into a row already holding other bits, some
    # of them in the mask's own words (next to its tokens)
    masks = big_index._masks
    scratch = np.zeros((1, big_index.mask_words), dtype=np.int32)
    for state in range(4):
        start = np.zeros(32 * big_index.mask_words, dtype=bool)
        start[np.random.default_rng(state).integers(0, 128_256, 300)] = True
        start[MASKS[state][:100] ^ 1] = True
        row = np.packbits(start, bitorder="little").view(np.int32).copy()
        masks.or_into(big_index._automaton.state_mask[state], row, scratch)
        expected = start.copy()
        expected[MASKS[state]] = True
        assert np.array_equal(np.unpackbits(row.view(np.uint8), bitorder="little").astype(bool), expected)


def test_union_is_the_or_of_any_masks_with_or_without_their_entries(big_artifact):
    # every set of the four masks (one of each form, two sparse), read raw, then again once
    # their entries are made (materialised rows where the budget allows)
    from itertools import combinations

    index = indexc_runtime.load(big_artifact)
    masks, state_mask = index._masks, index._automaton.state_mask
    for made in (False, True):
        for size in range(1, 5):
            for states in combinations(range(4), size):
                ids = tuple(int(state_mask[state]) for state in states)
                union = masks.union(ids)
                expected = np.zeros(32 * index.mask_words, dtype=bool)
                for state in states:
                    expected[MASKS[state]] = True
                assert np.array_equal(np.unpackbits(union.view(np.uint8), bitorder="little").astype(bool), expected)
        for state in range(4):
            masks.entry(int(state_mask[state]))

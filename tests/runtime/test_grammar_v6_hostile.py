"""A hostile format 6 grammar artifact's stored first-use rows give ArtifactError, never a crash.

Format 6 stores a wide undecided set as a bit row in trie order (``undecided_row``,
``undecided_rows``) and each loop region's tokens by id (``loop_region_token_ids``).  Edited
behind valid checksums (``surgery``): a set's row index out of range is refused by ``load``;
a padding bit of a set's row where the set is first read and by ``verify``; a padding bit or a
special token in a region's token ids where the region is first decoded and by ``verify``, and
a wrong but in-range token id by ``verify``'s rebuild.  Then random damage: the golden walk
and ``verify`` serve or raise a typed error.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

import indexc_runtime
import surgery
from indexc_runtime import ArtifactError, TokenNotAllowed
from indexc_runtime.grammar import GrammarLimitExceeded

GOLDEN = Path(__file__).resolve().parents[1] / "grammar_path" / "golden"
RAW = (GOLDEN / "grammar-v6-brackets-strings.idx").read_bytes()
EXPECTED = json.loads((GOLDEN / "grammar-v6-brackets-strings.expected.json").read_text())
INDEX = indexc_runtime.load(RAW)
N_ROWS = INDEX.section("undecided_rows").shape[0]
N_TRIE_TOKENS = INDEX.section("trie_sorted_tokens").size  # 25: bits 25-31 of a set's row are padding
VOCAB_SIZE = INDEX.vocab_size  # 26: bits 26-31 of a region's token id row are padding
SPECIAL = int(INDEX.special_token_ids[0])


_set = surgery.setting


def _or(index, bits):
    def change(array):
        array.reshape(-1)[index] |= bits
    return change


def walk(data: bytes) -> None:
    """Load and follow the golden walk (every undecided set it meets is read on the way)."""
    surgery.follow_walk(data, EXPECTED["walk"])


def decode_regions(data: bytes) -> None:
    """Decode every stored region as the walk's first jump would (the golden walk takes none:
    its undecided sets are narrow)."""
    index = indexc_runtime.load(data)
    for loop in index.section("loop_classes"):
        index._loop_exits.of(loop.astype(bool))


def test_the_golden_file_stores_rows_serves_and_verifies():
    assert N_ROWS and INDEX.section("loop_region_token_ids").any()
    walk(RAW)
    decode_regions(RAW)
    indexc_runtime.load(RAW, verify=True)


@pytest.mark.parametrize("value", [N_ROWS, -2])
def test_load_refuses_a_set_row_out_of_range(value):
    with pytest.raises(ArtifactError, match=f"section 'undecided_row': values must lie in \\[-1, {N_ROWS - 1}\\]"):
        indexc_runtime.load(surgery.rewrite_section(RAW, "undecided_row", _set(-1, value)))


def test_a_set_row_padding_bit_is_refused_on_first_use_and_by_verify():
    data = surgery.rewrite_section(RAW, "undecided_rows", _or(slice(None), 1 << 31))  # every row
    indexc_runtime.load(data)
    with pytest.raises(ArtifactError, match="section 'undecided_rows'"):
        walk(data)
    with pytest.raises(ArtifactError, match="section 'undecided_rows'"):
        indexc_runtime.load(data, verify=True)


@pytest.mark.parametrize("word, bit", [(-1, 1 << 31), (SPECIAL // 32, 1 << (SPECIAL % 32))])
def test_a_region_token_id_past_the_vocabulary_or_special_is_refused_on_decode_and_by_verify(word, bit):
    data = surgery.rewrite_section(RAW, "loop_region_token_ids", _or(word, bit))
    with pytest.raises(ArtifactError, match="section 'loop_region_token_ids'"):
        decode_regions(data)
    with pytest.raises(ArtifactError, match="section 'loop_region_token_ids'"):
        indexc_runtime.load(data, verify=True)


def test_verify_refuses_a_region_token_id_that_is_not_the_regions():
    row = INDEX.section("loop_region_token_ids")[0]
    flags = np.unpackbits(row.view(np.uint8), bitorder="little")[:VOCAB_SIZE]
    outside = next(t for t in range(VOCAB_SIZE) if not flags[t] and t != SPECIAL)
    data = surgery.rewrite_section(RAW, "loop_region_token_ids", _or(outside // 32, 1 << (outside % 32)))
    decode_regions(data)  # in range: only the rebuild tells
    with pytest.raises(ArtifactError, match="not the region's tokens"):
        indexc_runtime.load(data, verify=True)


@pytest.mark.parametrize("seed", range(20))
def test_random_damage_to_the_stored_rows_never_crashes(seed):
    rng = random.Random(seed)
    name = ("undecided_row", "undecided_rows", "loop_region_token_ids")[seed % 3]

    def damage(array):
        flat = array.reshape(-1).view(np.uint8)
        for _ in range(rng.randint(1, 3)):
            flat[rng.randrange(flat.size)] ^= 1 << rng.randrange(8)

    data = surgery.rewrite_section(RAW, name, damage)
    for step in (walk, decode_regions, lambda d: indexc_runtime.load(d, verify=True)):
        try:
            step(data)
        except (ArtifactError, TokenNotAllowed, GrammarLimitExceeded):
            pass

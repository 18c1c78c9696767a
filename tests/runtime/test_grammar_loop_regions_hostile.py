"""A hostile grammar artifact's loop region sections (format version 3) give ArtifactError, never a crash.

The sections are edited behind valid checksums (``surgery``), so each reaches the check meant
for it: the bounds ``load`` checks (classes 0/1, exit offsets, exit nodes in range, off the
root, ascending within a loop, distinct loop sets, packed row widths), the ones a region's
first use checks (padding bits, the root, exits off the loop), and the full rebuild ``verify``
makes (a region bit that is in range but wrong).  Then random damage to those sections: load,
a walk and ``verify`` either serve or raise ArtifactError.
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
from indexc_runtime.grammar.header import parse_grammar_header
from indexc_runtime.grammar.loop_exits import StoredRegions
from tests.conftest import keep_coverages_wide

GOLDEN = Path(__file__).resolve().parents[1] / "grammar_path" / "golden"
RAW = (GOLDEN / "grammar-v3-brackets-strings.idx").read_bytes()
EXPECTED = json.loads((GOLDEN / "grammar-v3-brackets-strings.expected.json").read_text())
LOOP_SECTIONS = ("loop_classes", "loop_region_nodes", "loop_region_tokens", "loop_exit_offsets", "loop_exit_nodes")


def walk(data: bytes) -> None:
    """Load and follow the golden walk (the string body's loop region is used on the way)."""
    matcher = indexc_runtime.load(data).matcher()
    for token in EXPECTED["walk"]:
        matcher.allowed_token_ids()
        matcher.advance(token)


def edited(name: str, change) -> bytes:
    return surgery.rewrite_section(RAW, name, change)


def test_the_golden_file_serves_and_verifies():
    walk(RAW)
    indexc_runtime.load(RAW, verify=True)


def _set(index, value):
    def change(array):
        array.reshape(-1)[index] = value
    return change


LOAD_REFUSED = {
    "class_not_a_bit": ("loop_classes", _set(0, 2)),
    "exit_offsets_past_the_end": ("loop_exit_offsets", _set(-1, 9)),
    "exit_offsets_not_from_zero": ("loop_exit_offsets", _set(0, 1)),
    "exit_node_past_the_trie": ("loop_exit_nodes", _set(-1, 29)),
    "exit_node_negative": ("loop_exit_nodes", _set(3, -5)),
    "exit_node_the_root": ("loop_exit_nodes", _set(0, 0)),
    "exit_nodes_not_ascending": ("loop_exit_nodes", lambda a: a.__setitem__(slice(0, 2), a[1::-1].copy())),
}


@pytest.mark.parametrize("case", sorted(LOAD_REFUSED))
def test_load_refuses_out_of_bounds_loop_sections(case):
    name, change = LOAD_REFUSED[case]
    with pytest.raises(ArtifactError, match=name):
        indexc_runtime.load(edited(name, change))


FIRST_USE_REFUSED = {
    "node_padding_bit": ("loop_region_nodes", _set(-1, 0x80)),  # 29 nodes: bits 29-31 are padding
    "token_padding_bit": ("loop_region_tokens", _set(-1, 0x80)),  # 25 tokens: bits 25-31 are padding
    "root_in_the_region": ("loop_region_nodes", lambda a: a.__setitem__((0, 0), a[0, 0] | 1)),
    "exit_by_a_loop_class": ("loop_exit_nodes", _set(0, 1)),  # node 1's class is a loop class
}


@pytest.mark.parametrize("case", sorted(FIRST_USE_REFUSED))
def test_a_region_is_checked_on_its_first_use_and_by_verify(case, monkeypatch):
    keep_coverages_wide(monkeypatch)  # the masks walked, their loops jumped (the regions read)
    name, change = FIRST_USE_REFUSED[case]
    data = edited(name, change)
    indexc_runtime.load(data)  # cheap bounds only
    with pytest.raises(ArtifactError, match=name):
        walk(data)
    with pytest.raises(ArtifactError, match=name):
        indexc_runtime.load(data, verify=True)


def test_verify_rebuilds_the_region_and_refuses_a_wrong_bit():
    data = edited("loop_region_nodes", lambda a: a.__setitem__((0, 0), a[0, 0] | 4))  # node 2: class 5, off the loop
    indexc_runtime.load(data)
    with pytest.raises(ArtifactError, match="not the loop's region"):
        indexc_runtime.load(data, verify=True)


def test_a_loop_set_stored_twice_is_refused():
    """Two equal rows of ``loop_classes`` (the golden file has one loop: the reader's own table)."""
    index = indexc_runtime.load(RAW)
    arrays = {name: index.section(name) for name in LOOP_SECTIONS}
    with pytest.raises(ArtifactError, match="stored twice"):
        StoredRegions(np.concatenate([arrays["loop_classes"]] * 2), np.concatenate([arrays["loop_region_nodes"]] * 2),
                      np.concatenate([arrays["loop_region_tokens"]] * 2), np.array([0, 8, 16], dtype="<i4"),
                      np.concatenate([arrays["loop_exit_nodes"]] * 2), "hostile.idx")


@pytest.mark.parametrize("name, width", [("loop_region_nodes", 5), ("loop_region_tokens", 3)])
def test_a_packed_row_of_the_wrong_width_is_refused(name, width):
    header, _ = surgery.split(RAW)
    surgery.section(header, name)["shape"] = [1, width]
    surgery.section(header, name)["nbytes"] = width
    with pytest.raises(ArtifactError, match="ceil"):
        parse_grammar_header(header, "hostile.idx")


@pytest.mark.parametrize("seed", range(40))
def test_random_damage_to_the_loop_sections_never_crashes(seed):
    rng = random.Random(seed)
    name = rng.choice(LOOP_SECTIONS)

    def damage(array):
        flat = array.reshape(-1).view(np.uint8)
        for _ in range(rng.randint(1, 3)):
            flat[rng.randrange(flat.size)] ^= 1 << rng.randrange(8)

    data = edited(name, damage)
    for step in (walk, lambda d: indexc_runtime.load(d, verify=True)):
        try:
            step(data)
        except ArtifactError:
            pass

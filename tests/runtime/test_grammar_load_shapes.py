"""The shapes the grammar load gives its tables, against the sections read the obvious way.

``tables`` builds the Earley rules as flat lists (``dotted[first[r] + d]``) by a Python loop
for a few rules and by a numpy scatter for many, and copies the lexer's ``next`` table into
the narrowest signed dtype; ``loop_exits.LoopExits`` answers a loop set no child of the root
takes without counting the trie's nodes.  Each is checked here against a plain reading of
the sections (or ``find_region``), on the golden v3 artifact with both code paths (the
``SMALL_SECTION_ITEMS`` switch), and the damaged-value checks still run before anything is
built (a value out of range in the numpy path is an ``ArtifactError``, not an ``IndexError``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import indexc_runtime
import surgery
from indexc_runtime import ArtifactError
from indexc_runtime.grammar import loop_exits, tables

GOLDEN = Path(__file__).resolve().parents[1] / "grammar_path" / "golden"
RAW = (GOLDEN / "grammar-v3-brackets-strings.idx").read_bytes()


def rules_read_plainly(index) -> tuple[list[int], list[tuple[int, ...]], list[tuple[tuple[int, int], ...]]]:
    """(left-side symbol ids, right sides, prediction closures by nonterminal) from the sections."""
    section = index.section
    n_terminals = len(index.terminal_names)
    offsets, rhs = section("rule_rhs_offsets").tolist(), section("rule_rhs").tolist()
    sides = [tuple(rhs[a:b]) for a, b in zip(offsets, offsets[1:])]
    p, rule, dot = (section(n).tolist() for n in ("prediction_offsets", "prediction_rule", "prediction_dot"))
    closures = [tuple(zip(rule[a:b], dot[a:b])) for a, b in zip(p, p[1:])]
    return [n_terminals + x for x in section("rule_lhs").tolist()], sides, closures


@pytest.mark.parametrize("small_items", [tables.SMALL_SECTION_ITEMS, 0])
def test_flat_rules_read_back_as_the_sections_rules(small_items, monkeypatch):
    """Every item ``(r, d)``: ``dotted[first[r] + d]`` is the symbol after the dot, COMPLETE at the end."""
    monkeypatch.setattr(tables, "SMALL_SECTION_ITEMS", small_items)
    index = indexc_runtime.load(RAW)
    rules = index._rules
    lhs, sides, closures = rules_read_plainly(index)
    assert rules.lhs_symbol == lhs and len(rules.first) == len(sides)
    for r, side in enumerate(sides):
        read = [rules.dotted[rules.first[r] + d] for d in range(len(side) + 1)]
        assert read == [*side, tables.COMPLETE]
    assert len(rules.dotted) == sum(map(len, sides)) + len(sides)
    assert [rules.predictions(x) for x in range(len(closures))] == closures
    assert rules.nullable == index.section("symbol_nullable").tolist()


def test_both_rule_builders_agree_on_every_bundled_shape(monkeypatch):
    """The Python loop and the numpy scatter give the same lists (golden v2 and v3 files)."""
    for name in ("grammar-v2-brackets.idx", "grammar-v3-brackets-strings.idx"):
        data = (GOLDEN / name).read_bytes()
        by_loop = indexc_runtime.load(data)._rules
        monkeypatch.setattr(tables, "SMALL_SECTION_ITEMS", 0)
        by_numpy = indexc_runtime.load(data)._rules
        monkeypatch.undo()
        for field in ("lhs_symbol", "first", "dotted", "nullable"):
            assert getattr(by_loop, field) == getattr(by_numpy, field), (name, field)
            assert all(type(v) is int for v in getattr(by_numpy, field)), field  # Python ints, not numpy scalars


@pytest.mark.parametrize("small_items", [tables.SMALL_SECTION_ITEMS, 0])
@pytest.mark.parametrize("name, index, value, message", [
    ("rule_rhs", 0, 99, "values must lie in \\[0, 9\\]"),
    ("rule_rhs_offsets", 3, 0, "offsets must rise from 0 to 11"),
    ("rule_lhs", 0, -1, "values must lie in \\[0, 3\\]"),
])
def test_rules_are_bounded_before_they_are_laid_out(small_items, name, index, value, message, monkeypatch):
    """A damaged rule section is refused by ``load`` on either path, before the scatter reads it."""
    monkeypatch.setattr(tables, "SMALL_SECTION_ITEMS", small_items)

    def change(array):
        array.reshape(-1)[index] = value

    with pytest.raises(ArtifactError, match=f"section '{name}': {message}"):
        indexc_runtime.load(surgery.rewrite_section(RAW, name, change))


@pytest.mark.parametrize("dtype, n_states, expected", [
    ("u1", 5, np.int8), ("u1", 127, np.int8), ("u1", 128, np.int16), ("u1", 255, np.int16),
    ("<u2", 300, np.int16), ("<u2", 32767, np.int16), ("<u2", 32768, np.int32), ("<u4", 70000, np.int32),
    (">u2", 300, np.int16), (">u4", 70000, np.int32),  # read in place as signed, whatever the byte order
])
def test_next_table_is_shifted_into_the_narrowest_signed_dtype(dtype, n_states, expected):
    """0 (dead) becomes -1 and ``n_states`` (the largest stored value) becomes ``n_states - 1``."""
    raw = np.array([[0, 1, n_states], [n_states, 0, 2]], dtype=dtype)
    shifted = tables._shifted_down(raw, n_states)
    assert shifted.dtype == expected and shifted.dtype.isnative  # next_flat's items are read natively
    assert shifted.tolist() == [[-1, 0, n_states - 1], [n_states - 1, -1, 1]]
    assert memoryview(shifted.reshape(-1))[2] == n_states - 1


def test_the_golden_next_table_is_the_stored_one_minus_one():
    index = indexc_runtime.load(RAW)
    lexer = index._lexer
    stored = index.section("class_transitions").astype(np.int64) - 1
    assert np.array_equal(lexer.next, stored)
    assert list(lexer.next_flat) == stored.reshape(-1).tolist()


def loop_not_taken_by_the_root(index) -> np.ndarray:
    """A nonempty loop class set none of the root's children is reached by (or None)."""
    trie = index._trie
    root_classes = set(trie.node_class[trie.children[trie.child_offsets[0]:trie.child_offsets[1]]].tolist())
    loop = np.zeros(index.n_classes, dtype=bool)
    loop[[c for c in range(index.n_classes) if c not in root_classes]] = True
    return loop


def test_a_loop_no_root_child_takes_has_no_region_and_counts_no_node(monkeypatch):
    index = indexc_runtime.load(RAW)
    loop = loop_not_taken_by_the_root(index)
    assert loop.any()  # the golden trie's root has children by some classes only
    empty = np.zeros(index.n_classes, dtype=bool)

    def no_count(*_):
        raise AssertionError("class_node_counts read the whole trie")

    monkeypatch.setattr(loop_exits, "class_node_counts", no_count)
    monkeypatch.setattr(loop_exits, "MIN_REGION_NODES", 1)
    exits = loop_exits.LoopExits(index._trie, 32 * index.mask_words)
    for asked in (empty, loop):
        assert exits.of(asked) is None
        assert loop_exits.find_region(index._trie, asked) is None


def test_with_no_minimum_an_empty_region_is_still_built(monkeypatch):
    """``MIN_REGION_NODES`` 0 (what some tests set): ``find_region`` gives the empty region with
    the root's children as exits, and ``LoopExits`` must give the same, not None."""
    index = indexc_runtime.load(RAW)
    monkeypatch.setattr(loop_exits, "MIN_REGION_NODES", 0)
    empty = np.zeros(index.n_classes, dtype=bool)
    exits = loop_exits.LoopExits(index._trie, 32 * index.mask_words).of(empty)
    region = loop_exits.find_region(index._trie, empty)
    assert exits is not None and region is not None and not region.in_region.any()
    assert np.array_equal(exits.nodes, region.exit_nodes)


def ascend_within_loops_plainly(exits: list[int], offsets: list[int]) -> bool:
    loops = [exits[a:b] for a, b in zip(offsets, offsets[1:])]
    return all(0 not in loop and all(x < y for x, y in zip(loop, loop[1:])) for loop in loops)


@pytest.mark.parametrize("exits, offsets", [
    ([5, 9, 2, 7], [0, 2, 4]),  # the second loop starts below the first's last exit: fine
    ([5, 9, 2, 7], [0, 2, 2, 4]),  # an empty loop between them
    ([5, 9, 2, 7], [0, 0, 4]),  # an empty first loop: 9 > 2 inside the second
    ([5, 9, 9, 12], [0, 2, 4]),  # 9 ends one loop and starts the next
    ([5, 9, 9, 12], [0, 3, 4]),  # 9 twice inside a loop
    ([3, 0, 4], [0, 1, 3]),  # the root as an exit
    ([0], [0, 1]),
    ([7], [0, 1]),
    ([4, 6, 8, 1, 2], [0, 3, 5]),
    ([4, 6, 8, 1, 2], [0, 2, 5]),
])
def test_exits_ascend_within_each_stored_loop(exits, offsets):
    """The load's vectorised test of ``loop_exit_nodes`` against the loops read one by one."""
    found = loop_exits._exits_ascend_within_loops(np.array(exits, dtype="<i4"), memoryview(np.array(offsets, "<i4")))
    assert found == ascend_within_loops_plainly(exits, offsets)


def test_random_exit_lists_agree_with_the_plain_reading():
    rng = np.random.default_rng(11)
    for _ in range(300):
        n_exits, n_loops = int(rng.integers(1, 12)), int(rng.integers(1, 5))
        exits = np.sort(rng.integers(0, 20, n_exits)) if rng.random() < 0.5 else rng.integers(0, 20, n_exits)
        cuts = sorted(rng.integers(0, n_exits + 1, n_loops - 1).tolist())
        offsets = [0, *cuts, n_exits]
        found = loop_exits._exits_ascend_within_loops(exits.astype("<i4"), memoryview(np.array(offsets, "<i4")))
        assert found == ascend_within_loops_plainly(exits.tolist(), offsets), (exits, offsets)


def test_a_lexer_loop_set_a_format_3_file_does_not_store_is_narrow_without_a_build(monkeypatch):
    """``of_lexer_loop``: the compiler stores the region of every lexer state's wide self-loop
    set, so a set it did not store is answered None without building a region; a stored one is
    the stored region; a version 2 file (nothing stored) still builds."""
    index = indexc_runtime.load(RAW)
    stored = index._stored_regions
    assert stored.lexer_loops_complete and stored.rows
    lexer = index._lexer
    asked = [lexer.next[q] == q for q in range(index.n_states)]
    narrow = [loop for loop in asked if loop.any() and np.packbits(loop).tobytes() not in stored.rows]
    kept = [loop for loop in asked if np.packbits(loop).tobytes() in stored.rows]
    assert narrow and kept  # the golden grammar has both kinds
    built = []

    def counting(*args, **kwargs):
        built.append(1)
        return real_find_region(*args, **kwargs)

    real_find_region = loop_exits.find_region
    monkeypatch.setattr(loop_exits, "find_region", counting)
    exits = loop_exits.LoopExits(index._trie, 32 * index.mask_words, stored)
    assert all(exits.of_lexer_loop(loop) is None for loop in narrow)
    for loop in kept:
        found = exits.of_lexer_loop(loop)
        assert found is not None and found is exits.of(loop)
    assert not built
    unstored = loop_exits.LoopExits(index._trie, 32 * index.mask_words,
                                    loop_exits.StoredRegions.empty(index.n_classes))
    for loop in narrow:
        unstored.of_lexer_loop(loop)
    assert built  # a version 2 file: the region is built to learn that it is narrow

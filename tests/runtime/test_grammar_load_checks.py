"""A grammar artifact's trie and token class sections, damaged behind valid checksums: ArtifactError, never a crash.

``load`` bounds every index the live walk reads from the trie (node classes, children, sorted
tokens, child offsets rising, token runs ``0 <= start <= end <= subtree end <= n``) with a
fused scan in chunks (``tables._check_node_arrays``): a value out of range in any chunk, the
last partial one included, must be refused.  The token class rows are read by ``advance``
only: their bounds are checked on the first read, the order of their offsets where a span is
read, and everything by ``verify``.  And the first set of masks an index lays out in trie
order (one gather of their OR) gives the same row as the masks' own rows.
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
from indexc_runtime.grammar import tables
from indexc_runtime.grammar.coverage import TrieOrderMasks
from tests.conftest import keep_coverages_wide

GOLDEN = Path(__file__).resolve().parents[1] / "grammar_path" / "golden"
RAW = (GOLDEN / "grammar-v3-brackets-strings.idx").read_bytes()
EXPECTED = json.loads((GOLDEN / "grammar-v3-brackets-strings.expected.json").read_text())


_set = surgery.setting


def walk(data: bytes) -> None:
    """Load and follow the golden walk, asking every mask on the way."""
    surgery.follow_walk(data, EXPECTED["walk"])


RUNS = "section 'trie_token_end': token runs must satisfy start <= end <= subtree end"  # named by the middle one
# The golden trie: 29 nodes, 28 edges, 25 tokens, 8 classes, a vocabulary of 26.
LOAD_REFUSED = {
    "class_past_the_classes": ("trie_node_class", _set(-1, 8), "values must lie in \\[0, 7\\]"),
    "child_past_the_trie": ("trie_children", _set(-1, 29), "values must lie in \\[0, 28\\]"),
    "child_negative": ("trie_children", _set(3, -1), "values must lie in \\[0, 28\\]"),
    "sorted_token_past_the_vocabulary": ("trie_sorted_tokens", _set(0, 26), "values must lie in \\[0, 25\\]"),
    "child_offsets_not_from_zero": ("trie_child_offsets", _set(0, 1), "offsets must rise from 0 to 28"),
    "child_offsets_past_the_edges": ("trie_child_offsets", _set(-1, 29), "offsets must rise from 0 to 28"),
    "child_offsets_falling": ("trie_child_offsets", _set(2, 9), "offsets must rise from 0 to 28"),
    "child_offsets_falling_last": ("trie_child_offsets", _set(-2, 29), "offsets must rise from 0 to 28"),
    "run_start_negative": ("trie_token_start", _set(1, -1), "values must lie in \\[0, 25\\]"),
    "run_start_after_its_end": ("trie_token_start", _set(2, 3), RUNS),
    "run_end_negative": ("trie_token_end", _set(0, -5), RUNS),
    "run_end_after_the_subtree": ("trie_token_end", _set(27, 25), RUNS),
    "subtree_past_the_tokens": ("trie_subtree_token_end", _set(-1, 26), "values must lie in \\[0, 25\\]"),
    "subtree_before_its_end": ("trie_subtree_token_end", _set(-1, 24), RUNS),
}


@pytest.mark.parametrize("chunk", [tables.NODE_CHECK_CHUNK, 4, 7])
@pytest.mark.parametrize("case", sorted(LOAD_REFUSED))
def test_load_refuses_a_trie_index_out_of_bounds_in_any_chunk(case, chunk, monkeypatch):
    """Chunks of 4 and 7 nodes: the golden trie's 29 nodes end in a partial chunk (node 28 alone, or 1 of 7)."""
    monkeypatch.setattr(tables, "NODE_CHECK_CHUNK", chunk)
    name, change, message = LOAD_REFUSED[case]
    for verify in (False, True):
        with pytest.raises(ArtifactError, match=message if message is RUNS else f"section '{name}': {message}"):
            indexc_runtime.load(surgery.rewrite_section(RAW, name, change), verify=verify)


@pytest.mark.parametrize("chunk", [4, 7, 29, 30])
def test_the_chunked_checks_pass_the_golden_file_and_its_walk(chunk, monkeypatch):
    monkeypatch.setattr(tables, "NODE_CHECK_CHUNK", chunk)
    walk(RAW)
    indexc_runtime.load(RAW, verify=True)


# The golden lexer and Earley tables: 13 lexer states, 6 terminals, 12 masks, 12 boundary pairs;
# 4 nonterminals, 8 rules, 11 right-side symbols, 15 predicted items (rule 1 has 3 symbols).
TABLE_REFUSED = {
    "accepting_not_a_flag": ("accepting", _set(0, 2), "values must lie in \\[0, 1\\]"),
    "state_terminal_past_the_terminals": ("state_terminal", _set(-1, 6), "values must lie in \\[0, 5\\]"),
    "terminal_start_negative": ("terminal_start", _set(0, -1), "values must lie in \\[0, 12\\]"),
    "state_mask_past_the_masks": ("state_mask", _set(3, 12), "values must lie in \\[0, 11\\]"),
    "pair_offsets_falling": ("pair_offsets", _set(2, 1), "offsets must rise from 0 to 12"),
    "pair_offsets_past_the_pairs": ("pair_offsets", _set(-1, 13), "offsets must rise from 0 to 12"),
    "pair_terminal_negative": ("pair_terminal", _set(5, -3), "values must lie in \\[0, 5\\]"),
    "pair_mask_past_the_masks": ("pair_mask", _set(0, 99), "values must lie in \\[0, 11\\]"),
    "rule_lhs_past_the_nonterminals": ("rule_lhs", _set(1, 4), "values must lie in \\[0, 3\\]"),
    "rule_rhs_offsets_falling": ("rule_rhs_offsets", _set(3, 0), "offsets must rise from 0 to 11"),
    "rule_rhs_past_the_symbols": ("rule_rhs", _set(0, 10), "values must lie in \\[0, 9\\]"),
    "nullable_not_a_flag": ("symbol_nullable", _set(0, 7), "values must lie in \\[0, 1\\]"),
    "prediction_offsets_past_the_items": ("prediction_offsets", _set(-1, 16), "offsets must rise from 0 to 15"),
    "prediction_rule_past_the_rules": ("prediction_rule", _set(2, 8), "values must lie in \\[0, 7\\]"),
    "prediction_dot_negative": ("prediction_dot", _set(0, -1), "a predicted item.s dot lies outside its rule"),
    "prediction_dot_past_its_rule": ("prediction_dot", _set(0, 2), "a predicted item.s dot lies outside its rule"),  # rule 0: 1 symbol
    "ignored_past_the_terminals": ("ignore_terminals", _set(0, 6), "values must lie in \\[0, 5\\]"),
}


@pytest.mark.parametrize("small_items", [tables.SMALL_SECTION_ITEMS, 0])
@pytest.mark.parametrize("case", sorted(TABLE_REFUSED))
def test_load_refuses_a_lexer_or_earley_value_out_of_bounds(case, small_items, monkeypatch):
    """As Python items (the golden file's sections are small) and through numpy (no section small)."""
    monkeypatch.setattr(tables, "SMALL_SECTION_ITEMS", small_items)
    name, change, message = TABLE_REFUSED[case]
    with pytest.raises(ArtifactError, match=f"section '{name}': {message}"):
        indexc_runtime.load(surgery.rewrite_section(RAW, name, change))


def test_the_numpy_checks_of_large_tables_pass_the_golden_file(monkeypatch):
    monkeypatch.setattr(tables, "SMALL_SECTION_ITEMS", 0)
    walk(RAW)


TOKEN = EXPECTED["walk"][0]  # token 1: classes [0, 1) of the data, read by the walk's first advance


@pytest.mark.parametrize("name, change, message", [
    ("token_class_data", _set(0, 8), "values must lie in \\[0, 7\\]"),
    ("token_class_offsets", _set(-1, 44), "offsets must rise from 0 to 43"),
    ("token_class_offsets", _set(3, -1), "offsets must rise from 0 to 43"),
])
def test_token_class_bounds_are_checked_on_the_first_advance_and_by_verify(name, change, message, monkeypatch):
    keep_coverages_wide(monkeypatch)  # the first mask walks the trie: it reads no token's classes
    data = surgery.rewrite_section(RAW, name, change)
    matcher = indexc_runtime.load(data).matcher()
    matcher.allowed_token_ids()  # the first mask does not read them
    with pytest.raises(ArtifactError, match=f"section '{name}': {message}"):
        matcher.advance(TOKEN)
    assert matcher.state == matcher._configs.initial and not matcher._history
    with pytest.raises(ArtifactError, match=f"section '{name}': {message}"):
        indexc_runtime.load(data, verify=True)


@pytest.mark.parametrize("name, change, message", [
    ("token_class_data", _set(0, 8), "values must lie in \\[0, 7\\]"),
    ("token_class_offsets", _set(-1, 44), "offsets must rise from 0 to 43"),
])
def test_token_class_bounds_are_checked_by_a_first_mask_that_steps_open_tokens(name, change, message):
    """The golden grammar (format 3: no undecided sets, no stored start mask) leaves every
    token undecided but, with its small vocabulary, few open: the first mask steps them by
    their classes (``walker.OPEN_FROM_WIDE``), so it meets the bad rows first. The same clear
    error there, and a matcher that has not moved."""
    data = surgery.rewrite_section(RAW, name, change)
    matcher = indexc_runtime.load(data).matcher()
    with pytest.raises(ArtifactError, match=f"section '{name}': {message}"):
        matcher.allowed_token_ids()
    assert matcher.state == matcher._configs.initial and not matcher._history


def test_token_class_offsets_out_of_order_are_refused_where_a_span_is_read_and_by_verify():
    """Offset 3 set to 0: token 2's span becomes [1, 0), which runs backwards (token 3's, [0, 3),
    is read as it is, bounded); verify refuses the order."""
    data = surgery.rewrite_section(RAW, "token_class_offsets", _set(3, 0))
    matcher = indexc_runtime.load(data).matcher()
    with pytest.raises(ArtifactError, match="token 2's byte classes \\[1, 0\\) run backwards"):
        matcher.advance(2)
    with pytest.raises(ArtifactError, match="section 'token_class_offsets': offsets must rise"):
        indexc_runtime.load(data, verify=True)


def test_a_set_laid_out_in_one_gather_equals_the_masks_own_rows():
    """A set missing two rows or more is one gather of its OR (the first set here), one missing
    a single row ORs kept rows (``by_rows``: each row made first)."""
    index = indexc_runtime.load(RAW)
    masks, sorted_tokens = index._masks, index._trie.sorted_tokens
    rng = np.random.default_rng(5)
    for _ in range(20):
        mask_ids = tuple(sorted(rng.choice(index.n_masks, size=rng.integers(1, 5), replace=False).tolist()))
        row = np.zeros(masks.words, dtype=np.int32)
        scratch = np.zeros((1, masks.words), dtype=np.int32)
        for mask_id in mask_ids:
            masks.fill(mask_id, scratch, 0)
            row |= scratch[0]
        first = TrieOrderMasks(masks, sorted_tokens).union(mask_ids)
        by_rows = TrieOrderMasks(masks, sorted_tokens)
        expected = np.zeros(first.size, dtype=np.uint32)
        for mask_id in mask_ids:
            expected |= by_rows.row(mask_id)
        later = by_rows.union(mask_ids)
        assert np.array_equal(first, expected) and np.array_equal(later, expected)
        flags = np.unpackbits(row.view(np.uint8), bitorder="little")[sorted_tokens]
        assert np.array_equal(np.unpackbits(first.view(np.uint8), bitorder="little")[: sorted_tokens.size], flags)


DAMAGED_SECTIONS = ("trie_node_class", "trie_child_offsets", "trie_children", "trie_token_start", "trie_token_end",
                    "trie_subtree_token_end", "trie_sorted_tokens", "token_class_offsets", "token_class_data",
                    "class_transitions", "state_mask", "pair_offsets", "pair_mask", "rule_rhs_offsets",
                    "prediction_dot")


@pytest.mark.parametrize("seed", range(60))  # 3,000 seeds passed once (19 s)
def test_random_damage_to_the_trie_and_tables_never_crashes(seed):
    """A few flipped bits behind a valid checksum: load, the golden walk and verify serve or raise
    a typed error (ArtifactError; a token the damaged grammar refuses; a walk limit), nothing else."""
    rng = random.Random(seed)
    name = DAMAGED_SECTIONS[seed % len(DAMAGED_SECTIONS)]

    def damage(array):
        flat = array.reshape(-1).view(np.uint8)
        for _ in range(rng.randint(1, 3)):
            flat[rng.randrange(flat.size)] ^= 1 << rng.randrange(8)

    data = surgery.rewrite_section(RAW, name, damage)
    for step in (walk, lambda d: indexc_runtime.load(d, verify=True)):
        try:
            step(data)
        except (ArtifactError, TokenNotAllowed, GrammarLimitExceeded):
            pass


RAW5 = (GOLDEN / "grammar-v5-brackets-strings.idx").read_bytes()  # undecided sets (format 5)
EXPECTED5 = json.loads((GOLDEN / "grammar-v5-brackets-strings.expected.json").read_text())
UNDECIDED5 = indexc_runtime.load(RAW5)
N_SETS = UNDECIDED5.section("undecided_offsets").size - 1
N_PLACES = UNDECIDED5.section("undecided_positions").size
N_TRIE_TOKENS = UNDECIDED5.section("trie_sorted_tokens").size


@pytest.mark.parametrize("small_items", [tables.SMALL_SECTION_ITEMS, 0])
@pytest.mark.parametrize("name, change, message", [
    ("undecided_set", _set(0, N_SETS + 1), f"values must lie in \\[0, {N_SETS}\\]"),
    ("undecided_set", _set(4, -1), f"values must lie in \\[0, {N_SETS}\\]"),
    ("undecided_offsets", _set(1, N_PLACES + 1), f"offsets must rise from 0 to {N_PLACES}"),
    ("undecided_offsets", _set(0, 1), f"offsets must rise from 0 to {N_PLACES}"),
])
def test_load_refuses_undecided_sets_out_of_bounds(name, change, message, small_items, monkeypatch):
    monkeypatch.setattr(tables, "SMALL_SECTION_ITEMS", small_items)
    with pytest.raises(ArtifactError, match=f"section '{name}': {message}"):
        indexc_runtime.load(surgery.rewrite_section(RAW5, name, change))


def test_an_undecided_place_past_the_trie_is_refused_on_first_use_and_by_verify():
    data = surgery.rewrite_section(RAW5, "undecided_positions", _set(slice(None), N_TRIE_TOKENS))  # every place
    with pytest.raises(ArtifactError, match="section 'undecided_positions'"):
        indexc_runtime.load(data, verify=True)
    matcher = indexc_runtime.load(data).matcher()
    with pytest.raises(ArtifactError, match="section 'undecided_positions'"):
        for token in EXPECTED5["walk"]:
            matcher.allowed_token_ids()
            matcher.advance(token)


@pytest.mark.parametrize("seed", range(20))
def test_random_damage_to_the_undecided_sets_never_crashes(seed):
    """Another set (or 0: every token undecided) in a state's entry, or another place in a set:
    the walk serves some mask or raises a typed error, never anything else."""
    rng = random.Random(seed)
    name = ("undecided_set", "undecided_positions")[seed % 2]

    def damage(array):
        bound = N_SETS + 1 if name == "undecided_set" else N_TRIE_TOKENS
        array.reshape(-1)[rng.randrange(array.size)] = rng.randrange(bound)

    data = surgery.rewrite_section(RAW5, name, damage)
    matcher = indexc_runtime.load(data).matcher()
    try:
        for token in EXPECTED5["walk"]:
            matcher.allowed_token_ids()
            matcher.advance(token)
    except (ArtifactError, TokenNotAllowed, GrammarLimitExceeded):
        pass

"""``write_grammar_artifact``: a GrammarTable -> one grammar artifact (same container, own sections).

The container, the checksums, the atomic write, the shipping form and the self-check are the
regex writer's (``layout.plan_container`` with the grammar's section table,
``writer.write_container``); what differs is the section list
(``indexc_runtime.grammar.format.GRAMMAR_SECTIONS``) and the header's counts.  The in-lexeme
masks go through the regex writer's ``encode_masks`` (dense, sparse or complement words), so
the runtime's ``MaskStore`` reads them unchanged.  The loop regions (``loop_region_sections``)
go as packed bit rows, one per loop set: Llama-3's 274k trie nodes and 128k tokens are ~34 KB +
16 KB a region, plus its exit node ids.

The start mask (format 4, ``start_mask``) is the runtime's own answer: the version 3 sections
are planned in memory, loaded by ``indexc_runtime`` from those bytes and asked for their first
mask, whose row is then written beside them (16 KB for Llama-3).  A serving process then
reads its first mask instead of walking the trie; the cost here is one more container planned
in memory, a load and a walk, and the self-check's second walk (``verify``): CPU of a write,
min of 4, before -> after: arithmetic 23.5 -> 29.1 ms, C 45.3 -> 45.8, JSON 29.6 -> 34.7,
RFC-XML 18.6 -> 40.7 (its 2,252 lexer states loaded twice more).

Format 11 adds the item bounds the warm-up computes (``warm_memo``, ``item_masks``): their lower
masks after the memo's, their upper sets after the undecided sets, and the ``item_*`` sections.

Format 12 adds the lexeme paths (``lexeme_paths``): each chosen lexer state's undecided tokens
grouped by the lexemes they read, computed by the runtime over the version 6 sections in memory
before the warm-up, whose walk reads them.

Format 6 (``undecided_sections``, ``loop_region_token_ids``) writes what the runtime built on
the first mask that needed it: a wide undecided set as a bit row in trie order (RFC-XML's text
sets: 16 KB each instead of 488 KB of places), and each loop region's tokens by token id.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from indexc.arrays import sorted_unique
from indexc.artifact.header import common_fields
from indexc.artifact.layout import plan_container
from indexc.artifact.lexeme_paths import lexeme_path_sections
from indexc.artifact.mask_encoding import encode_masks
from indexc.artifact.sections import _as_file_dtype
from indexc.artifact.warm_memo import index_in_memory, warm_memo
from indexc.errors import LimitError
from indexc.grammar.grammar_table import GrammarTable
from indexc.masks.table import bitset_row
from indexc_runtime.format import state_dtype
from indexc_runtime.grammar import languages
from indexc_runtime.grammar.errors import GrammarLimitExceeded
from indexc_runtime.grammar.format import (
    GRAMMAR_FORMAT_VERSION,
    GRAMMAR_INDEX_KIND,
    GRAMMAR_SECTIONS,
    GRAMMAR_SECTIONS_V3,
    LEXING_ALL_SPLITS,
    LEXING_LONGEST_MATCH,
)


def write_grammar_artifact(table: GrammarTable, path: Path, *, vocab_info, constraint: dict, options: dict,
                           stats: dict, compress: bool = False):
    """Write ``table`` to ``path`` atomically (verified by the runtime first); the writer's summary."""
    from indexc.artifact.writer import ArtifactSummary, vocab_fields, write_container

    vocab = vocab_fields(vocab_info)
    special_ids = np.asarray(getattr(vocab_info, "special_ids", ()), dtype=np.int64)
    arrays, masks = grammar_sections(table, vocab["size"], special_ids)
    fields = _header_fields(table, vocab, constraint, options, stats)
    arrays.update(undecided_sections(table))
    arrays["loop_region_token_ids"] = loop_region_token_ids(table, vocab["size"])
    arrays["start_mask"] = start_mask_row(fields, arrays)
    paths, path_stats, decomposed = lexeme_path_sections(fields, arrays)
    arrays.update(paths)
    warm = warm_memo(fields, arrays, masks, table.warm_up_tokens, language_keys=table.language_keys,
                     given_texts=table.warm_up_given, item_keys=True)
    masks = warm.items.masks
    arrays.update(warm.items.sections)
    arrays.update(warm.paths.sections)
    arrays.update(_file_dtypes(masks.sections()))
    arrays.update(warm.memo.arrays())
    fields["n_masks"] = len(masks.form)
    if warm.stats:
        fields["stats"] = {**fields["stats"], "warm_up": warm.stats}
    if warm.items.stats:
        fields["stats"] = {**fields["stats"], "item_masks": warm.items.stats}
    if warm.paths.stats:
        fields["stats"] = {**fields["stats"], "path_keys": warm.paths.stats}
    if path_stats:
        fields["stats"] = {**fields["stats"], "lexeme_paths": path_stats}
    plan = plan_container(fields, arrays, GRAMMAR_SECTIONS)
    computed = {"stored_mask_rows": warm.rows, "stored_item_bounds": warm.items.rows, "stored_lexeme_paths": decomposed,
                "stored_path_keys": warm.paths.table}
    compressed, size = write_container(plan, path, compress, computed=computed)
    return ArtifactSummary(path=path, bytes=size, raw_bytes=plan.size, compressed=compressed,
                           header_bytes=len(plan.header),
                           section_bytes={name: int(array.nbytes) for name, array in arrays.items()},
                           mask_forms=masks.form_counts(), stage_ms={"warm_up_ms": warm.ms} if warm.stats else {})


def _file_dtypes(sections: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    specs = {spec.name: spec for spec in GRAMMAR_SECTIONS}
    return {name: _as_file_dtype(array, specs[name].dtypes, name) for name, array in sections.items()}


def start_mask_row(fields: dict, arrays: dict[str, np.ndarray]) -> np.ndarray:
    """The start configuration's bitmask row (uint32), as the runtime computes it over ``arrays``
    (the version 3 sections) loaded from memory."""
    index = index_in_memory(fields, arrays, GRAMMAR_SECTIONS_V3, 3)
    row = np.zeros((1, index.mask_words), dtype=np.int32)
    try:
        index.matcher().fill_bitmask(row)
    except GrammarLimitExceeded as exc:  # the runtime's first mask would stop there too
        raise LimitError(f"the grammar's first mask (the start mask the artifact stores): {exc}") from None
    return row[0].view(np.uint32)


def grammar_sections(table: GrammarTable, vocab_size: int, special_ids: np.ndarray):
    """Every version 3 section's array in its file dtype (all but the start mask), and the encoded masks."""
    lexer, earley, trie = table.lexer, table.earley, table.trie
    masks = encode_masks(table.all_masks, vocab_size)
    n_states = lexer.dfa.n_states
    arrays = {
        "byte_classes": table.lexer_masks.byte_classes,
        "class_transitions": (table.lexer_masks.class_transitions.astype(np.int64) + 1).astype(state_dtype(n_states)),
        "accepting": lexer.dfa.accepting.astype(np.uint8),
        "state_terminal": lexer.state_terminal,
        "terminal_start": lexer.starts,
        "state_mask": table.lexer_masks.state_mask,
        **masks.sections(),
        "pair_offsets": table.pair_offsets,
        "pair_terminal": table.pair_terminal,
        "pair_mask": table.pair_mask,
        "rule_lhs": earley.rule_lhs,
        "rule_rhs_offsets": earley.rule_rhs_offsets,
        "rule_rhs": earley.rule_rhs,
        "symbol_nullable": earley.symbol_nullable,
        "prediction_offsets": earley.prediction_offsets,
        "prediction_rule": earley.prediction_rule,
        "prediction_dot": earley.prediction_dot,
        "ignore_terminals": earley.ignore,
        "trie_node_class": trie.node_class,
        "trie_child_offsets": trie.child_offsets,
        "trie_children": trie.children,
        "trie_token_start": trie.token_start,
        "trie_token_end": trie.token_end,
        "trie_subtree_token_end": trie.subtree_token_end,
        "trie_sorted_tokens": trie.sorted_tokens,
        "token_class_offsets": table.token_class_offsets,
        "token_class_data": table.token_class_data,
        "special_ids": sorted_unique(special_ids),
        **loop_region_sections(table),
    }
    return {spec.name: _as_file_dtype(arrays[spec.name], spec.dtypes, spec.name) for spec in GRAMMAR_SECTIONS_V3}, masks


def undecided_sections(table: GrammarTable) -> dict[str, np.ndarray]:
    """``undecided_*``: 1 + each lexer state's undecided set (0: every token is undecided), and the
    sets, each as its places in the trie's token order or, where that is not smaller, as a bit row
    in that order (format 6: the row is what the walk's coverage reads for a wide set)."""
    words = -(-table.trie.sorted_tokens.size // 32)
    if table.undecided_set is None:
        n = table.lexer.dfa.n_states
        return {"undecided_set": np.zeros(n, dtype=np.int32), "undecided_offsets": np.zeros(1, dtype=np.int64),
                "undecided_positions": np.zeros(0, dtype=np.int32), "undecided_row": np.zeros(0, dtype=np.int32),
                "undecided_rows": np.zeros((0, words), dtype=np.uint32)}
    offsets, positions = table.undecided_offsets, table.undecided_positions
    sets = [positions[offsets[k]:offsets[k + 1]] for k in range(offsets.size - 1)]
    as_row = [places.size >= words > 0 for places in sets]
    kept = [np.zeros(0, dtype=np.int32) if row else places for places, row in zip(sets, as_row)]
    rows = [_bit_row(places, 32 * words) for places, row in zip(sets, as_row) if row]
    return {"undecided_set": (table.undecided_set.astype(np.int64) + 1).astype(np.int32),
            "undecided_offsets": np.concatenate([[0], np.cumsum([p.size for p in kept], dtype=np.int64)]),
            "undecided_positions": np.concatenate([np.zeros(0, dtype=np.int32), *kept]).astype(np.int32),
            "undecided_row": (np.cumsum(as_row, dtype=np.int64) * np.array(as_row) - 1).astype(np.int32),
            "undecided_rows": np.stack(rows) if rows else np.zeros((0, words), dtype=np.uint32)}


def loop_region_token_ids(table: GrammarTable, vocab_size: int) -> np.ndarray:
    """``loop_region_token_ids`` (format 6): each loop region's tokens as a bit row by token id,
    the layout of a mask row (the walk ORs it into a mask where it jumps to the loop's exits)."""
    words = -(-vocab_size // 32)
    rows = [_bit_row(table.trie.sorted_tokens[region.region_tokens], 32 * words) for _, region in table.loop_regions]
    return np.stack(rows) if rows else np.zeros((0, words), dtype=np.uint32)


def _bit_row(ids: np.ndarray, bits: int) -> np.ndarray:
    """``bitset_row`` of the flags of ``ids`` among ``bits``: bit ``i % 32`` of word ``i // 32``."""
    flags = np.zeros(bits, dtype=np.uint8)
    flags[ids] = 1
    return bitset_row(flags)


def loop_region_sections(table: GrammarTable) -> dict[str, np.ndarray]:
    """The ``loop_*`` sections: each loop's class set, its region's nodes and tokens as packed
    bits (little bit order, as ``indexc_runtime.grammar.loop_exits`` unpacks them), its exits."""
    regions = table.loop_regions
    n_nodes, n_tokens = table.trie.node_class.size, table.trie.sorted_tokens.size

    def packed(rows: list[np.ndarray], size: int) -> np.ndarray:
        if not rows:
            return np.zeros((0, -(-size // 8)), dtype=np.uint8)
        return np.packbits(np.stack(rows), axis=1, bitorder="little")

    exit_counts = [region.exit_nodes.size for _, region in regions]
    return {
        "loop_classes": np.array([loop for loop, _ in regions], dtype=np.uint8).reshape(len(regions), table.n_classes),
        "loop_region_nodes": packed([region.in_region for _, region in regions], n_nodes),
        "loop_region_tokens": packed([region.region_tokens for _, region in regions], n_tokens),
        "loop_exit_offsets": np.concatenate([[0], np.cumsum(exit_counts, dtype=np.int64)]),
        "loop_exit_nodes": np.concatenate([np.zeros(0, dtype=np.int64), *(r.exit_nodes for _, r in regions)]),
    }


def _lexing_fields(table: GrammarTable) -> dict:
    """``lexing``, and under longest match the terminals that end so (format 10)."""
    if table.longest_match is None:
        return {"lexing": LEXING_ALL_SPLITS}
    return {"lexing": LEXING_LONGEST_MATCH, "longest_match_terminals": np.flatnonzero(table.longest_match).tolist()}


def _header_fields(table: GrammarTable, vocab: dict, constraint: dict, options: dict, stats: dict) -> dict:
    earley = table.earley
    return {
        **common_fields(format_version=GRAMMAR_FORMAT_VERSION, index_kind=GRAMMAR_INDEX_KIND, vocab=vocab,
                        constraint=constraint, options=options, stats=stats),
        **_lexing_fields(table),
        "origin_merge": languages.MERGE_FROM_SHARED,  # read here, not imported: tests may set it
        "n_lexer_states": table.lexer.dfa.n_states,
        "n_classes": table.n_classes,
        "n_masks": len(table.all_masks),
        "n_terminals": table.lexer.n_terminals,
        "n_nonterminals": len(earley.nonterminal_names),
        "n_rules": earley.n_rules,
        "terminal_names": list(earley.terminal_names),
        "nonterminal_names": list(earley.nonterminal_names),
    }

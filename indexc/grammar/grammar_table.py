"""``GrammarTable``: everything a grammar artifact holds, in memory, before any encoding choice.

It is to the grammar path what ``MaskTable`` is to the regex path: the compile's output,
handed to ``indexc.artifact``.  Three parts (see ``indexc_runtime.grammar.format``):

- ``lexer`` + ``lexer_masks``: the lexer automaton (terminals side by side) and, per lexer state,
  the in-lexeme mask (a ``MaskTable`` of the lexer, computed by the regex mask machinery);
  the boundary masks (``boundary_masks``) per (lexer state, following terminal), merged with
  the in-lexeme masks into one deduplicated list (``all_masks``);
- ``earley``: the flat rule tables (``earley_tables``);
- the token trie's walk arrays with each node's byte class, and every text token's class
  sequence by id (the live walker and ``advance`` read these at serving time);
- the *loop regions* (``stored_loop_regions``): for each lexer state, its self-loop class set
  ``L(q)``, deduplicated, and the region the runtime would build for it
  on the first mask that needs one (``indexc_runtime.grammar.loop_exits.find_region``, the same
  function: one algorithm, not two copies).  Only the wide ones (``MIN_REGION_NODES``) are
  kept.  Llama-3: ~7-20 ms of compile and ~50 KB of artifact a region, where the runtime
  paid the build on its cold p99 mask.

``n_states``, ``n_classes``, ``live_tokens`` and ``stats`` have the meaning the command line
reports for a regex table (lexer states, byte classes, tokens in some in-lexeme mask).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from indexc.grammar.boundary_masks import BoundaryProducts
from indexc.grammar.earley_tables import EarleyTables
from indexc.grammar.lexemes import Lexer
from indexc.masks import MaskTable
from indexc.masks.token_sequences import class_sequences
from indexc.trie import TokenTrie
from indexc.vocab.model import Vocabulary
from indexc_runtime.grammar.loop_exits import Region, class_node_counts, find_region


@dataclass(frozen=True)
class TrieWalkArrays:
    """The token trie as the runtime walks it (``docs/token-trie.md``), classes instead of bytes."""

    node_class: np.ndarray  # uint8 (n_nodes,)
    child_offsets: np.ndarray  # int32 (n_nodes + 1,)
    children: np.ndarray  # int32
    token_start: np.ndarray  # int32 (n_nodes,)
    token_end: np.ndarray  # int32 (n_nodes,)
    subtree_token_end: np.ndarray  # int32 (n_nodes,)
    sorted_tokens: np.ndarray  # int32


@dataclass(frozen=True)
class GrammarTable:
    lexer: Lexer
    lexer_masks: MaskTable  # in-lexeme masks of the lexer states
    earley: EarleyTables
    trie: TrieWalkArrays
    token_class_offsets: np.ndarray  # int64 (vocab_size + 1,): by token id; empty row: not a text token
    token_class_data: np.ndarray  # uint8
    all_masks: tuple[np.ndarray, ...]  # the lexer's masks (same ids), then the boundary masks not among them
    pair_offsets: np.ndarray  # int32 (n_lexer_states + 1,): boundary pairs of each lexer state (CSR)
    pair_terminal: np.ndarray  # int32: the following terminal of each pair
    pair_mask: np.ndarray  # int32: the pair's mask id in ``all_masks``
    loop_regions: tuple[tuple[np.ndarray, Region], ...] = ()  # (loop class set as bools, its region)
    undecided_set: np.ndarray | None = None  # int32 (n_lexer_states,): its undecided set, -1: every token
    undecided_offsets: np.ndarray | None = None  # int64 (n_sets + 1,): set k is undecided_positions[offsets[k]:offsets[k+1]]
    undecided_positions: np.ndarray | None = None  # int32: places in the trie's token order, ascending per set
    stats: dict = field(default_factory=dict)
    warm_up_tokens: np.ndarray | None = None  # int32: a text the writer walks to store its memo (format 7)
    warm_up_given: int = 0  # its first texts that were given (walked whole), not sampled (walked to a step budget)
    language_keys: bool = False  # the writer stores the walk's configurations' language keys (format 8)
    longest_match: np.ndarray | None = None  # bool per terminal under ``lexing = "longest_match"`` (format 10)

    @property
    def n_states(self) -> int:
        return self.lexer.dfa.n_states

    @property
    def n_classes(self) -> int:
        return self.lexer_masks.n_classes

    @property
    def masks(self) -> tuple[np.ndarray, ...]:
        """Every unique stored mask (token ids): in-lexeme masks first, then boundary masks."""
        return self.all_masks

    @property
    def live_tokens(self) -> np.ndarray:
        return self.lexer_masks.live_tokens


def build_grammar_table(lexer: Lexer, masks: MaskTable, earley: EarleyTables, trie: TokenTrie,
                        vocab: Vocabulary, products: BoundaryProducts | None,
                        product_masks: tuple[tuple[np.ndarray, ...], np.ndarray] | None,
                        undecided: tuple[list[np.ndarray], np.ndarray]) -> GrammarTable:
    """Assemble the table: masks merged, trie arrays with classes, every text token's class sequence."""
    class_of_byte = masks.byte_classes
    walk = TrieWalkArrays(
        node_class=class_of_byte[trie.byte].astype(np.uint8),
        child_offsets=trie.child_offsets.astype(np.int32),
        children=trie.children.astype(np.int32),
        token_start=trie.token_start.astype(np.int32),
        token_end=trie.token_end.astype(np.int32),
        subtree_token_end=trie.subtree_token_end.astype(np.int32),
        sorted_tokens=trie.sorted_tokens.astype(np.int32),
    )
    text_ids = np.sort(trie.sorted_tokens.astype(np.int64))
    offsets, data = class_sequences(vocab, text_ids, class_of_byte)
    lengths = np.zeros(vocab.size, dtype=np.int64)
    lengths[text_ids] = np.diff(offsets)
    by_id = np.zeros(vocab.size + 1, dtype=np.int64)
    np.cumsum(lengths, out=by_id[1:])
    stats = {
        "terminals": lexer.n_terminals,
        "nonterminals": len(earley.nonterminal_names),
        "rules": earley.n_rules,
        "lexer_states": lexer.dfa.n_states,
        "classes": masks.n_classes,
        "unique_masks": len(masks.masks),
        "live_tokens": int(masks.live_tokens.size),
        "trie_nodes": trie.n_nodes,
        "warnings": len(earley.warnings),
    }
    all_masks, pair_offsets, pair_terminal, pair_mask = _merged_masks(masks, lexer.dfa.n_states, products, product_masks)
    undecided_sets, undecided_set = undecided
    undecided_offsets, undecided_positions = _in_trie_order(undecided_sets, walk.sorted_tokens, vocab.size)
    stats["boundary_pairs"] = int(pair_terminal.size)
    stats["undecided_states"] = int((undecided_set >= 0).sum())
    stats["stored_masks"] = len(all_masks)
    loop_regions = stored_loop_regions(masks.class_transitions, walk)
    stats["loop_regions"] = len(loop_regions)
    return GrammarTable(lexer, masks, earley, walk, by_id, data, all_masks, pair_offsets, pair_terminal, pair_mask,
                        loop_regions, undecided_set.astype(np.int32), undecided_offsets, undecided_positions, stats)


def _in_trie_order(token_sets: list[np.ndarray], sorted_tokens: np.ndarray, vocab_size: int):
    """Token id sets as CSR lists of their places in the trie's token order (ascending): what the
    walk's coverage test reads (``indexc_runtime.grammar.coverage``)."""
    place = np.full(vocab_size, -1, dtype=np.int64)
    place[sorted_tokens] = np.arange(sorted_tokens.size)
    lists = [np.sort(place[np.asarray(tokens, dtype=np.int64)]) for tokens in token_sets]
    offsets = np.zeros(len(lists) + 1, dtype=np.int64)
    np.cumsum([part.size for part in lists], out=offsets[1:])
    return offsets, np.concatenate([np.zeros(0, dtype=np.int64), *lists]).astype(np.int32)


def stored_loop_regions(class_transitions: np.ndarray, trie: TrieWalkArrays) -> tuple[tuple[np.ndarray, Region], ...]:
    """The wide regions of the lexer states' self-loop sets, one per distinct set, in the order
    of their first state.

    A non-accepting state's set is what the walker asks for a one-thread configuration in it
    (``walker._loop_of``: it goes back to itself on exactly ``L(q)``).  An accepting state's
    configuration may complete a lexeme on a loop class, so its loop is the configuration's;
    but where nothing can follow the lexeme on those classes (an identifier, XML text), that is
    ``L(q)`` again, and its region was the one the runtime still built on a first mask: 2.2-2.3
    ms of the arithmetic and RFC-XML samples' cold walks.
    """
    loops = class_transitions == np.arange(class_transitions.shape[0])[:, None]
    wanted = loops.any(axis=1)
    distinct = {np.packbits(loops[q]).tobytes(): loops[q] for q in np.flatnonzero(wanted)}
    class_nodes = class_node_counts(trie, class_transitions.shape[1])
    found = ((loop, find_region(trie, loop, class_nodes=class_nodes)) for loop in distinct.values())
    return tuple((loop, region) for loop, region in found if region is not None)


def _merged_masks(masks: MaskTable, n_lexer_states: int, products: BoundaryProducts | None,
                  product_masks: tuple[tuple[np.ndarray, ...], np.ndarray] | None):
    """One deduplicated mask list (the lexer's ids unchanged) and the pairs' mask ids in it
    (``product_masks``: the pairs' distinct masks and each pair's id among them)."""
    merged = list(masks.masks)
    if products is None or product_masks is None or not products.pair_state.size:
        empty = np.zeros(0, dtype=np.int32)
        return tuple(merged), np.zeros(n_lexer_states + 1, dtype=np.int32), empty, empty
    pair_masks, mask_of_pair = product_masks
    merged, remap = _appended(tuple(merged), pair_masks)
    return merged, products.pair_offsets, products.pair_terminal, remap[mask_of_pair]


def _appended(masks: tuple[np.ndarray, ...], more) -> tuple[tuple[np.ndarray, ...], np.ndarray]:
    """``masks`` with those of ``more`` not among them appended, and each of ``more``'s id in the result."""
    merged = list(masks)
    id_of = {m.tobytes(): i for i, m in enumerate(merged)}
    ids = np.empty(len(more), dtype=np.int32)
    for k, m in enumerate(more):
        ids[k] = id_of.setdefault(m.tobytes(), len(merged))
        if ids[k] == len(merged):
            merged.append(m)
    return tuple(merged), ids

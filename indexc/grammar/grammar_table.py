"""``GrammarTable``: everything a grammar artifact holds, in memory, before any encoding choice.

It is to the grammar path what ``MaskTable`` is to the regex path: the compile's output,
handed to ``indexc.artifact``.  Three parts (see ``indexc_runtime.grammar.format``):

- ``lexer`` + ``lexer_masks``: the lexer automaton (terminals side by side) and, per lexer state,
  the in-lexeme mask (a ``MaskTable`` of the lexer, computed by the regex mask machinery);
- ``earley``: the flat rule tables (``earley_tables``);
- the token trie's walk arrays with each node's byte class, and every text token's class
  sequence by id (the live walker and ``advance`` read these at serving time).

``n_states``, ``n_classes``, ``live_tokens`` and ``stats`` have the meaning the command line
reports for a regex table (lexer states, byte classes, tokens in some in-lexeme mask).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from indexc.grammar.earley_tables import EarleyTables
from indexc.grammar.lexemes import Lexer
from indexc.masks import MaskTable
from indexc.masks.token_sequences import class_sequences
from indexc.trie import TokenTrie
from indexc.vocab.model import Vocabulary


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
    stats: dict = field(default_factory=dict)

    @property
    def n_states(self) -> int:
        return self.lexer.dfa.n_states

    @property
    def n_classes(self) -> int:
        return self.lexer_masks.n_classes

    @property
    def masks(self) -> tuple[np.ndarray, ...]:
        """The unique in-lexeme masks (token ids), as ``MaskTable.masks``."""
        return self.lexer_masks.masks

    @property
    def live_tokens(self) -> np.ndarray:
        return self.lexer_masks.live_tokens


def build_grammar_table(lexer: Lexer, masks: MaskTable, earley: EarleyTables, trie: TokenTrie,
                        vocab: Vocabulary) -> GrammarTable:
    """Assemble the table: trie arrays with classes, every text token's class sequence."""
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
    return GrammarTable(lexer, masks, earley, walk, by_id, data, stats)

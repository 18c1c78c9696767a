"""The byte-class sequence of every live token: all the runtime needs to ``advance``.

A token's next state is found by walking its class sequence through the (small)
state x class table, so the artifact stores no state x token table: only, for each token
that appears in some mask, its bytes translated to classes (CSR layout).  Tokens that are in
no mask can never be advanced on and are not stored at all.
"""

from __future__ import annotations

import numpy as np

from indexc.arrays import run_positions
from indexc.masks.class_trie import sequence_numbers
from indexc.trie import TokenTrie
from indexc.vocab.model import Vocabulary


WHOLE_VOCABULARY_SHARE = 8  # from this share of the vocabulary up, select over all its bytes


def class_sequences(
    vocab: Vocabulary, token_ids: np.ndarray, class_of_byte: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """CSR (offsets int64, data uint8) of the byte classes of ``token_ids``' bytes, in order.

    Many ascending ids (live tokens are ascending) take the bytes of the chosen tokens with one
    boolean selection over all the vocabulary's bytes, classed by ``bytes.translate`` (a
    256-entry table in C): Llama-3, 124.7k of 128k tokens (~700 KB), ~16 -> ~6.5 ms, where
    expanding each token's byte range as int64 positions and gathering through them made five
    passes of 8-byte temporaries the size of all those bytes.  Fewer ids than a
    ``WHOLE_VOCABULARY_SHARE``-th of the vocabulary (a date regex: 333 live tokens), or ids out
    of order, take that way still: the whole-vocabulary passes cost a fixed ~3.5 ms.
    """
    flat, token_offsets = vocab.flat_bytes()
    ids = np.asarray(token_ids, dtype=np.int64)
    lengths = np.diff(token_offsets)
    offsets = np.zeros(ids.size + 1, dtype=np.int64)
    np.cumsum(lengths[ids], out=offsets[1:])
    table = np.ascontiguousarray(class_of_byte, dtype=np.uint8).tobytes()
    if ids.size * WHOLE_VOCABULARY_SHARE < lengths.size or (ids.size > 1 and not np.all(ids[1:] > ids[:-1])):
        positions = run_positions(token_offsets[ids], lengths[ids])
        return offsets, np.frombuffer(flat[positions].tobytes().translate(table), dtype=np.uint8)
    classes = np.frombuffer(flat.tobytes().translate(table), dtype=np.uint8)
    return offsets, classes[_bytes_of(ids, token_offsets, lengths)]


def _bytes_of(ids: np.ndarray, token_offsets: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Bool per byte of the vocabulary's bytes: it belongs to one of the tokens ``ids``.

    Most of a vocabulary is live under a JSON Schema (Llama-3: ~124k of 128k tokens), so the
    bytes of the few others are cleared instead (~0.7 ms), where repeating a flag per token
    by its length cost ~2.4 ms; with more than a quarter of the tokens left out, the repeat."""
    chosen = np.zeros(lengths.size, dtype=bool)
    chosen[ids] = True
    left_out = np.flatnonzero(~chosen)
    if left_out.size * 4 >= lengths.size:
        return np.repeat(chosen, lengths)
    selected = np.ones(int(token_offsets[-1]), dtype=bool)
    selected[run_positions(token_offsets[left_out], lengths[left_out])] = False
    return selected


def class_sequence_groups(trie: TokenTrie, class_of_byte: np.ndarray, token_ids: np.ndarray) -> np.ndarray:
    """One number per token of ``token_ids``: equal numbers iff equal class sequences.

    Exact, with no hashing: the numbers are the nodes of the class trie of ``class_of_byte``
    with nothing pruned (``class_trie.sequence_numbers``: byte-trie nodes numbered level by level
    by (number of the parent, class of the byte)), so two nodes get one number iff their paths
    have the same class sequence; a token takes the number of the node it ends at.  One pass
    over the trie's levels (Llama-3: 274k nodes, ~17 ms CPU; ~28 ms with ``np.unique`` over
    byte-node ids), where hashing the sequences and checking the hash took ~60 ms; the writer
    uses it to share the rows of tokens with one sequence.  Tokens outside the trie (none are
    live) get -1.
    """
    number_of_token = np.full(int(trie.sorted_tokens.max(initial=-1)) + 2, -1, dtype=np.int64)
    tokens_at_node = trie.token_end - trie.token_start  # sorted_tokens are grouped by node, in id order
    number_of_token[trie.sorted_tokens] = np.repeat(sequence_numbers(trie, class_of_byte), tokens_at_node)
    return number_of_token[np.minimum(token_ids, number_of_token.size - 1)]

"""The byte-class sequence of every live token: all the runtime needs to ``advance``.

A token's next state is found by walking its class sequence through the (small)
state x class table, so the artifact stores no state x token table: only, for each token
that appears in some mask, its bytes translated to classes (CSR layout).  Tokens that are in
no mask can never be advanced on and are not stored at all.
"""

from __future__ import annotations

import numpy as np

from indexc.arrays import expand_runs
from indexc.trie import TokenTrie
from indexc.vocab.model import Vocabulary


def class_sequences(
    vocab: Vocabulary, token_ids: np.ndarray, class_of_byte: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """CSR (offsets int64, data uint8) of the byte classes of ``token_ids``' bytes, in order."""
    flat, token_offsets = vocab.flat_bytes()
    ids = token_ids.astype(np.int64)
    starts = token_offsets[ids]
    lengths = token_offsets[ids + 1] - starts
    offsets = np.zeros(ids.size + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    _, positions = expand_runs(starts, lengths)
    return offsets, class_of_byte[flat[positions]].astype(np.uint8)


def class_sequence_groups(trie: TokenTrie, class_of_byte: np.ndarray, token_ids: np.ndarray) -> np.ndarray:
    """One number per token of ``token_ids``: equal numbers iff equal class sequences.

    Exact, with no hashing: byte-trie nodes are numbered level by level by (number of the
    parent, class of the byte), so two nodes get one number iff their paths have the same
    class sequence; a token takes the number of the node it ends at.  One pass over the trie's
    levels (Llama-3: 274k nodes, ~10 ms), where hashing the sequences and checking the hash
    took ~60 ms; the writer uses it to share the rows of tokens with one sequence.
    Tokens outside the trie (none are live) would get -1.
    """
    number = np.zeros(trie.n_nodes, dtype=np.int64)
    width = int(class_of_byte.max()) + 1
    cls = class_of_byte[trie.byte].astype(np.int64)
    next_free = 1
    for depth in range(1, trie.level_offsets.size - 1):
        nodes = trie.level_nodes[trie.level_offsets[depth]:trie.level_offsets[depth + 1]]
        if nodes.size == 0:
            continue
        keys = number[trie.parent[nodes]] * width + cls[nodes]
        distinct, inverse = np.unique(keys, return_inverse=True)
        number[nodes] = next_free + inverse.reshape(-1)
        next_free += distinct.size
    node_of_token = np.full(int(trie.sorted_tokens.max(initial=-1)) + 2, -1, dtype=np.int64)
    ends = np.flatnonzero(trie.token_end > trie.token_start)
    node_of_token[trie.sorted_tokens] = np.repeat(ends, (trie.token_end - trie.token_start)[ends])
    owner = node_of_token[np.minimum(token_ids, node_of_token.size - 1)]
    return np.where(owner >= 0, number[np.maximum(owner, 0)], -1)

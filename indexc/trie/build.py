"""Build the ``TokenTrie`` of a vocabulary with numpy, from its text tokens in byte order.

Sorted lexicographically, the tokens list the trie in DFS pre-order: the prefixes a token
shares with its predecessor (its LCP with it, ``byte_order``) are nodes already made, and its
longer prefixes, lengths ``lcp + 1 .. len``, are new nodes, emitted in that order.  (A prefix
shared with any earlier token is shared with the predecessor too: everything sorted between
two strings with a common prefix has that prefix.)  So the node list is, per token, a run of
``len - lcp`` new nodes (none for a second id with the same bytes); ``np.repeat`` of per-token
values over those runs gives each node its depth and the position of its byte.  ``pre_order`` turns the
depths into parents, subtree sizes, pop counts, levels and CSR children; the node where
each token ends is the last of its run, and a ``bincount`` of those end nodes gives every
node its run of ``sorted_tokens``.

Measured on this 2-core machine for Llama-3 (128,000 text tokens, 274,521 nodes): ~58 ms
(best of 21; 8 ms reading the token bytes, 14 ms order + LCP, 19 ms tree shape) and a 28 MB
traced peak, 12.9 MB of which is the trie itself; a Python loop over prefixes took 0.6-1.0 s.
``bench/bench_vocab_trie.py`` prints the current figures.
"""

from __future__ import annotations

import numpy as np

from indexc.errors import VocabularyError
from indexc.trie.byte_order import lexicographic_order
from indexc.trie.model import NO_TOKEN, TokenTrie
from indexc.trie.pre_order import children_csr, level_order, parents, pop_counts, subtree_ends
from indexc.vocab.model import Vocabulary


def build_trie(vocab: Vocabulary) -> TokenTrie:
    """The trie of ``vocab``'s text tokens (NORMAL, BYTE, USER with non-empty bytes)."""
    token_ids, buf, starts, lengths = text_tokens(vocab)
    order, lcp = lexicographic_order(buf, starts, lengths)
    sorted_tokens = token_ids[order].astype(np.int32)
    starts, lengths = starts[order], lengths[order]

    new_nodes = lengths - lcp
    run_first = np.cumsum(new_nodes) - new_nodes  # first new node of each token, among non-root nodes
    # A run's nodes have depths lcp + 1, lcp + 2, ...: node index minus the run's first, plus lcp + 1.
    depth = np.zeros(int(new_nodes.sum()) + 1, dtype=np.int32)
    depth[1:] = np.arange(depth.size - 1, dtype=np.int32)
    depth[1:] += np.repeat((lcp + 1 - run_first).astype(np.int32), new_nodes)
    byte = np.zeros(depth.size, dtype=np.uint8)
    byte[1:] = buf[np.repeat(starts - 1, new_nodes) + depth[1:]]  # the node's last byte
    token_end_node = run_first + new_nodes  # last node of the run (+1 for the root)
    return _assemble(byte, depth, sorted_tokens, token_end_node)


def text_tokens(vocab: Vocabulary) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Ids of the trie's tokens (ascending) and where their bytes are in one flat buffer."""
    if np.shape(vocab.kinds) != (vocab.size,):
        raise VocabularyError(
            f"{np.shape(vocab.kinds)} token kinds for {vocab.size} tokens", source=vocab.source
        )
    lengths = np.fromiter(map(len, vocab.token_bytes), dtype=np.int64, count=vocab.size)
    buf = np.frombuffer(_joined(vocab.token_bytes), dtype=np.uint8)
    starts = np.cumsum(lengths) - lengths
    ids = np.flatnonzero(vocab.text_token_mask() & (lengths > 0))
    return ids, buf, starts[ids], lengths[ids]


def _joined(pieces: tuple[bytes, ...], batch: int = 8192) -> bytes:
    """``b"".join(pieces)``, in batches.

    One join holds an 80-byte buffer record per piece: 10 MB at once for 128k tokens, which
    was a third of the build's peak memory.
    """
    return b"".join([b"".join(pieces[i : i + batch]) for i in range(0, len(pieces), batch)])


def _assemble(byte: np.ndarray, depth: np.ndarray, sorted_tokens: np.ndarray, token_end_node: np.ndarray) -> TokenTrie:
    """Derive the tree shape from the pre-order depths and attach the token runs."""
    n = int(depth.size)
    level_nodes, level_offsets = level_order(depth)
    parent = parents(depth, level_nodes, level_offsets)
    end = subtree_ends(parent, level_nodes, level_offsets)
    child_offsets, children = children_csr(parent)

    per_node = np.bincount(token_end_node, minlength=n)
    token_bounds = np.zeros(n + 1, dtype=np.int32)  # token_bounds[n] = m closes the last subtree
    np.cumsum(per_node, out=token_bounds[1:])
    token_start, token_end = token_bounds[:-1], token_bounds[1:]
    ends_tokens = per_node > 0
    token_id = np.full(n, NO_TOKEN, dtype=np.int32)
    token_id[ends_tokens] = sorted_tokens[token_start[ends_tokens]]  # smallest: ids ascend per run

    return TokenTrie(
        byte=byte,
        depth=depth,
        parent=parent,
        subtree_size=(end - np.arange(n, dtype=np.int32)).astype(np.int32),
        num_parents=pop_counts(depth, end),
        token_id=token_id,
        sorted_tokens=sorted_tokens,
        token_start=token_start.copy(),
        token_end=token_end.copy(),
        subtree_token_end=token_bounds[end],
        child_offsets=child_offsets,
        children=children,
        level_offsets=level_offsets,
        level_nodes=level_nodes,
        max_depth=int(level_offsets.size - 2),
    )

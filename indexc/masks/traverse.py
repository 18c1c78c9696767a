"""Prefix-graph traversal: which tokens each DFA state allows, by a level-by-level frontier.

The frontier is a set of triples (origin state, current state, class-trie node): "from
``origin``, the class sequence of ``node`` leads to ``current``".  One level of the walk expands
every triple to the node's children in a handful of vectorised numpy operations (a
``np.repeat`` for the child ranges, one gather in the class transition table) and drops a
triple as soon as its current state dies, which prunes the whole subtree below it (seed 000's
pruning, done for all states at once).  A triple whose node ends tokens is a *hit*: those
tokens are allowed from ``origin``.

The cost is the number of live triples, so it grows with the size of the masks (as class
sequences), not with states x vocabulary.  The loop runs once per trie level (at most the
longest token, ~ 20-130 levels with most of the work in the first 8).  Origins are walked in
chunks so that the frontier stays within ``max_pairs`` triples (memory is bounded however
dense the masks are); the chunks are independent, which is what the parallel driver splits.
"""

from __future__ import annotations

import numpy as np

from indexc.masks.class_trie import ClassTrie


def walk_hits(
    class_trie: ClassTrie, class_transitions: np.ndarray, origins: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """All (origin, class node) pairs such that the node's class sequence keeps origin alive."""
    child_offsets = class_trie.child_offsets
    node_class = class_trie.node_class
    has_tokens = np.diff(class_trie.token_offsets) > 0
    n_classes = class_transitions.shape[1]
    flat_transitions = class_transitions.reshape(-1)

    origin = origins.astype(np.int32)
    current = origin.copy()
    node = np.zeros(origin.shape, dtype=np.int64)
    hit_origin: list[np.ndarray] = []
    hit_node: list[np.ndarray] = []
    while node.size:
        first = child_offsets[node]
        count = child_offsets[node + 1] - first
        total = int(count.sum())
        if total == 0:
            break
        parent_index = np.repeat(np.arange(node.size), count)
        run_start = np.cumsum(count) - count
        child = first[parent_index] + (np.arange(total) - run_start[parent_index])
        nxt = flat_transitions[current[parent_index].astype(np.int64) * n_classes + node_class[child]]
        alive = nxt >= 0
        origin = origin[parent_index[alive]]
        current = nxt[alive]
        node = child[alive]
        ends = has_tokens[node]
        hit_origin.append(origin[ends])
        hit_node.append(node[ends])
    if not hit_origin:
        return np.zeros(0, np.int32), np.zeros(0, np.int64)
    return np.concatenate(hit_origin), np.concatenate(hit_node)


def allowed_tokens_by_origin(
    class_trie: ClassTrie, class_transitions: np.ndarray, origins: np.ndarray
) -> list[np.ndarray]:
    """For each origin state in ``origins``, the sorted ids of the text tokens it allows."""
    hit_origin, hit_node = walk_hits(class_trie, class_transitions, origins)
    starts = class_trie.token_offsets[hit_node]
    counts = class_trie.token_offsets[hit_node + 1] - starts
    total = int(counts.sum())
    which = np.repeat(np.arange(hit_node.size), counts)
    run_start = np.cumsum(counts) - counts
    tokens = class_trie.tokens[starts[which] + (np.arange(total) - run_start[which])]
    owners = hit_origin[which]
    # Rank origins 0..k-1 in the order given, then sort by (rank, token) with one key.
    rank_of_state = np.full(int(origins.max(initial=-1)) + 1, -1, dtype=np.int64)
    rank_of_state[origins] = np.arange(origins.size)
    key = rank_of_state[owners] * (np.int64(1) << 32) + tokens.astype(np.int64)
    key.sort()
    ranks = key >> 32
    token_sorted = (key & 0xFFFFFFFF).astype(np.int32)
    bounds = np.searchsorted(ranks, np.arange(origins.size + 1))
    return [token_sorted[bounds[i] : bounds[i + 1]] for i in range(origins.size)]

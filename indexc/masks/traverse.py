"""Prefix-graph traversal: which tokens each DFA state allows, by a level-by-level frontier.

The frontier is a set of triples (origin state, current state, class-trie node): "from
``origin``, the class sequence of ``node`` leads to ``current``".  One level of the walk expands
every triple to the node's children in a handful of vectorised numpy operations (a
``np.repeat`` for the child ranges, one gather in the class transition table) and drops a
triple as soon as its current state dies, which prunes the whole subtree below it (seed 000's
pruning, done for all states at once).  A triple whose node ends tokens is a *hit*: those
tokens are allowed from ``origin``.

The walk's answer is, per origin, its *hit set*: the sorted class nodes it reaches that end
tokens.  Each token ends at exactly one class node, so two states have the same mask iff
they have the same hit set (and the same accepting flag): masks are deduplicated on these
small sets before a single token id is expanded.  The cost is the number of live triples,
so it grows with the size of the masks counted in class sequences, not with states x
vocabulary.  The loop runs once per trie level (the longest token; most work is in the first
8 levels).  Origins are walked in chunks so that the frontier stays bounded however dense
the masks are; the chunks are independent, which is what the parallel driver splits.
"""

from __future__ import annotations

import numpy as np

from indexc.masks.class_trie import ClassTrie
from indexc.masks.runs import expand_runs


def walk_hits(
    class_trie: ClassTrie, class_transitions: np.ndarray, origins: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """All (origin, class node) pairs such that the node ends tokens and keeps origin alive."""
    child_offsets = class_trie.child_offsets
    node_class = class_trie.node_class.astype(np.int64)
    has_tokens = np.diff(class_trie.token_offsets) > 0
    n_classes = class_transitions.shape[1]
    flat_transitions = class_transitions.reshape(-1)

    origin = origins.astype(np.int32)
    current = origin.astype(np.int64)
    node = np.zeros(origin.shape, dtype=np.int64)
    hit_origin: list[np.ndarray] = [np.zeros(0, np.int32)]
    hit_node: list[np.ndarray] = [np.zeros(0, np.int64)]
    while node.size:
        first = child_offsets[node]
        parent, child = expand_runs(first, child_offsets[node + 1] - first)
        nxt = flat_transitions[current[parent] * n_classes + node_class[child]]
        alive = nxt >= 0
        origin = origin[parent[alive]]
        current = nxt[alive].astype(np.int64)
        node = child[alive]
        ends = has_tokens[node]
        hit_origin.append(origin[ends])
        hit_node.append(node[ends])
    return np.concatenate(hit_origin), np.concatenate(hit_node)


def hit_sets_by_origin(
    class_trie: ClassTrie, class_transitions: np.ndarray, origins: np.ndarray
) -> list[np.ndarray]:
    """For each origin state in ``origins`` (ascending), its sorted hit set (class node ids)."""
    hit_origin, hit_node = walk_hits(class_trie, class_transitions, origins)
    order = np.lexsort((hit_node, hit_origin))
    hit_origin, hit_node = hit_origin[order], hit_node[order]
    bounds = np.searchsorted(hit_origin, origins, side="left")
    ends = np.searchsorted(hit_origin, origins, side="right")
    return [hit_node[lo:hi] for lo, hi in zip(bounds.tolist(), ends.tolist())]


def tokens_of_nodes(class_trie: ClassTrie, nodes: np.ndarray) -> np.ndarray:
    """The token ids ending at ``nodes`` (unsorted; disjoint per node)."""
    starts = class_trie.token_offsets[nodes]
    _, positions = expand_runs(starts, class_trie.token_offsets[nodes + 1] - starts)
    return class_trie.tokens[positions]

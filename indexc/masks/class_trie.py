"""The class trie: the token trie with every byte replaced by its byte class.

Token classes (seed 002): tokens whose bytes have the same class sequence are allowed in
exactly the same states, so the walk visits each class sequence once.  Rather than re-sorting
128k class strings, the class trie is *derived from the byte trie* level by level: a byte-trie
node at depth d maps to the class-trie node keyed by (class node of its parent, class of its
byte); one ``np.unique`` per level numbers the keys.  Class nodes are thus numbered in
breadth-first order with the children of a node contiguous and sorted by class, which is the
CSR layout the frontier walk wants, for free.

Dead-byte pruning happens first: a byte-trie node whose byte is in a dead class removes its
whole subtree (a DFS range, so a difference array and one cumulative sum mark all of them).
Only surviving nodes are processed, so a digits regex over Llama-3 touches a few thousand of
the 274k nodes.

Numbers (Llama-3, 274k byte nodes): the https regex of seed 002 keeps ~XXX nodes and gives
~YYY class nodes; see BENCHMARKS.md for the measured build times.

With token classes switched off the "class" of a byte is the byte itself and the class trie
is the (pruned) byte trie.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from indexc.trie import TokenTrie


@dataclass(frozen=True)
class ClassTrie:
    """Breadth-first class trie; node 0 is the root."""

    node_class: np.ndarray  # int32 (n,): class of the edge into the node (root: -1)
    child_offsets: np.ndarray  # int64 (n+1,): children of c are child_offsets[c]:child_offsets[c+1]
    token_offsets: np.ndarray  # int64 (n+1,): tokens ending at c are tokens[token_offsets[c]:...]
    tokens: np.ndarray  # int32: token ids grouped by class node
    pruned_tokens: int  # text tokens removed by dead-byte pruning
    byte_node_offsets: np.ndarray  # int64 (n+1,): byte-trie nodes mapped to c (CSR); empty if not asked
    byte_nodes: np.ndarray  # int64: byte-trie node ids grouped by class node

    @property
    def n_nodes(self) -> int:
        return int(self.node_class.shape[0])


def surviving_nodes(trie: TokenTrie, node_dead: np.ndarray) -> np.ndarray:
    """Boolean per byte node: neither it nor an ancestor is dead (subtrees are DFS ranges)."""
    dead = np.flatnonzero(node_dead)
    n = trie.n_nodes + 1
    diff = np.bincount(dead, minlength=n) - np.bincount(dead + trie.subtree_size[dead], minlength=n)
    return np.cumsum(diff[:-1]) == 0


def build_class_trie(
    trie: TokenTrie,
    class_of_byte: np.ndarray,
    n_classes: int,
    dead_byte: np.ndarray,
    *,
    prune_dead: bool = True,
    with_byte_nodes: bool = False,
) -> ClassTrie:
    """Map the byte trie onto byte classes, dropping subtrees under a dead byte when ``prune_dead``.

    Deadness is per byte (dead in every state), not per class: with literal muting the walk's
    classes ignore the muted states' rows, so a class may hold a dead byte and a byte only a
    muted state uses.  ``with_byte_nodes`` also returns which byte nodes each class node
    stands for (what the walk needs to leave class mode at a muted state).
    """
    byte_class = class_of_byte[trie.byte].astype(np.int64)
    if prune_dead:
        node_dead = dead_byte[trie.byte]
        node_dead[0] = False
        keep = surviving_nodes(trie, node_dead)
    else:
        keep = np.ones(trie.n_nodes, dtype=bool)
    kept = np.flatnonzero(keep)
    kept = kept[np.argsort(trie.depth[kept], kind="stable")]  # level by level
    level_bounds = np.searchsorted(trie.depth[kept], np.arange(int(trie.depth[kept].max(initial=0)) + 2))

    class_node = np.full(trie.n_nodes, -1, dtype=np.int64)
    class_node[0] = 0
    parents = [np.zeros(0, dtype=np.int64)]
    classes = [np.full(1, -1, dtype=np.int64)]
    next_id = 1
    for level in range(1, len(level_bounds) - 1):
        nodes = kept[level_bounds[level] : level_bounds[level + 1]]
        if nodes.size == 0:
            break
        keys = class_node[trie.parent[nodes]] * n_classes + byte_class[nodes]
        unique_keys, inverse = np.unique(keys, return_inverse=True)
        class_node[nodes] = next_id + inverse.reshape(-1)
        parents.append(unique_keys // n_classes)
        classes.append(unique_keys % n_classes)
        next_id += unique_keys.size
    node_class = np.concatenate(classes).astype(np.int32)
    parent_of = np.concatenate(parents)  # parent of class nodes 1..n-1, non-decreasing (BFS)
    # Children of c are the class nodes k >= 1 with parent_of[k - 1] == c: one contiguous run.
    child_offsets = np.searchsorted(parent_of, np.arange(next_id + 1)).astype(np.int64) + 1

    tokens, token_offsets, pruned = _tokens_by_class_node(trie, class_node, next_id)
    if with_byte_nodes:
        byte_nodes, byte_node_offsets = _group_by(class_node, next_id)
    else:
        byte_nodes, byte_node_offsets = np.zeros(0, np.int64), np.zeros(next_id + 1, np.int64)
    return ClassTrie(node_class, child_offsets, token_offsets, tokens, pruned, byte_node_offsets, byte_nodes)


def _group_by(owner: np.ndarray, n_groups: int) -> tuple[np.ndarray, np.ndarray]:
    """Indices i with owner[i] >= 0, grouped by owner (CSR: members, offsets)."""
    members = np.flatnonzero(owner >= 0)
    members = members[np.argsort(owner[members], kind="stable")]
    offsets = np.zeros(n_groups + 1, dtype=np.int64)
    np.cumsum(np.bincount(owner[members], minlength=n_groups), out=offsets[1:])
    return members, offsets


def _tokens_by_class_node(trie: TokenTrie, class_node: np.ndarray, n_class_nodes: int):
    """Group the trie's token ids by the class node where they end (CSR), dropping pruned ones.

    Nodes are in DFS = lexicographic order, so the per-node token runs, concatenated in node
    order, are ``sorted_tokens`` itself: the owner of each entry is one ``np.repeat`` away.
    """
    per_node = (trie.token_end - trie.token_start).astype(np.int64)
    owner = class_node[np.repeat(np.arange(trie.n_nodes), per_node)]
    alive = owner >= 0
    owner, token_ids = owner[alive], trie.sorted_tokens[alive]
    order = np.argsort(owner, kind="stable")
    tokens = token_ids[order].astype(np.int32)
    counts = np.bincount(owner, minlength=n_class_nodes)
    offsets = np.zeros(n_class_nodes + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    return tokens, offsets, int((~alive).sum())

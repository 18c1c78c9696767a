"""A naive recursive token trie, the reference the flat numpy trie is checked against.

It shares nothing with ``indexc.trie`` but the definition: a dict-of-dicts trie filled token by
token, walked recursively with children in byte order.  ``num_parents`` is computed literally
from seed 000's words: hold the root-to-node path as a stack and pop until its top is the parent
of the node that follows the subtree (for the last subtree, until only the root is left); the
stack is the chain of parents, so popping is stepping up that chain.
"""

from __future__ import annotations

import gc
import sys
from dataclasses import dataclass, field

import numpy as np

from indexc.trie import TokenTrie
from indexc.vocab.model import Vocabulary


@dataclass
class _Node:
    children: dict[int, _Node] = field(default_factory=dict)
    ids: list[int] = field(default_factory=list)


@dataclass
class NaiveTrie:
    """Per node, in recursive pre-order: everything ``TokenTrie`` stores, as Python lists."""

    byte: list[int] = field(default_factory=list)
    depth: list[int] = field(default_factory=list)
    parent: list[int] = field(default_factory=list)
    subtree_size: list[int] = field(default_factory=list)
    num_parents: list[int] = field(default_factory=list)
    ids: list[list[int]] = field(default_factory=list)  # token ids ending at the node, ascending


def text_token_ids(vocab: Vocabulary) -> list[int]:
    """Ids that belong in the trie: text kinds with non-empty bytes."""
    text = vocab.text_token_mask()
    return [i for i, b in enumerate(vocab.token_bytes) if text[i] and b]


def naive_trie(vocab: Vocabulary) -> NaiveTrie:
    # Hundreds of thousands of small objects: cyclic GC passes would more than double the time.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _naive_trie(vocab)
    finally:
        if was_enabled:
            gc.enable()


def _naive_trie(vocab: Vocabulary) -> NaiveTrie:
    root = _Node()
    for i in text_token_ids(vocab):
        node = root
        for b in vocab.token_bytes[i]:
            child = node.children.get(b)
            if child is None:
                child = node.children[b] = _Node()
            node = child
        node.ids.append(i)
    out = NaiveTrie()
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))
    try:
        _visit(root, 0, -1, 0, out)
    finally:
        sys.setrecursionlimit(limit)
    out.num_parents = [_pops_after_subtree(p, out) for p in range(len(out.byte))]
    return out


def _visit(node: _Node, byte: int, parent: int, depth: int, out: NaiveTrie) -> None:
    index = len(out.byte)
    out.byte.append(byte)
    out.depth.append(depth)
    out.parent.append(parent)
    out.subtree_size.append(0)
    out.ids.append(sorted(node.ids))
    for b in sorted(node.children):
        _visit(node.children[b], b, index, depth + 1, out)
    out.subtree_size[index] = len(out.byte) - index


def _pops_after_subtree(p: int, out: NaiveTrie) -> int:
    """Pop the path stack of p (p, parent of p, ...) until its top is the next node's parent."""
    after = p + out.subtree_size[p]
    target = out.parent[after] if after < len(out.byte) else 0
    top, pops = p, 0
    while top != target:
        top = out.parent[top]
        pops += 1
    return pops


def assert_matches_naive(trie: TokenTrie, vocab: Vocabulary) -> None:
    """Every per-node array of ``trie`` equals the naive reference's."""
    ref = naive_trie(vocab)
    assert trie.n_nodes == len(ref.byte)
    np.testing.assert_array_equal(trie.byte, ref.byte)
    np.testing.assert_array_equal(trie.depth, ref.depth)
    np.testing.assert_array_equal(trie.parent, ref.parent)
    np.testing.assert_array_equal(trie.subtree_size, ref.subtree_size)
    np.testing.assert_array_equal(trie.num_parents, ref.num_parents)
    np.testing.assert_array_equal(trie.token_end - trie.token_start, [len(ids) for ids in ref.ids])
    np.testing.assert_array_equal(trie.sorted_tokens, [i for ids in ref.ids for i in ids])
    first = [ids[0] if ids else -1 for ids in ref.ids]
    np.testing.assert_array_equal(trie.token_id, first)


def assert_structure_consistent(trie: TokenTrie, vocab: Vocabulary) -> None:
    """Invariants that tie the arrays together (no reference needed; vectorised, fast)."""
    n = trie.n_nodes
    for name in ("depth", "parent", "subtree_size", "num_parents", "token_id", "token_start", "token_end", "subtree_token_end"):
        assert getattr(trie, name).shape == (n,), name
        assert getattr(trie, name).dtype == np.int32, name
    assert trie.byte.dtype == np.uint8
    assert (trie.byte[0], trie.depth[0], trie.parent[0], trie.subtree_size[0]) == (0, 0, -1, n)
    nodes = np.arange(1, n)
    assert (trie.parent[1:] < nodes).all() and (trie.parent[1:] >= 0).all()
    np.testing.assert_array_equal(trie.depth[1:], trie.depth[trie.parent[1:]] + 1)
    # Subtrees nest: a child's range lies inside its parent's.
    assert (nodes + trie.subtree_size[1:] <= trie.parent[1:] + trie.subtree_size[trie.parent[1:]]).all()

    # CSR children: exactly the nodes whose parent is p, in increasing id (= byte) order.
    assert trie.child_offsets.shape == (n + 1,) and trie.children.shape == (n - 1,)
    assert trie.child_offsets[0] == 0 and trie.child_offsets[-1] == n - 1
    owner = np.repeat(np.arange(n), np.diff(trie.child_offsets))
    np.testing.assert_array_equal(trie.parent[trie.children], owner)
    same_owner = owner[1:] == owner[:-1]
    assert (trie.children[1:][same_owner] > trie.children[:-1][same_owner]).all()
    assert (trie.byte[trie.children[1:][same_owner]] > trie.byte[trie.children[:-1][same_owner]]).all()

    # Levels: every node once, grouped by depth, ascending ids within a level.
    assert trie.max_depth == int(trie.depth.max())
    np.testing.assert_array_equal(np.sort(trie.level_nodes), np.arange(n))
    level_of = np.repeat(np.arange(trie.max_depth + 1), np.diff(trie.level_offsets))
    np.testing.assert_array_equal(trie.depth[trie.level_nodes], level_of)

    # Token runs: sorted_tokens holds every text token once; runs tile it in node order.
    np.testing.assert_array_equal(np.sort(trie.sorted_tokens), text_token_ids(vocab))
    assert (trie.token_start <= trie.token_end).all()
    np.testing.assert_array_equal(trie.token_start[1:], trie.token_end[:-1])
    assert trie.token_start[0] == 0 and trie.token_end[-1] == trie.n_tokens
    ends = np.append(trie.token_start, trie.n_tokens)[nodes + trie.subtree_size[1:]]
    np.testing.assert_array_equal(trie.subtree_token_end[1:], ends)
    assert trie.subtree_token_end[0] == trie.n_tokens


def assert_tokens_at_their_bytes(trie: TokenTrie, vocab: Vocabulary) -> None:
    """Each text token is listed exactly once, at the node whose prefix is its bytes."""
    prefixes = node_prefixes(trie)
    owner = np.repeat(np.arange(trie.n_nodes), trie.token_end - trie.token_start)
    for token, node in zip(trie.sorted_tokens.tolist(), owner.tolist()):
        assert prefixes[node] == vocab.token_bytes[token], (token, node)
    assert len(set(prefixes)) == trie.n_nodes
    assert prefixes == sorted(prefixes)  # DFS order is lexicographic order


def node_prefixes(trie: TokenTrie) -> list[bytes]:
    """Each node's bytes, built parent first (parents precede children in id order)."""
    prefixes: list[bytes] = [b""] * trie.n_nodes
    for p, (par, b) in enumerate(zip(trie.parent.tolist(), trie.byte.tolist())):
        if p:
            prefixes[p] = prefixes[par] + bytes((b,))
    return prefixes

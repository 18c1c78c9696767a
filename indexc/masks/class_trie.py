"""The class trie: the token trie with every byte replaced by its byte class.

Token classes (seed 002): tokens whose bytes have the same class sequence are allowed in
exactly the same states, so the walk visits each class sequence once.  Rather than re-sorting
128k class strings, the class trie is *derived from the byte trie* level by level: a byte-trie
node at depth d maps to the class-trie node keyed by (class node of its parent, class of its
byte); one ``np.unique`` per level numbers the keys.  Class nodes are thus numbered in
breadth-first order with the children of a node contiguous and sorted by class, which is the
CSR layout the frontier walk wants, for free.

Dead-byte pruning happens on the way: the class trie is built breadth first from the root
over the byte trie's CSR children, and a child whose byte is dead in every state, or whose
byte cannot follow its parent's byte in any state, is simply not taken, so its whole subtree
is never touched.  The cost is the number of surviving nodes:
a digits regex over Llama-3 touches a few thousand of the 274k nodes (~1 ms), where marking
dead subtrees over the whole trie first cost ~10-15 ms whatever the regex.

Numbers (Llama-3, 274k byte nodes): the https regex of seed 002 (the bench's ``url``, 104 byte
classes) keeps 115,623 of the 128,000 tokens and gives 82,225 class nodes, built in ~45 ms on
this machine; BENCHMARKS.md's ablation table gives the node counts of every bench regex.

With token classes switched off the "class" of a byte is the byte itself and the class trie
is the (pruned) byte trie.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from indexc.arrays import expand_runs, stable_argsort
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
    max_level_width: int  # most class nodes at one depth: bounds a frontier level per origin

    @property
    def n_nodes(self) -> int:
        return int(self.node_class.shape[0])

    @cached_property
    def subtree_sizes(self) -> np.ndarray:
        """int64 (n,): nodes in each node's subtree, itself included (bounds a walk started there).

        Levels are contiguous id ranges (breadth first), and a level's nodes are grouped by
        parent, so each level adds into its parents with one ``add.reduceat``, deepest first.
        """
        sizes = np.ones(self.n_nodes, dtype=np.int64)
        for parents, first, (lo, hi) in self._levels_deepest_first():
            sizes[parents] += np.add.reduceat(sizes[lo:hi], first)
        return sizes

    @cached_property
    def heights(self) -> np.ndarray:
        """int64 (n,): levels below each node (0 for a leaf): the longest string a walk started
        there reads (``equivalence``)."""
        heights = np.zeros(self.n_nodes, dtype=np.int64)
        for parents, first, (lo, hi) in self._levels_deepest_first():
            heights[parents] = np.maximum.reduceat(heights[lo:hi], first) + 1
        return heights

    @cached_property
    def level_ranges(self) -> list[tuple[int, int]]:
        """The id range of each level, root level first (breadth first: levels are contiguous)."""
        levels = [(0, 1)]
        while True:
            lo, hi = int(self.child_offsets[levels[-1][0]]), int(self.child_offsets[levels[-1][1]])
            if lo == hi:
                return levels
            levels.append((lo, hi))

    @cached_property
    def parents(self) -> np.ndarray:
        """int64 (n,): each node's parent (the root's: -1)."""
        parents = np.repeat(np.arange(self.n_nodes, dtype=np.int64), np.diff(self.child_offsets))
        return np.concatenate(([-1], parents))

    @cached_property
    def preorder(self) -> np.ndarray:
        """int64 (n,): each node's position in a depth-first pre-order (children in id order),
        so that the subtree of ``v`` is the positions ``[preorder[v], preorder[v] + subtree_sizes[v])``
        (``loop_jumps`` finds a node's descendants in a run with two binary searches).  A node
        comes right after its parent and its earlier siblings' subtrees: one pass per level."""
        pre = np.zeros(self.n_nodes, dtype=np.int64)
        sizes = self.subtree_sizes
        for lo, hi in self.level_ranges[1:]:
            parents = self.parents[lo:hi]
            before = np.cumsum(sizes[lo:hi]) - sizes[lo:hi]  # sizes of the level's earlier nodes
            first_sibling = self.child_offsets[parents] - lo
            pre[lo:hi] = pre[parents] + 1 + before - before[first_sibling]
        return pre

    def _levels_deepest_first(self) -> Iterator[tuple[np.ndarray, np.ndarray, tuple[int, int]]]:
        """Per level with children, deepest first: (its parents' ids, where each parent's run of
        children starts within the level, the level's id range)."""
        levels = self.level_ranges
        for (parent_lo, parent_hi), (lo, hi) in reversed(list(zip(levels, levels[1:]))):
            counts = np.diff(self.child_offsets[parent_lo:parent_hi + 1])
            with_children = np.flatnonzero(counts)
            yield parent_lo + with_children, self.child_offsets[parent_lo:parent_hi][with_children] - lo, (lo, hi)


def build_class_trie(
    trie: TokenTrie,
    class_of_byte: np.ndarray,
    n_classes: int,
    dead_byte: np.ndarray,
    dead_pair: np.ndarray | None = None,
    *,
    prune_dead: bool = True,
    with_byte_nodes: bool = False,
) -> ClassTrie:
    """Map the byte trie onto byte classes, dropping subtrees under a dead byte when ``prune_dead``.

    Deadness is per byte (dead in every state) and per pair of adjacent bytes (``dead_pair``,
    from ``alphabet.dead_byte_pairs``), not per class: with literal muting the walk's classes
    ignore the muted states' rows, so a class may hold a dead byte and a byte only a muted
    state uses.  ``with_byte_nodes`` also returns which byte nodes each class node
    stands for (what the walk needs to leave class mode at a muted state).
    """
    class_node = np.full(trie.n_nodes, -1, dtype=np.int64)
    class_node[0] = 0
    parents = [np.zeros(0, dtype=np.int64)]
    classes = [np.full(1, -1, dtype=np.int64)]
    kept_levels = [np.zeros(1, dtype=np.int64)]
    next_id = 1
    max_level_width = 1
    frontier = kept_levels[0]
    depth = 0
    small = _SmallLevels(trie, class_of_byte, dead_byte if prune_dead else None,
                         dead_pair if prune_dead else None, class_node, n_classes)
    narrow = _NarrowRun(parents, classes, kept_levels, n_classes)
    while len(frontier):  # breadth first from the root: cost ~ surviving nodes, not all nodes
        if len(frontier) <= SMALL_LEVEL:
            nodes, distinct = small.level(frontier, depth, next_id)
            if not nodes:
                break
            narrow.add(nodes, distinct)
            width = len(distinct)
        else:
            narrow.flush()
            nodes, unique_keys = _level(trie, np.asarray(frontier), class_of_byte, dead_byte, dead_pair,
                                        class_node, n_classes, depth, prune_dead, next_id)
            if not len(nodes):
                break
            parents.append(unique_keys // n_classes)
            classes.append(unique_keys % n_classes)
            kept_levels.append(nodes)
            width = unique_keys.size
        next_id += width
        max_level_width = max(max_level_width, width)
        frontier = nodes
        depth += 1
    narrow.flush()
    node_class = np.concatenate(classes).astype(np.int32)
    parent_of = np.concatenate(parents)  # parent of class nodes 1..n-1, non-decreasing (BFS)
    # Children of c are the class nodes k >= 1 with parent_of[k - 1] == c: one contiguous run.
    child_offsets = np.searchsorted(parent_of, np.arange(next_id + 1)).astype(np.int64) + 1

    kept = np.concatenate(kept_levels)
    tokens, token_offsets, pruned = _tokens_by_class_node(trie, kept, class_node, next_id)
    if with_byte_nodes:
        byte_nodes, byte_node_offsets = _group_by(class_node, next_id)
    else:
        byte_nodes, byte_node_offsets = np.zeros(0, np.int64), np.zeros(next_id + 1, np.int64)
    return ClassTrie(node_class, child_offsets, token_offsets, tokens, pruned, byte_node_offsets, byte_nodes,
                     max_level_width)


SMALL_LEVEL = 64  # frontier nodes below which a level is done in Python (~15 us, not ~60 us of numpy calls)


def _level(trie: TokenTrie, frontier: np.ndarray, class_of_byte: np.ndarray, dead_byte: np.ndarray,
           dead_pair: np.ndarray | None, class_node: np.ndarray, n_classes: int, depth: int, prune_dead: bool,
           next_id: int) -> tuple[np.ndarray, np.ndarray]:
    """One wide level, vectorised: (its kept byte nodes, the sorted distinct keys numbering
    their class nodes from ``next_id``); ``class_node`` of the kept nodes is set."""
    nodes, owner = _children(trie, frontier)
    edge_byte = trie.byte[nodes]
    if prune_dead:
        alive = ~dead_byte[edge_byte]
        if dead_pair is not None and depth > 0:  # below the first level the parent has a byte
            alive &= ~dead_pair[trie.byte[frontier[owner]], edge_byte]
        nodes, owner, edge_byte = nodes[alive], owner[alive], edge_byte[alive]
    keys = class_node[frontier[owner]] * n_classes + class_of_byte[edge_byte]
    unique_keys, inverse = _number_keys(keys)
    class_node[nodes] = next_id + inverse
    return nodes, unique_keys


class _SmallLevels:
    """Narrow levels in plain Python over memoryviews of the arrays.

    The deep levels of a Llama-3 trie are runs like ``----`` or ``....``, a few nodes each, and
    there are ~100 of them under a wide regex (email: 102 of 115 levels hold at most 64 nodes);
    the vectorised level's ~20 numpy calls then cost ~60 us for a handful of nodes.  Here a
    child costs ~10 memoryview reads, ~35 us for such a level (same class trie, checked on the
    16 bench regexes; email, complex_phone and time build 2-2.5 ms faster).
    """

    def __init__(self, trie: TokenTrie, class_of_byte: np.ndarray, dead_byte: np.ndarray | None,
                 dead_pair: np.ndarray | None, class_node: np.ndarray, n_classes: int):
        self.child_offsets = memoryview(np.ascontiguousarray(trie.child_offsets))
        self.children = memoryview(np.ascontiguousarray(trie.children))
        self.byte = memoryview(np.ascontiguousarray(trie.byte))
        self.class_of_byte = memoryview(np.ascontiguousarray(class_of_byte, dtype=np.int64))
        self.dead_byte = None if dead_byte is None else memoryview(dead_byte.astype(np.uint8))
        self.dead_pair = None if dead_pair is None else memoryview(dead_pair.astype(np.uint8).reshape(-1))
        self.class_node = memoryview(class_node)
        self.n_classes = n_classes

    def level(self, frontier, depth: int, next_id: int) -> tuple[list[int], list[int]]:
        """Same as ``_level`` (the keys as a sorted list), for a frontier of at most ``SMALL_LEVEL`` nodes."""
        nodes: list[int] = []
        keys: list[int] = []
        offsets, children, byte, dead_byte, dead_pair = (self.child_offsets, self.children, self.byte,
                                                         self.dead_byte, self.dead_pair)
        for parent in (frontier.tolist() if isinstance(frontier, np.ndarray) else frontier):
            parent_key = self.class_node[parent] * self.n_classes
            parent_byte = byte[parent] * 256
            for position in range(offsets[parent], offsets[parent + 1]):
                node = children[position]
                b = byte[node]
                if dead_byte is not None and dead_byte[b]:
                    continue
                if dead_pair is not None and depth > 0 and dead_pair[parent_byte + b]:
                    continue
                nodes.append(node)
                keys.append(parent_key + self.class_of_byte[b])
        distinct = sorted(set(keys))
        rank = {key: next_id + i for i, key in enumerate(distinct)}
        for node, key in zip(nodes, keys):
            self.class_node[node] = rank[key]
        return nodes, distinct


class _NarrowRun:
    """Consecutive narrow levels kept as Python lists and turned into arrays once (``flush``):
    a regex whose classes admit long runs (email: ``----``, ``====``, ``____``) has ~100 narrow
    levels, and three small arrays per level cost more than the level's own work."""

    def __init__(self, parents: list, classes: list, kept_levels: list, n_classes: int):
        self._out = (parents, classes, kept_levels)
        self._n_classes = n_classes
        self._parents: list[int] = []
        self._classes: list[int] = []
        self._kept: list[int] = []

    def add(self, nodes: list[int], distinct_keys: list[int]) -> None:
        n = self._n_classes
        self._parents.extend(key // n for key in distinct_keys)
        self._classes.extend(key % n for key in distinct_keys)
        self._kept.extend(nodes)

    def flush(self) -> None:
        if not self._kept:
            return
        parents, classes, kept_levels = self._out
        parents.append(np.array(self._parents, dtype=np.int64))
        classes.append(np.array(self._classes, dtype=np.int64))
        kept_levels.append(np.array(self._kept, dtype=np.int64))
        self._parents, self._classes, self._kept = [], [], []


def _children(trie: TokenTrie, frontier: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(children of the frontier nodes, index of each one's parent in ``frontier``): the wide
    levels' CSR expansion (narrow ones are ``_SmallLevels``')."""
    first = trie.child_offsets[frontier].astype(np.int64)
    owner, position = expand_runs(first, trie.child_offsets[frontier + 1] - first)
    return trie.children[position].astype(np.int64), owner


def _number_keys(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(sorted distinct keys, index of each key among them): ``np.unique`` with
    ``return_inverse``, without its sort where it can.

    Keys are (parent class node x n_classes + class), so a level's keys span a range of about
    (class nodes of the level above) x n_classes: usually a few thousand values for ~10k keys.
    Then a presence table and a running count number them in O(n + range) (email, level 4:
    10.7k keys in a range of ~1.5k); a wider range sorts; a narrow level uses a Python set.
    """
    if keys.size > SMALL_LEVEL:
        low = int(keys.min())
        span = int(keys.max()) - low + 1
        if span > 4 * keys.size + 4096:
            unique_keys, inverse = np.unique(keys, return_inverse=True)
            return unique_keys, inverse.reshape(-1)
        present = np.zeros(span, dtype=bool)
        present[keys - low] = True
        rank = np.cumsum(present) - 1
        return np.flatnonzero(present) + low, rank[keys - low]
    distinct = sorted(set(keys.tolist()))
    rank = {key: i for i, key in enumerate(distinct)}
    return np.array(distinct, dtype=np.int64), np.array([rank[key] for key in keys.tolist()], dtype=np.int64)


def _group_by(owner: np.ndarray, n_groups: int) -> tuple[np.ndarray, np.ndarray]:
    """Indices i with owner[i] >= 0, grouped by owner (CSR: members, offsets)."""
    members = np.flatnonzero(owner >= 0)
    members = members[stable_argsort(owner[members])]
    offsets = np.zeros(n_groups + 1, dtype=np.int64)
    np.cumsum(np.bincount(owner[members], minlength=n_groups), out=offsets[1:])
    return members, offsets


def _tokens_by_class_node(trie: TokenTrie, kept: np.ndarray, class_node: np.ndarray, n_class_nodes: int):
    """Group the token ids of the kept byte nodes by their class node (CSR)."""
    starts = trie.token_start[kept].astype(np.int64)
    owner, position = expand_runs(starts, trie.token_end[kept].astype(np.int64) - starts)
    owner_class = class_node[kept[owner]]
    order = stable_argsort(owner_class)
    tokens = trie.sorted_tokens[position[order]].astype(np.int32)
    offsets = np.zeros(n_class_nodes + 1, dtype=np.int64)
    np.cumsum(np.bincount(owner_class, minlength=n_class_nodes), out=offsets[1:])
    return tokens, offsets, int(trie.n_tokens - tokens.size)

"""Loop exits: where the live walk starts for a configuration that loops on most bytes.

A configuration ``C`` inside a wide lexeme (a JSON string body, a comment) goes back to itself
on a set ``L`` of byte classes.  Every trie node whose path is made of ``L`` only keeps ``C``
alive, so all the tokens ending there are allowed, and the only tokens left to find are below
the *exits*: the children of the root and of those nodes by a class outside ``L``, from which
the walk goes on in configuration ``C``.  The region depends on ``L`` alone, so it is found
once per index and kept (its tokens as flags, its exits as arrays): every node off the loop
excludes its subtree, an id range in the trie's depth-first numbering, so the region is one
difference array over the nodes (and one over the tokens): ~4-5 ms a region for Llama-3,
after ~12 ms once per index for each node's parent and subtree range (a breadth-first search
took ~20 ms a region; same regions and exits, checked on random loop sets).  The walk then starts at the exits
(a few thousand nodes: tokens with a quote or a backslash) instead of at the root, where it
had to go down the whole region because nearly every subtree of it holds some exit token, so
coverage pruning rarely applied.

Only regions of at least ``MIN_REGION_NODES`` nodes are kept (a small loop is cheaper to walk
than to look up); the cache holds ``MAX_REGIONS`` loop sets per index.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from indexc_runtime.grammar.tables import TrieArrays

MIN_REGION_NODES = 4_096
MAX_REGIONS = 64


@dataclass(frozen=True)
class Exits:
    token_flags: np.ndarray  # uint8 (flag row length,): 1 for every token ending in the region
    nodes: np.ndarray  # int64: the exit nodes
    classes: np.ndarray  # int64: their byte classes


class LoopExits:
    """The regions and exits of loop class sets, built on first use, shared by an index's matchers."""

    def __init__(self, trie: TrieArrays, flag_count: int):
        self._trie = trie
        self._flag_count = flag_count
        self._found: dict[bytes, Exits | None] = {}
        self._shape: _TrieShape | None = None

    def of(self, loop: np.ndarray) -> Exits | None:
        """The exits of the loop class set ``loop`` (bool per class), or None for a small region."""
        key = np.packbits(loop).tobytes()
        if key in self._found:
            return self._found[key]
        if self._shape is None:
            self._shape = _TrieShape.of(self._trie)
        exits = self._build(loop, self._shape)
        if len(self._found) < MAX_REGIONS:
            self._found[key] = exits
        return exits

    def _build(self, loop: np.ndarray, shape: "_TrieShape") -> Exits | None:
        """The region as "no node off the loop on the path": every node off the loop excludes its
        subtree, an id range in the trie's depth-first numbering (one difference array), and
        likewise its run of tokens; the exits are the nodes off the loop under a kept node."""
        trie = self._trie
        off = ~loop[trie.node_class]
        off[0] = False  # the root has no edge
        bad = np.flatnonzero(off)
        kept = _uncovered(bad, shape.subtree_end[bad], off.size)
        kept[0] = False
        if int(kept.sum()) < MIN_REGION_NODES:
            return None
        leaving = bad[kept[shape.parent[bad]] | (shape.parent[bad] == 0)]
        token_kept = _uncovered(trie.token_start[bad].astype(np.int64), trie.subtree_token_end[bad].astype(np.int64),
                                trie.sorted_tokens.size)
        flags = np.zeros(self._flag_count, dtype=np.uint8)
        flags[trie.sorted_tokens[token_kept]] = 1
        return Exits(flags, leaving, trie.node_class[leaving].astype(np.int64))


@dataclass(frozen=True)
class _TrieShape:
    """Each node's parent and the end of its subtree's id range (depth-first numbering: the
    subtree of p is ``[p, subtree_end[p])``), derived once per index from the child lists."""

    parent: np.ndarray  # int64 (n,), the root's parent is 0
    subtree_end: np.ndarray  # int64 (n,)

    @classmethod
    def of(cls, trie: TrieArrays) -> "_TrieShape":
        n = trie.node_class.size
        counts = np.diff(trie.child_offsets.astype(np.int64))
        parent = np.zeros(n, dtype=np.int64)
        parent[trie.children] = np.repeat(np.arange(n, dtype=np.int64), counts)
        # The last leaf under p, by pointer jumping down the last-child chain (<= log2(depth) rounds).
        last = np.arange(n, dtype=np.int64)
        has_children = counts > 0
        last[has_children] = trie.children[trie.child_offsets[1:][has_children] - 1]
        while True:
            deeper = last[last]
            if np.array_equal(deeper, last):
                break
            last = deeper
        return cls(parent, last + 1)


def _uncovered(starts: np.ndarray, ends: np.ndarray, size: int) -> np.ndarray:
    """Bool (size,): positions in none of the ranges ``[starts[i], ends[i])``."""
    depth = np.bincount(starts, minlength=size + 1)[: size + 1] - np.bincount(ends, minlength=size + 1)[: size + 1]
    return np.cumsum(depth[:size]) == 0

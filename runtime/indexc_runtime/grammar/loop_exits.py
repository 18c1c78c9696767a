"""Loop exits: where the live walk starts for a configuration that loops on most bytes.

A configuration ``C`` inside a wide lexeme (a JSON string body, a comment) goes back to itself
on a set ``L`` of byte classes.  Every trie node whose path is made of ``L`` only keeps ``C``
alive, so all the tokens ending there are allowed, and the only tokens left to find are below
the *exits*: the children of the root and of those nodes by a class outside ``L``, from which
the walk goes on in configuration ``C``.  The region depends on ``L`` alone, so it is found
once per index (breadth first over the trie, ~5-10 ms for Llama-3's string region of ~90k
nodes) and kept: its tokens as flags, its exits as arrays.  The walk then starts at the exits
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
NARROW = 64  # frontier nodes below which the rest of the region is found in Python


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

    def of(self, loop: np.ndarray) -> Exits | None:
        """The exits of the loop class set ``loop`` (bool per class), or None for a small region."""
        key = np.packbits(loop).tobytes()
        if key in self._found:
            return self._found[key]
        exits = self._build(loop)
        if len(self._found) < MAX_REGIONS:
            self._found[key] = exits
        return exits

    def _build(self, loop: np.ndarray) -> Exits | None:
        trie = self._trie
        inside = [np.zeros(1, dtype=np.int64)]  # the root: the base of the first exits
        frontier = inside[0]
        while frontier.size > NARROW or len(inside) == 1:  # the root's level is wide however small the root
            child = _children(trie, frontier)
            frontier = child[loop[trie.node_class[child]]]
            inside.append(frontier)
        inside.append(_narrow_region(trie, frontier.tolist(), loop.tolist()))
        region = np.concatenate(inside[1:])
        if region.size < MIN_REGION_NODES:
            return None
        child = _children(trie, np.concatenate(inside))
        leaving = child[~loop[trie.node_class[child]]]
        starts = trie.token_start[region].astype(np.int64)
        counts = trie.token_end[region].astype(np.int64) - starts
        flags = np.zeros(self._flag_count, dtype=np.uint8)
        flags[trie.sorted_tokens[_runs(starts, counts)]] = 1
        return Exits(flags, leaving, trie.node_class[leaving].astype(np.int64))


def _narrow_region(trie: TrieArrays, frontier: list[int], loop: list[bool]) -> np.ndarray:
    """The region below a narrow frontier (its nodes excluded), depth first in Python ints:
    the deep levels are runs like ``----`` of a few nodes each, where a numpy level costs
    ~150 us and a node here ~1 us."""
    node_class, child_offsets, children = (trie.py[name] for name in ("node_class", "child_offsets", "children"))
    found: list[int] = []
    stack = list(frontier)
    while stack:
        node = stack.pop()
        for k in range(child_offsets[node], child_offsets[node + 1]):
            child = children[k]
            if loop[node_class[child]]:
                found.append(child)
                stack.append(child)
    return np.array(found, dtype=np.int64)


def _children(trie: TrieArrays, nodes: np.ndarray) -> np.ndarray:
    first = trie.child_offsets[nodes].astype(np.int64)
    return trie.children[_runs(first, trie.child_offsets[nodes + 1].astype(np.int64) - first)].astype(np.int64)


def _runs(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Every position of the runs ``[starts[i], starts[i] + counts[i])``, run after run."""
    total = int(counts.sum())
    run_first = np.cumsum(counts) - counts
    return np.repeat(starts - run_first, counts) + np.arange(total)

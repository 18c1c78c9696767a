"""Loop exits: where the live walk starts for a configuration that loops on most bytes.

A configuration ``C`` inside a wide lexeme (a JSON string body, a comment) goes back to itself
on a set ``L`` of byte classes.  Every trie node whose path is made of ``L`` only keeps ``C``
alive, so all the tokens ending there are allowed, and the only tokens left to find are below
the *exits*: the children of the root and of those nodes by a class outside ``L``, from which
the walk goes on in configuration ``C``.  The region depends on ``L`` alone, so it is found
once per index and kept (its tokens as flags, its exits as arrays): every node off the loop
excludes its subtree, an id range in the trie's depth-first numbering, so the region is one
difference array over the nodes (and one over the tokens): ~7-15 ms a region for Llama-3 (a
breadth-first search took ~20 ms; same regions and exits, checked on random loop sets).  The walk then starts at the exits
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
    nodes: np.ndarray  # int64: the exit nodes, ascending (depth-first order)
    classes: np.ndarray  # int64: their byte classes
    in_region: np.ndarray  # bool (trie nodes,): the node's whole path is made of loop classes
    region_tokens: np.ndarray  # bool (trie tokens,): in the trie's token order, the token ends in the region


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
        """The region as "no node off the loop on the path".

        Every node off the loop excludes its subtree: in the trie's depth-first numbering an id
        range ``[b, end)``, where ``end`` is the first node whose token run starts at or after
        the end of b's (every subtree holds a token and runs start in node order, so one
        ``searchsorted`` finds it), and likewise a range of the token order.  One difference
        array over the nodes counts how many such ranges cover each node: the region is the
        nodes covered by none, the exits are the nodes off the loop covered only by their own.
        """
        trie = self._trie
        if int(np.count_nonzero(loop[trie.node_class])) < MIN_REGION_NODES:  # the region holds only such nodes
            return None
        off = ~loop[trie.node_class]
        off[0] = False  # the root has no edge
        bad = np.flatnonzero(off)
        token_start = trie.token_start
        subtree_token_end = trie.subtree_token_end[bad]
        end = np.searchsorted(token_start, subtree_token_end, side="left")
        cover = _coverage(bad, end, off.size)
        cover[0] = 1  # not in the region
        if int((cover == 0).sum()) < MIN_REGION_NODES:
            return None
        leaving = bad[cover[bad] == 1]
        token_cover = _coverage(token_start[bad].astype(np.int64), subtree_token_end.astype(np.int64),
                                trie.sorted_tokens.size)
        region_tokens = token_cover == 0
        flags = np.zeros(self._flag_count, dtype=np.uint8)
        flags[trie.sorted_tokens[region_tokens]] = 1
        return Exits(flags, leaving, trie.node_class[leaving].astype(np.int64), cover == 0, region_tokens)


def _coverage(starts: np.ndarray, ends: np.ndarray, size: int) -> np.ndarray:
    """int64 (size,): how many of the ranges ``[starts[i], ends[i])`` hold each position."""
    depth = np.bincount(starts, minlength=size + 1)[: size + 1] - np.bincount(ends, minlength=size + 1)[: size + 1]
    return np.cumsum(depth[:size])

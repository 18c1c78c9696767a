"""From hit sets to token flags: the last step before a mask is a list of ids.

A hit set names class-trie nodes and byte-trie nodes (``traverse``); each node ends a run of
tokens.  Two ways to turn nodes into a flag per token id, chosen by how many tokens the class
nodes hold (``mark_union``; a long mask always gathers):

- *scatter* the tokens of each node (``expand_runs`` over the CSR runs, then one fancy
  assignment): cost ~ the mask's size, best for small masks;
- *gather* through a precomputed owner array (``owner[t]`` = the class node token t ends at):
  flag the hit nodes, then ``node_flag[owner]`` over the whole vocabulary: a fixed ~0.15 ms
  for 128k ids, which beats the scatter from ~8k tokens up (a dense 100k-token mask: 0.75 ms
  -> 0.2 ms; the old per-mask ``mark``, 18 such masks in JME_41: 1.7 -> 0.5 ms a mask).

A long mask (more than ``compute.SMALL_MASK_TOKENS`` ids) is flagged from its nodes' present
flags, which ``compute.SharedHits`` derives from a similar mask's node counts: the 25 median
MaskBench schemas' ~18 long masks each, node gathering and flagging ~15.8 -> ~11.3 ms a schema
(process time, in process, 2nd pass).  Session 9: ``SharedHits`` keeps each count's token flags
too, and a mask that starts from a kept count flips only the tokens of the class nodes whose
presence changed (``set_class_nodes``) instead of a vocabulary-sized gather
(``class_node_flags``) and a pass over every node.

Byte-trie hits (paths through a muted literal) are few and always scattered.  The short masks
(at most ``compute.SMALL_MASK_TOKENS`` ids) are listed many at a time instead (``tagged_tokens``:
each token tagged with its mask, so that one sort orders a whole batch of masks).
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from indexc.arrays import expand_runs, run_positions
from indexc.masks.traverse import WalkPlan

GATHER_FROM_TOKENS = 8_192  # class-node tokens in a hit set above which the gather is cheaper


class HitExpander:
    """Marks the tokens of hit sets in a flag row of the vocabulary's size, or lists them."""

    def __init__(self, plan: WalkPlan, vocab_size: int):
        self.plan = plan
        self._vocab_size = vocab_size
        self._counts = np.diff(plan.class_trie.token_offsets)

    @cached_property
    def _owner(self) -> np.ndarray:
        """The class node each token id ends at (``n_nodes``: none); built on first use (one
        vocabulary-sized pass, which a small compile never needs).  ``intp``, since numpy
        converts any other index array to it on every gather (Llama-3: 0.45 -> 0.15 ms a mask)."""
        ct = self.plan.class_trie
        owner = np.full(self._vocab_size, ct.n_nodes, dtype=np.intp)
        owner[ct.tokens] = np.repeat(np.arange(ct.n_nodes, dtype=np.intp), self._counts)
        return owner

    def class_nodes_of(self, tokens: np.ndarray) -> np.ndarray:
        """The class-trie node each token ends at (``n_nodes`` for a token the trie dropped).

        When the class trie holds few tokens (a float regex: ~1,400 of 128k), they are looked
        up in its own token list, sorted, instead of a vocabulary-sized owner table (~0.3 ms)."""
        ct = self.plan.class_trie
        if "_owner" in self.__dict__ or ct.tokens.size > GATHER_FROM_TOKENS:  # built already, or worth building
            return self._owner[tokens].astype(np.int32)
        nodes = np.full(tokens.size, ct.n_nodes, dtype=np.int32)
        if ct.tokens.size:
            order = np.argsort(ct.tokens, kind="stable")
            ordered = ct.tokens[order]
            found = np.minimum(np.searchsorted(ordered, tokens), ordered.size - 1)
            hit = ordered[found] == tokens
            nodes[hit] = np.repeat(np.arange(ct.n_nodes, dtype=np.int32), self._counts)[order][found[hit]]
        return nodes

    def class_node_flags(self, present: np.ndarray) -> np.ndarray:
        """A new flag row of the tokens of the class nodes flagged in ``present`` (a bool per class
        node, then the unused owner of no token; more entries are ignored), by the gather: it
        serves long masks only."""
        n_nodes = self.plan.class_trie.n_nodes
        return present[:n_nodes + 1][self._owner]

    def set_class_nodes(self, flags: np.ndarray, nodes: np.ndarray, value: bool) -> None:
        """``flags[t] = value`` for every token t ending at a class node of ``nodes``: each token
        ends at one class node, so a row kept for one set of nodes follows another exactly."""
        if nodes.size:
            flags[tokens_of_class_nodes(self.plan, nodes)] = value

    def mark_byte_nodes(self, flags: np.ndarray, nodes: np.ndarray) -> None:
        """Set ``flags[t]`` for every token t of the byte-trie nodes ``nodes`` (few: scattered)."""
        if nodes.size:
            flags[tokens_of_byte_nodes(self.plan, nodes)] = True

    def mark_union(self, hits: np.ndarray, flags: np.ndarray, *, piece: int = 1 << 22) -> None:
        """Set ``flags[t]`` for every token t of a huge concatenation of hit sets (repeats
        allowed; class nodes >= 0, byte nodes < 0): nodes are flagged a piece at a time, then
        tokens by one gather (or, for few tokens, one scatter), so no temporary grows with ``hits``."""
        class_seen = np.zeros(self.plan.class_trie.n_nodes + 1, dtype=bool)
        byte_seen = np.zeros(self.plan.byte_trie.n_nodes, dtype=bool)
        for lo in range(0, hits.size, piece):
            part = hits[lo:lo + piece]
            on_class = part >= 0
            class_seen[part[on_class]] = True
            byte_seen[-1 - part[~on_class].astype(np.int64)] = True
        seen = np.flatnonzero(class_seen[:-1])
        if int(self._counts[seen].sum()) > GATHER_FROM_TOKENS:
            flags |= class_seen[self._owner]
        else:  # few tokens (a float regex: ~1,400): no vocabulary-sized owner table (~0.4 ms) for them
            flags[tokens_of_class_nodes(self.plan, seen)] = True
        flags[tokens_of_byte_nodes(self.plan, np.flatnonzero(byte_seen))] = True

    def tagged_tokens(self, place: np.ndarray, hits: np.ndarray) -> np.ndarray:
        """``place * vocab_size + token`` for every token of the nodes ``hits`` (``place``: an
        int64 per hit, the mask it is for): the tokens of many short masks in one go, ready
        for one sort."""
        ct, trie = self.plan.class_trie, self.plan.byte_trie
        on_class = hits >= 0
        class_nodes = hits[on_class]
        starts = ct.token_offsets[class_nodes]
        owner, positions = expand_runs(starts, ct.token_offsets[class_nodes + 1] - starts)
        tagged = [place[on_class][owner] * self._vocab_size + ct.tokens[positions]]
        if not on_class.all():
            byte_nodes = -1 - hits[~on_class]
            starts = trie.token_start[byte_nodes].astype(np.int64)
            owner, positions = expand_runs(starts, trie.token_end[byte_nodes].astype(np.int64) - starts)
            tagged.append(place[~on_class][owner] * self._vocab_size + trie.sorted_tokens[positions])
        return np.concatenate(tagged)

    def tokens_at(self, hits: np.ndarray) -> np.ndarray:
        """int64 per hit (class node >= 0, byte node < 0): how many tokens end there; summed per
        hit set, its mask's size, eos aside (for ``--max-memory``)."""
        per_hit = self._counts[np.maximum(hits, 0)]
        on_bytes = np.flatnonzero(hits < 0)
        if on_bytes.size:
            trie = self.plan.byte_trie
            nodes = -1 - hits[on_bytes].astype(np.int64)
            per_hit[on_bytes] = trie.token_end[nodes].astype(np.int64) - trie.token_start[nodes]
        return per_hit


def tokens_of_class_nodes(plan: WalkPlan, nodes: np.ndarray) -> np.ndarray:
    ct = plan.class_trie
    starts = ct.token_offsets[nodes]
    return ct.tokens[run_positions(starts, ct.token_offsets[nodes + 1] - starts)]


def tokens_of_byte_nodes(plan: WalkPlan, nodes: np.ndarray) -> np.ndarray:
    trie = plan.byte_trie
    starts = trie.token_start[nodes].astype(np.int64)
    return trie.sorted_tokens[run_positions(starts, trie.token_end[nodes].astype(np.int64) - starts)]

"""From hit sets to token flags: the last step before a mask is a list of ids.

A hit set names class-trie nodes and byte-trie nodes (``traverse``); each node ends a run of
tokens.  Two ways to turn it into a flag per token id, chosen per mask by how many tokens the
class nodes hold:

- *scatter* the tokens of each node (``expand_runs`` over the CSR runs, then one fancy
  assignment): cost ~ the mask's size, best for small masks;
- *gather* through a precomputed owner array (``owner[t]`` = the class node token t ends at):
  flag the hit nodes, then ``node_flag[owner]`` over the whole vocabulary: a fixed ~0.15 ms
  for 128k ids, which beats the scatter from ~8k tokens up (a dense 100k-token mask: 0.75 ms
  -> 0.2 ms).

Byte-trie hits (paths through a muted literal) are few and always scattered.
"""

from __future__ import annotations

import numpy as np

from indexc.arrays import expand_runs
from indexc.masks.traverse import WalkPlan

GATHER_FROM_TOKENS = 8_192  # class-node tokens in a hit set above which the gather is cheaper


class HitExpander:
    """Marks the tokens of hit sets in a flag row of the vocabulary's size."""

    def __init__(self, plan: WalkPlan, vocab_size: int):
        self.plan = plan
        ct = plan.class_trie
        self._counts = np.diff(ct.token_offsets)
        self._owner = np.full(vocab_size, ct.n_nodes, dtype=np.int32)  # sentinel: no class node
        self._owner[ct.tokens] = np.repeat(np.arange(ct.n_nodes, dtype=np.int32), self._counts)
        self._node_flags = np.zeros(ct.n_nodes + 1, dtype=bool)

    def class_nodes_of(self, tokens: np.ndarray) -> np.ndarray:
        """The class-trie node each token ends at (``n_nodes`` for a token the trie dropped)."""
        return self._owner[tokens]

    def mark(self, hits: np.ndarray, flags: np.ndarray) -> None:
        """Set ``flags[t]`` for every token t of the hit set (class nodes >= 0, byte nodes < 0)."""
        class_nodes = hits[hits >= 0]
        if int(self._counts[class_nodes].sum()) > GATHER_FROM_TOKENS:
            self._node_flags[class_nodes] = True
            flags |= self._node_flags[self._owner]
            self._node_flags[class_nodes] = False
        else:
            flags[tokens_of_class_nodes(self.plan, class_nodes)] = True
        flags[tokens_of_byte_nodes(self.plan, -1 - hits[hits < 0])] = True


    def token_bounds(self, hit_sets: list[np.ndarray]) -> np.ndarray:
        """Per hit set, how many tokens its nodes end: its mask's size, eos aside (for ``--max-memory``)."""
        if not hit_sets:
            return np.zeros(0, np.int64)
        hits = np.concatenate(hit_sets)
        trie = self.plan.byte_trie
        byte_counts = trie.token_end.astype(np.int64) - trie.token_start
        per_hit = np.where(hits >= 0, self._counts[np.maximum(hits, 0)], byte_counts[np.maximum(-1 - hits, 0)])
        owner = np.repeat(np.arange(len(hit_sets)), [h.size for h in hit_sets])
        return np.bincount(owner, weights=per_hit, minlength=len(hit_sets)).astype(np.int64)


def tokens_of_class_nodes(plan: WalkPlan, nodes: np.ndarray) -> np.ndarray:
    ct = plan.class_trie
    starts = ct.token_offsets[nodes]
    _, positions = expand_runs(starts, ct.token_offsets[nodes + 1] - starts)
    return ct.tokens[positions]


def tokens_of_byte_nodes(plan: WalkPlan, nodes: np.ndarray) -> np.ndarray:
    trie = plan.byte_trie
    starts = trie.token_start[nodes].astype(np.int64)
    _, positions = expand_runs(starts, trie.token_end[nodes].astype(np.int64) - starts)
    return trie.sorted_tokens[positions]

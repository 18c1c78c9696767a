"""``TokenTrie``: the vocabulary's text tokens as one flat, DFS-ordered trie of numpy arrays.

Node p stands for a byte string (its *prefix*): the bytes on the path from the root.  Nodes are
numbered in depth-first pre-order with children in byte order, which is the lexicographic
order of the prefixes, so

- the subtree of p is the id range ``[p, p + subtree_size[p])``: skipping a dead prefix is one
  addition (seed 000), and marking every node under a set of roots is a difference array;
- the tokens of that subtree are one contiguous run of ``sorted_tokens`` (tokens sorted by
  bytes, then id): ``sorted_tokens[token_start[p]:subtree_token_end[p]]``.

Per node (n = ``n_nodes``): ``byte`` (the edge into the node, 0 at the root), ``depth``,
``parent``, ``subtree_size``, ``num_parents`` (seed 000: how many stack entries to pop, after
p's subtree, to reach the parent of the next node), ``token_id`` (the smallest id ending
exactly here, or -1: "bogus"), ``token_start``/``token_end``/``subtree_token_end`` (runs of
``sorted_tokens``).  For level-by-level walks: ``level_nodes``/``level_offsets`` (ids grouped
by depth) and the CSR ``child_offsets``/``children`` (each node's children in byte order).

Only text tokens (NORMAL, BYTE, USER) with non-empty bytes are in the trie: special tokens and
holes never produce text, and an empty token would be allowed everywhere without moving the
automaton.  Several ids with the same bytes end at one node (Mistral has such duplicates).

Memory for Llama-3 (274,521 nodes, 128,000 tokens): 12.9 MB for all arrays, of which the seed
000 walk reads 9 bytes per node (``byte``, ``subtree_size``, ``num_parents``) as three
parallel arrays rather than llguidance's packed 8-byte node; see docs/token-trie.md.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

NO_TOKEN = -1  # token_id of a node where no token ends (seed 000's "bogus" id)


@dataclass(frozen=True)
class TokenTrie:
    """Flat token trie; node 0 is the root (empty prefix).  All arrays are int32 except ``byte``."""

    byte: np.ndarray  # uint8 (n,)
    depth: np.ndarray  # (n,)
    parent: np.ndarray  # (n,), root -1
    subtree_size: np.ndarray  # (n,), includes the node
    num_parents: np.ndarray  # (n,)
    token_id: np.ndarray  # (n,), smallest id ending here or NO_TOKEN
    sorted_tokens: np.ndarray  # (m,) text token ids ordered by (bytes, id)
    token_start: np.ndarray  # (n,)
    token_end: np.ndarray  # (n,)
    subtree_token_end: np.ndarray  # (n,)
    child_offsets: np.ndarray  # (n + 1,)
    children: np.ndarray  # (n - 1,)
    level_offsets: np.ndarray  # (max_depth + 2,)
    level_nodes: np.ndarray  # (n,) ids sorted by (depth, id)
    max_depth: int

    @property
    def n_nodes(self) -> int:
        return int(self.byte.shape[0])

    @property
    def n_tokens(self) -> int:
        """How many token ids are in the trie (every text token with non-empty bytes)."""
        return int(self.sorted_tokens.shape[0])

    @property
    def nbytes(self) -> int:
        """Bytes held by all arrays."""
        return sum(getattr(self, f.name).nbytes for f in fields(self) if isinstance(getattr(self, f.name), np.ndarray))

    def tokens_at(self, node: int) -> np.ndarray:
        """Ids whose bytes are exactly the prefix of ``node``, ascending."""
        return self.sorted_tokens[self.token_start[node] : self.token_end[node]]

    def tokens_in_subtree(self, node: int) -> np.ndarray:
        """Ids whose bytes start with the prefix of ``node``, in (bytes, id) order."""
        return self.sorted_tokens[self.token_start[node] : self.subtree_token_end[node]]

    def children_of(self, node: int) -> np.ndarray:
        """Child node ids of ``node``, in byte order."""
        return self.children[self.child_offsets[node] : self.child_offsets[node + 1]]

    def child(self, node: int, byte: int) -> int:
        """The child of ``node`` along ``byte``, or -1."""
        kids = self.children_of(node)
        i = int(np.searchsorted(self.byte[kids], byte))
        return int(kids[i]) if i < kids.size and self.byte[kids[i]] == byte else -1

    def node_of(self, prefix: bytes) -> int:
        """The node whose prefix is ``prefix``, or -1 if no token starts with it."""
        node = 0
        for b in prefix:
            node = self.child(node, b)
            if node < 0:
                return -1
        return node

    def prefix_of(self, node: int) -> bytes:
        """The bytes on the path from the root to ``node``."""
        path = bytearray()
        while node > 0:
            path.append(int(self.byte[node]))
            node = int(self.parent[node])
        return bytes(reversed(path))

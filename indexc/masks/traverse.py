"""Prefix-graph traversal: which tokens each DFA state allows, by a level-by-level frontier.

The frontier is a set of triples (origin state, current state, trie node): "from ``origin``,
the prefix of ``node`` leads to ``current``".  One level of the walk expands every triple to
the node's children in a handful of vectorised numpy operations (``expand_runs`` for the
child ranges, one gather in the transition table) and drops a triple as soon as its current
state dies, which prunes the whole subtree below it (seed 000's pruning, done for all
states at once).  A triple whose node ends tokens is a *hit*: those tokens are allowed from
``origin``.

Two frontiers run side by side.  *Class mode* walks the class trie (tokens with the same
class sequence walked once); *byte mode* walks the byte trie with the exact byte table, for
the paths that entered a muted literal state (see ``literals``): a class-mode triple that
reaches a muted state is expanded into the byte nodes its class node merges and continues in
byte mode; an origin that is itself muted starts in byte mode.

The walk's answer is, per origin, its *hit set*: the class nodes and byte nodes it reaches
that end tokens.  Each token ends at exactly one node of either kind along one path, so two
states have the same mask iff they have the same hit set (and accepting flag): masks are
deduplicated on these small sets before a single token id is expanded.  The cost is the
number of live triples, so it grows with the size of the masks counted in class sequences,
not with states x vocabulary.  The loop runs once per trie level (most work is in the first
8 levels).  Origins are walked in chunks so the frontier stays bounded however dense the
masks are; chunks are independent, which is what the parallel driver splits.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from indexc import limits as compile_limits
from indexc.masks.class_trie import ClassTrie
from indexc.arrays import expand_runs
from indexc.trie import TokenTrie


@dataclass(frozen=True)
class WalkPlan:
    """Everything the frontier reads: both tries, both transition tables, the muted states."""

    class_trie: ClassTrie
    class_transitions: np.ndarray  # int32 (n_states, n_walk_classes); rows of muted states unused
    byte_trie: TokenTrie
    byte_transitions: np.ndarray  # int32 (n_states, 256), exact
    muted: np.ndarray  # bool (n_states,)
    slice_of_state: np.ndarray  # int64 (n_states,): the state's slice id or -1 (see ``slices``)


@dataclass
class Frontier:
    """Parallel arrays of triples; ``in_slice``: the path has looped at its origin all along."""

    origin: np.ndarray
    current: np.ndarray
    node: np.ndarray
    in_slice: np.ndarray

    @classmethod
    def start(cls, origins: np.ndarray, in_slice: np.ndarray) -> "Frontier":
        return cls(origins, origins.copy(), np.zeros(origins.size, np.int64), in_slice)

    def __len__(self) -> int:
        return int(self.node.size)

    def take(self, keep: np.ndarray) -> "Frontier":
        return Frontier(self.origin[keep], self.current[keep], self.node[keep], self.in_slice[keep])


@dataclass
class Hits:
    """(origin, node) pairs, for class nodes and byte nodes separately."""

    class_origin: list
    class_node: list
    byte_origin: list
    byte_node: list


def walk_hits(plan: WalkPlan, origins: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every (origin, class node) and (origin, byte node) hit of the origins."""
    origins = origins.astype(np.int64)
    starts_muted = plan.muted[origins]
    has_slice = plan.slice_of_state[origins] >= 0
    classes = Frontier.start(origins[~starts_muted], has_slice[~starts_muted])
    bytes_ = Frontier.start(origins[starts_muted], np.zeros(int(starts_muted.sum()), bool))
    hits = Hits([], [], [], [])
    ct = plan.class_trie
    class_has_tokens = np.diff(ct.token_offsets) > 0
    byte_has_tokens = plan.byte_trie.token_end > plan.byte_trie.token_start
    while len(classes) or len(bytes_):
        compile_limits.check_time("the walk")  # in this process (workers: see compute)
        classes = _step(classes, ct.child_offsets, ct.node_class, plan.class_transitions)
        entering = plan.muted[classes.current]
        if entering.any():
            bytes_ = _concat(bytes_, _to_byte_mode(classes.take(entering), ct))
            _record(hits.class_origin, hits.class_node, classes.take(entering), class_has_tokens)
            classes = classes.take(~entering)
        _record(hits.class_origin, hits.class_node, classes, class_has_tokens)
        stepped = _step(bytes_, plan.byte_trie.child_offsets, None, plan.byte_transitions, plan.byte_trie)
        _record(hits.byte_origin, hits.byte_node, stepped, byte_has_tokens)
        bytes_ = stepped
    return (_cat(hits.class_origin), _cat(hits.class_node), _cat(hits.byte_origin), _cat(hits.byte_node))


def _step(frontier: Frontier, child_offsets: np.ndarray, edge_symbol: np.ndarray | None,
          transitions: np.ndarray, byte_trie: TokenTrie | None = None) -> Frontier:
    """One level: every child of every node, kept where the transition stays alive."""
    if not len(frontier):
        return frontier
    first = child_offsets[frontier.node]
    parent, position = expand_runs(first, child_offsets[frontier.node + 1] - first)
    if byte_trie is None:  # class trie: children are numbered contiguously
        child = position
        symbol = edge_symbol[child]
    else:
        child = byte_trie.children[position].astype(np.int64)
        symbol = byte_trie.byte[child]
    width = transitions.shape[1]
    nxt = transitions.reshape(-1)[frontier.current[parent] * width + symbol].astype(np.int64)
    alive = nxt >= 0
    parent, nxt = parent[alive], nxt[alive]
    origin = frontier.origin[parent]
    return Frontier(origin, nxt, child[alive], frontier.in_slice[parent] & (nxt == origin))


def _to_byte_mode(frontier: Frontier, class_trie: ClassTrie) -> Frontier:
    """Replace each class node by the byte nodes it merges (all reach the same state)."""
    first = class_trie.byte_node_offsets[frontier.node]
    which, position = expand_runs(first, class_trie.byte_node_offsets[frontier.node + 1] - first)
    return Frontier(frontier.origin[which], frontier.current[which], class_trie.byte_nodes[position],
                    np.zeros(which.size, dtype=bool))


def _record(origins: list, nodes: list, frontier: Frontier, has_tokens: np.ndarray) -> None:
    """Hits of the frontier, except those inside their origin's slice (the slice holds them)."""
    ends = has_tokens[frontier.node] & ~frontier.in_slice
    origins.append(frontier.origin[ends])
    nodes.append(frontier.node[ends])


def _concat(a: Frontier, b: Frontier) -> Frontier:
    return Frontier(*(np.concatenate([x, y]) for x, y in
                      ((a.origin, b.origin), (a.current, b.current), (a.node, b.node), (a.in_slice, b.in_slice))))


def _cat(parts: list) -> np.ndarray:
    return np.concatenate(parts) if parts else np.zeros(0, np.int64)


def hit_sets_by_origin(plan: WalkPlan, origins: np.ndarray) -> list[np.ndarray]:
    """For each origin (ascending), its sorted hit set: class nodes as themselves (>= 0), byte
    nodes as ``-1 - node`` (< 0)."""
    class_origin, class_node, byte_origin, byte_node = walk_hits(plan, origins)
    origin = np.concatenate([class_origin, byte_origin])
    node = np.concatenate([class_node, -1 - byte_node])
    order = np.lexsort((node, origin))
    origin, node = origin[order], node[order]
    lo = np.searchsorted(origin, origins, side="left")
    hi = np.searchsorted(origin, origins, side="right")
    return [node[a:b] for a, b in zip(lo.tolist(), hi.tolist())]

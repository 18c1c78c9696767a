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
deduplicated on these sets (by the contents of each state's starts, see ``masks.dedupe``)
before a single token id is expanded.  The cost is the
number of live triples, so it grows with the size of the masks counted in class sequences,
not with states x vocabulary.  The loop runs once per trie level (most work is in the first
8 levels, but a chunk runs ~133 levels on Llama-3, its runs of spaces and dashes).  Starts are
walked in chunks of up to 8,192 (``compute``), and a chunk whose next level would outgrow its
budget of triples is walked again as two halves (``FrontierOverflow``), so the frontier stays
bounded however dense the masks are.  Chunks used to be cut by the starts' subtree sizes, a
bound ~250x the frontiers actually met (2.8k-16k triples against 4M on median MaskBench
schemas), so each schema walked 3-6 chunks of ~133 levels; 4,096-start chunks cut the walk
~18% (median25, process time: 2.24/1.89 -> 1.77/1.56 s summed); 8,192 (session 9: ~4,800
starts a median schema, most then walked as one chunk, not two) 65.6 -> 60.4 ms a schema
(walk stage, the same plans alternately, min of 3; 16,384, on uint64 keys: 61.8).  Chunks are
independent, which is what the parallel driver splits.

A triple whose state loops on most classes (a string body) does not walk the loop's part of its
subtree: ``loop_jumps`` lists its hits there and its exits from two range lookups, and the
exits join the frontier (``_jump_loops``).

A walk need not start at the root: ``walk_hits`` takes *starts* (state, node, mode), and
``first_step`` uses that to walk each distinct first step once for all the origins that take
it.  ``origin`` in a frontier is then the start's index, and ``home`` the state whose
self-loop a slice path must stay on.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from indexc import limits as compile_limits
from indexc.arrays import expand_runs, set_hashes, sorted_unique
from indexc.masks.class_trie import ClassTrie
from indexc.masks.loop_jumps import LoopJumps, jump
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
    jumps: LoopJumps | None = None  # wide self-loops jumped over mid-walk (``loop_jumps``)
    class_of_byte: np.ndarray | None = None  # uint8 (256,): the walk class of each byte (``first_step``)


@dataclass
class Frontier:
    """Parallel arrays of triples; ``in_slice``: the path has looped at ``home`` all along.

    ``in_slice`` and ``home`` are None when no triple is in a slice (no start was, and a path
    never enters a slice below its start): with slices off (the default) the walk then carries
    three arrays, not five (o44020's walk: ~10% less time).
    """

    origin: np.ndarray
    current: np.ndarray
    node: np.ndarray
    in_slice: np.ndarray | None
    home: np.ndarray | None

    def __len__(self) -> int:
        return int(self.node.size)

    def take(self, keep: np.ndarray) -> "Frontier":
        if self.in_slice is None:
            return Frontier(self.origin[keep], self.current[keep], self.node[keep], None, None)
        return Frontier(self.origin[keep], self.current[keep], self.node[keep], self.in_slice[keep], self.home[keep])

    def slice_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """(in_slice, home) as arrays, all False and -1 when the frontier has none."""
        if self.in_slice is None:
            return np.zeros(self.node.size, dtype=bool), np.full(self.node.size, -1, dtype=np.int64)
        return self.in_slice, self.home


@dataclass(frozen=True)
class Starts:
    """Where walks begin: per start a state, a node, the trie it is on, and the slice flag.

    A start of an origin state is (the state, node 0 of the class trie, or of the byte trie
    for a muted state); ``first_step`` adds starts one level down, shared between origins.
    """

    state: np.ndarray  # int64
    node: np.ndarray  # int64: a class-trie node, or a byte-trie node where ``on_bytes``
    on_bytes: np.ndarray  # bool
    in_slice: np.ndarray  # bool: the start is inside its state's slice (the path looped there)

    @classmethod
    def at_root(cls, plan: "WalkPlan", origins: np.ndarray) -> "Starts":
        origins = origins.astype(np.int64)
        muted = plan.muted[origins]
        return cls(origins, np.zeros(origins.size, np.int64), muted, (plan.slice_of_state[origins] >= 0) & ~muted)

    def __len__(self) -> int:
        return int(self.state.size)

    def frontier(self, ids: np.ndarray, on_bytes: bool) -> Frontier:
        """The triples of the starts ``ids`` on one trie (``origin`` = position in ``ids``' order)."""
        pick = self.on_bytes[ids] == on_bytes
        positions = np.flatnonzero(pick)
        chosen = ids[pick]
        in_slice = self.in_slice[chosen]
        if not in_slice.any():
            return Frontier(positions, self.state[chosen], self.node[chosen], None, None)
        return Frontier(positions, self.state[chosen], self.node[chosen], in_slice, self.state[chosen])


class Hits:
    """A walk's (start, node) hits, each packed into one sort key as it is found: the start in
    the high bits, the node in the low ones (a class node as itself, a byte node as
    ``-1 - node``, shifted by ``lowest`` to be non-negative).

    A uint32 key whenever both fit in 32 bits (a chunk of up to 2**13 starts on Llama-3's two
    tries), which numpy's AVX-512 sort orders ~2.5x as fast as int64; the node is then a mask,
    not a division.  ``np.lexsort`` had taken ~3x as long as one int64 key sort (Github_easy
    o44020: 2.0M hits, 102 -> 40 ms).  Packing each level's hits as they come spares the four
    concatenations of (start, node) columns and two ``bincount`` s of the starts a chunk made.
    """

    def __init__(self, n_starts: int, lowest: int, end: int):
        self.node_bits = max(end - lowest - 1, 1).bit_length()
        self.key_type = np.uint32 if self.node_bits + max(n_starts - 1, 1).bit_length() <= 32 else np.uint64
        self.n_starts, self.lowest = n_starts, lowest
        self._keys: list[np.ndarray] = []

    def add(self, starts: np.ndarray, nodes: np.ndarray) -> None:
        """Hits of ``starts[i]`` at ``nodes[i]`` (class nodes >= 0, byte nodes as ``-1 - node``)."""
        key = starts.astype(self.key_type)
        key <<= self.key_type(self.node_bits)
        key |= (nodes - self.lowest).astype(self.key_type)
        self._keys.append(key)

    def sorted_sets(self) -> tuple[np.ndarray, np.ndarray]:
        """The hit sets as CSR: (int64 offsets per start, int32 nodes ordered by (start, node))."""
        key = np.concatenate(self._keys) if self._keys else np.zeros(0, self.key_type)
        key.sort()
        offsets = np.searchsorted(key >> self.key_type(self.node_bits), np.arange(self.n_starts + 1))
        key &= self.key_type((1 << self.node_bits) - 1)
        nodes = key.astype(np.int32)
        if self.lowest:
            nodes += np.int32(self.lowest)
        return offsets.astype(np.int64), nodes


class FrontierOverflow(Exception):
    """A level of a chunk's walk would hold more triples than its budget (``hit_sets_of_starts``
    then walks the chunk again in halves)."""


def walk_hits(plan: WalkPlan, starts: Starts, ids: np.ndarray, most_triples: int | None = None) -> Hits:
    """Every (start, class node) and (start, byte node) hit of the starts ``ids`` (a start is
    named by its position in ``ids``); ``FrontierOverflow`` before a level outgrows ``most_triples``."""
    classes = starts.frontier(ids, on_bytes=False)
    bytes_ = starts.frontier(ids, on_bytes=True)
    ct = plan.class_trie
    on_bytes = bool(plan.muted.any())  # only a muted state leads to the byte trie
    hits = Hits(ids.size, -plan.byte_trie.n_nodes if on_bytes else 0, ct.n_nodes)
    class_has_tokens = ct.ends_tokens
    byte_has_tokens = plan.byte_trie.token_end > plan.byte_trie.token_start if on_bytes else None
    classes, bytes_ = _settle(plan, classes, bytes_, hits, class_has_tokens)  # a start may be on a muted state
    classes, bytes_ = _jump_loops(plan, classes, bytes_, hits, class_has_tokens)
    while len(classes) or len(bytes_):
        if most_triples is not None and len(classes) + len(bytes_) > most_triples:  # with exits, byte nodes
            raise FrontierOverflow
        compile_limits.check_time("the walk")  # in this process (workers: see compute)
        classes = _step(classes, ct.child_offsets, ct.node_class, plan.class_transitions, most=most_triples)
        classes, bytes_ = _settle(plan, classes, bytes_, hits, class_has_tokens)
        classes, bytes_ = _jump_loops(plan, classes, bytes_, hits, class_has_tokens)
        stepped = _step(bytes_, plan.byte_trie.child_offsets, None, plan.byte_transitions, plan.byte_trie,
                        most=most_triples)
        if len(stepped):
            _record(hits, stepped, byte_has_tokens, byte_nodes=True)
        bytes_ = stepped
    return hits


def _settle(plan: WalkPlan, classes: Frontier, bytes_: Frontier, hits: Hits,
            class_has_tokens: np.ndarray) -> tuple[Frontier, Frontier]:
    """Record the class frontier's hits; move the triples that reached a muted state to the byte trie."""
    entering = plan.muted[classes.current]
    if entering.any():
        bytes_ = _concat(bytes_, _to_byte_mode(classes.take(entering), plan.class_trie))
        _record(hits, classes.take(entering), class_has_tokens)
        classes = classes.take(~entering)
    _record(hits, classes, class_has_tokens)
    return classes, bytes_


def _jump_loops(plan: WalkPlan, classes: Frontier, bytes_: Frontier, hits: Hits,
                class_has_tokens: np.ndarray) -> tuple[Frontier, Frontier]:
    """Triples in a wide self-loop jump over its part of their subtree (``loop_jumps``): their
    hits below are recorded, their exits settled (and jumped again) at once, the rest of the
    class frontier is kept for the next level."""
    if plan.jumps is None or classes.in_slice is not None or not len(classes):
        return classes, bytes_
    kept = []
    while len(classes):
        table_of = plan.jumps.table_of_state[classes.current]
        jumping = table_of >= 0
        if not jumping.any():
            kept.append(classes)
            break
        kept.append(classes.take(~jumping))
        exits = []
        for table, pick in _by_table(table_of, jumping, len(plan.jumps.tables)):
            hit_origin, hit_node, exit_triples = jump(plan.jumps.tables[table], plan.class_trie, plan.class_transitions,
                                                      classes.origin[pick], classes.current[pick], classes.node[pick])
            hits.add(hit_origin, hit_node)
            exits.append(Frontier(*exit_triples, None, None))
        classes, bytes_ = _settle(plan, _concat_all(exits), bytes_, hits, class_has_tokens)
    return _concat_all(kept), bytes_


def _by_table(table_of: np.ndarray, jumping: np.ndarray, n_tables: int) -> list[tuple[int, np.ndarray]]:
    """(table, the triples jumping with it) per table in use; one table (the usual JSON Schema,
    its string bodies) needs no grouping."""
    if n_tables == 1:
        return [(0, jumping)]
    return [(table, table_of == table) for table in sorted_unique(table_of[jumping]).tolist()]


def _step(frontier: Frontier, child_offsets: np.ndarray, edge_symbol: np.ndarray | None,
          transitions: np.ndarray, byte_trie: TokenTrie | None = None, most: int | None = None) -> Frontier:
    """One level: every child of every node, kept where the transition stays alive (checked
    against ``most`` before the children are laid out)."""
    if not len(frontier):
        return frontier
    first = child_offsets[frontier.node]
    counts = child_offsets[frontier.node + 1] - first
    if most is not None and int(counts.sum()) > most:
        raise FrontierOverflow
    parent, position = expand_runs(first, counts)
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
    if frontier.in_slice is None:
        return Frontier(frontier.origin[parent], nxt, child[alive], None, None)
    home = frontier.home[parent]
    return Frontier(frontier.origin[parent], nxt, child[alive], frontier.in_slice[parent] & (nxt == home), home)


def _to_byte_mode(frontier: Frontier, class_trie: ClassTrie) -> Frontier:
    """Replace each class node by the byte nodes it merges (all reach the same state)."""
    first = class_trie.byte_node_offsets[frontier.node]
    which, position = expand_runs(first, class_trie.byte_node_offsets[frontier.node + 1] - first)
    if frontier.in_slice is None:
        return Frontier(frontier.origin[which], frontier.current[which], class_trie.byte_nodes[position], None, None)
    return Frontier(frontier.origin[which], frontier.current[which], class_trie.byte_nodes[position],
                    np.zeros(which.size, dtype=bool), frontier.home[which])


def _record(hits: Hits, frontier: Frontier, has_tokens: np.ndarray, byte_nodes: bool = False) -> None:
    """Hits of the frontier, except those inside their origin's slice (the slice holds them)."""
    ends = has_tokens[frontier.node]
    if frontier.in_slice is not None:
        ends &= ~frontier.in_slice
    hits.add(frontier.origin[ends], -1 - frontier.node[ends] if byte_nodes else frontier.node[ends])


def _concat(a: Frontier, b: Frontier) -> Frontier:
    joined = [np.concatenate([x, y]) for x, y in ((a.origin, b.origin), (a.current, b.current), (a.node, b.node))]
    if a.in_slice is None and b.in_slice is None:
        return Frontier(*joined, None, None)
    (a_in, a_home), (b_in, b_home) = a.slice_arrays(), b.slice_arrays()
    return Frontier(*joined, np.concatenate([a_in, b_in]), np.concatenate([a_home, b_home]))


def _concat_all(parts: list[Frontier]) -> Frontier:
    """Frontiers without slice arrays, joined."""
    if len(parts) == 1:
        return parts[0]
    return Frontier(*(np.concatenate([getattr(p, name) for p in parts]) for name in ("origin", "current", "node")),
                    None, None)


def hit_sets_of_starts(plan: WalkPlan, starts: Starts, ids: np.ndarray,
                      most_triples: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The sorted hit sets of the starts ``ids`` as CSR (offsets, nodes) plus one hash per set
    (``arrays.set_hashes``, computed here, in the worker, on the chunk): start ``ids[k]``'s
    set is ``nodes[offsets[k]:offsets[k + 1]]``, class nodes as themselves (>= 0), byte nodes
    as ``-1 - node`` (< 0), int32 (half the memory of the hit sets, the walk's largest output).

    A chunk whose frontier would outgrow ``most_triples`` is walked again as two halves (a
    single start is walked whatever its frontier: ``compute`` checked that one fits)."""
    try:
        hits = walk_hits(plan, starts, ids, most_triples if ids.size > 1 else None)
    except FrontierOverflow:
        half = ids.size // 2
        return _joined(hit_sets_of_starts(plan, starts, ids[:half], most_triples),
                       hit_sets_of_starts(plan, starts, ids[half:], most_triples))
    offsets, nodes = hits.sorted_sets()
    return offsets, nodes, set_hashes(offsets, nodes)


def _joined(first: tuple[np.ndarray, ...], second: tuple[np.ndarray, ...]) -> tuple[np.ndarray, ...]:
    """Two consecutive runs of starts' (offsets, nodes, hashes) as one."""
    return (np.concatenate([first[0], second[0][1:] + first[0][-1]]), np.concatenate([first[1], second[1]]),
            np.concatenate([first[2], second[2]]))

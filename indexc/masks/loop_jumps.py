"""Loop jumps: a walk that reaches a wide self-loop mid-token jumps over the loop's part of the subtree.

``loop_regions`` handles a state X that loops on a class set C when X is where a walk *starts*:
the trie's C-only region below the root is walked once per loop set.  Most of a JSON Schema's
walk, though, reaches such states one level or more *below* a start: a token that opens a string
(``"na``, ``":"``, ``{"``) goes on inside the string body, so each distinct (string-body
state, node) pair walked the whole C-subtree under that node again.  Measured on MaskBench
Github_trivial o81567 (1,328 states, 53 walk classes): 87% of its 2.08M frontier triples sat in
one of 46 states looping on at least half of the classes.

A jump replaces that part of the walk by two range lookups.  Cut the class trie into *runs*:
a node whose edge class is outside C starts a run (the root too), and a node whose edge class
is in C belongs to its parent's run.  From a triple (origin, X, n), the walk would stay in X on
exactly the nodes strictly below n in n's run (the path from n to them is all C), and leave the
loop at the *exits*: the nodes strictly below n, outside C, whose parent is in n's run, each to
``T[X, class]``.  In depth-first pre-order a subtree is one range, so with the run members that
end tokens sorted by (run, pre-order), and the exits by (run of the parent, pre-order), both
are a ``searchsorted`` pair per triple.  The members are the triple's hits below n; the exits
become triples of the frontier (recorded, and jumped again, at once).  Hit sets, hence masks,
are the same as the walk's.

What it buys, measured (process time, jumps off and on interleaved in one process, the
artifacts byte-identical in all 117 files compared): o81567 steps 0.28M triples instead of
2.08M, but its walk stage only goes ~105 -> ~82 ms, because a walk costs what its *hits* cost
(1.0M (start, node) hits, which the jump produces as before, then sorted, hashed and expanded),
not what its triples cost; the whole compile of every 16th MaskBench file (95 DFA-path and 22
grammar-path schemas) is 2.5% faster at the geometric mean, 4-12% on the typical string-heavy
schema (o21354, o47139, o47005), none of the 16 bench regexes qualifies.  Recording a run's
hits as ranges rather than nodes would be the next step.  Session 9: a node's four binary
searches are done once a node (``NodeRanges``: the 25 median MaskBench schemas' jumps meet
~111k triples a schema on ~5.4k distinct nodes, each call's nodes ~20 times over, though few
recur from one call to the next), the walk stage ~4-5 ms a schema less (of ~85).

A table per loop set costs two sorts over the class trie (~10-20 ms on Llama-3 for a JSON
Schema's 160k class nodes), so it is built only for loop sets that cover at least half of the
walk classes, that at least ``MIN_JUMP_STATES`` states share, and whose classes label at least
``MIN_JUMP_NODES`` class nodes: string bodies, not the small loops of the bench regexes.
Not with slices (a slice path records its hits differently) nor in byte mode (muted literals).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from indexc.arrays import expand_runs, sorted_bool_rows, sorted_unique
from indexc.masks.class_trie import ClassTrie

MIN_JUMP_STATES = 3  # states looping on the same class set for its table to be built
MIN_JUMP_NODES = 4_096  # class nodes labelled by the loop's classes (an upper bound on what a jump skips)


@dataclass(frozen=True)
class JumpTable:
    """One loop set's runs: members that end tokens and exits, each sorted by (run, pre-order)."""

    run_of: np.ndarray  # int64 (n_nodes,): the run each node belongs to (the id of its first node)
    member_key: np.ndarray  # int64 sorted: run * n_nodes + pre-order, of the nodes inside C that end tokens
    member_node: np.ndarray  # int64: the node of each key
    exit_key: np.ndarray  # int64 sorted: run of the parent * n_nodes + pre-order, of the nodes outside C
    exit_node: np.ndarray  # int64
    exit_class: np.ndarray  # int64: the walk class of each exit's edge
    node_ranges: "NodeRanges"  # per node, where its members and exits lie in the keys (filled as nodes are met)


@dataclass(frozen=True)
class LoopJumps:
    table_of_state: np.ndarray  # int64 (n_states,): the state's jump table, -1 for none
    tables: tuple[JumpTable, ...]


def loop_jumps(class_trie: ClassTrie, class_transitions: np.ndarray, muted: np.ndarray) -> LoopJumps | None:
    """The jump tables of the wide loop sets of ``class_transitions`` (None when there are none)."""
    n_states, n_classes = class_transitions.shape
    loops = class_transitions == np.arange(n_states)[:, None]
    wide = np.flatnonzero((loops.sum(axis=1) * 2 >= n_classes) & ~muted)
    if wide.size < MIN_JUMP_STATES:
        return None
    sets, inverse = sorted_bool_rows(loops[wide])
    counts = np.bincount(inverse, minlength=len(sets))
    table_of_state = np.full(n_states, -1, dtype=np.int64)
    tables = []
    class_counts = np.bincount(class_trie.node_class[1:], minlength=n_classes)
    for k in np.flatnonzero(counts >= MIN_JUMP_STATES):
        if class_counts[sets[k]].sum() < MIN_JUMP_NODES:
            continue
        table_of_state[wide[inverse.reshape(-1) == k]] = len(tables)
        tables.append(jump_table(class_trie, sets[k]))
    return LoopJumps(table_of_state, tuple(tables)) if tables else None


def jump_table(ct: ClassTrie, loop_classes: np.ndarray) -> JumpTable:
    """Runs of the loop set ``loop_classes`` (bool per walk class), its members and exits."""
    inside = np.zeros(ct.n_nodes, dtype=bool)
    inside[1:] = loop_classes[ct.node_class[1:]]
    run_of = np.arange(ct.n_nodes, dtype=np.int64)
    for lo, hi in ct.level_ranges[1:]:  # a node inside C is in its parent's run
        run_of[lo:hi] = np.where(inside[lo:hi], run_of[ct.parents[lo:hi]], run_of[lo:hi])
    has_tokens = ct.ends_tokens
    members = np.flatnonzero(inside & has_tokens)
    exits = np.flatnonzero(~inside)[1:]  # not the root
    member_key, member_node = _sorted_by_key(run_of[members] * ct.n_nodes + ct.preorder[members], members)
    exit_key, exit_node = _sorted_by_key(run_of[ct.parents[exits]] * ct.n_nodes + ct.preorder[exits], exits)
    return JumpTable(run_of, member_key, member_node, exit_key, exit_node, ct.node_class[exit_node].astype(np.int64),
                     NodeRanges(ct.n_nodes))


def jump(table: JumpTable, ct: ClassTrie, class_transitions: np.ndarray, origin: np.ndarray, state: np.ndarray,
         node: np.ndarray) -> tuple[np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """For triples (origin, state, node) whose state loops on the table's classes: (hit origins,
    hit nodes) strictly below each node in its run, and the live exit triples (origin, state, node)."""
    ranges = table.node_ranges.of(node, table, ct)
    owner, position = expand_runs(ranges[:, 0], ranges[:, 1])
    hit_origin, hit_node = origin[owner], table.member_node[position]
    owner, position = expand_runs(ranges[:, 2], ranges[:, 3])
    width = class_transitions.shape[1]
    nxt = class_transitions.reshape(-1)[state[owner] * width + table.exit_class[position]].astype(np.int64)
    alive = nxt >= 0
    return hit_origin, hit_node, (origin[owner][alive], nxt[alive], table.exit_node[position][alive])


class NodeRanges:
    """Per class node: the first of its members (strictly below it, in its run) in the table's
    sorted keys and how many, then the same for its exits; two ``searchsorted`` pairs per node,
    done the first time a jump meets the node and kept for the compile.

    Why: the jumps of a JSON Schema's walk meet ~111k triples but only ~5.4k distinct nodes
    (a call reaches the same string-body positions from ~20 states: one per property), and the
    four binary searches per triple were half of a jump's time.  Measured, nearly every node is
    new to the call that meets it, so what pays is searching a call's repeats once; keeping the
    ranges across calls costs little and spares the few that recur."""

    def __init__(self, n_nodes: int):
        self._known = np.zeros(n_nodes, dtype=bool)
        self._ranges = np.empty((n_nodes, 4), dtype=np.int64)  # rows of the nodes met only: pages never touched stay free

    def __reduce__(self):
        """Shipped empty (a walk's worker processes find their own): the table is ~5 MB for Llama-3."""
        return NodeRanges, (self._known.size,)

    def of(self, node: np.ndarray, table: JumpTable, ct: ClassTrie) -> np.ndarray:
        """int64 (node.size, 4): (first member, members, first exit, exits) of each node."""
        new = node[~self._known[node]]
        if new.size:
            new = sorted_unique(new)  # a call meets a node many times: searched once
            base = table.run_of[new] * ct.n_nodes + ct.preorder[new]
            below, end = base + 1, base + ct.subtree_sizes[new]  # the subtree's pre-order range, the node left out
            ranges = np.empty((new.size, 4), dtype=np.int64)
            ranges[:, 0] = np.searchsorted(table.member_key, below)
            ranges[:, 1] = np.searchsorted(table.member_key, end) - ranges[:, 0]
            ranges[:, 2] = np.searchsorted(table.exit_key, below)
            ranges[:, 3] = np.searchsorted(table.exit_key, end) - ranges[:, 2]
            self._ranges[new] = ranges
            self._known[new] = True
        return np.take(self._ranges, node, axis=0)  # ~5x faster than ``self._ranges[node]`` on (n, 4)


def _sorted_by_key(keys: np.ndarray, nodes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(keys ascending, the node of each): the keys are distinct (a node's pre-order is its
    own), so when the node fits below the key in 63 bits one value sort of ``key << bits | node``
    orders both (~2x numpy's argsort and the two gathers after it); else an argsort."""
    bits = max(1, int(nodes.max(initial=0)).bit_length())
    if not keys.size or int(keys.max()) >> (62 - bits):
        order = np.argsort(keys)
        return keys[order], nodes[order]
    packed = np.sort((keys << bits) | nodes)
    return packed >> bits, packed & ((1 << bits) - 1)

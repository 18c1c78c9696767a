"""Loop regions: the part of the trie a state's self-loop covers is walked once per loop set.

A state X that loops on a set C of classes (``T[X, c] == X`` for c in C: the body of a JSON
string, ``[a-z]*``) reaches every class-trie node whose path is made of C only, and stays at X
all along: that *region* R(C) depends on C alone, and every node of it that ends tokens is a
hit of X.  What is left of X's walk starts at the region's *exits*, the children of the root
and of region nodes by a class outside C: from exit m (class c) the walk goes on from
``T[X, c]``.  So X's hit set is the region's hits plus the hits of its exit starts, and the
exit starts are numbered with the first steps (``first_step``), so states that leave the loop
into the same state share those walks too.

Why: JSON Schemas have one string-body state per string property (each knows what follows its
closing quote), and each walked the whole string region of the trie, ~90k class nodes for
Llama-3, to find the few thousand tokens with a quote or a backslash in them.  Measured on
MaskBench Glaiveai2K calculate_area_1966c622 (726 states at any_depth 2): 44 such starts were
2.4M of the walk's 4.3M frontier triples.

Only loop sets of at least ``MIN_REGION_STATES`` states with regions of at least
``MIN_REGION_NODES`` class nodes are used: a region walked for one or two states saves nothing
and its exits cost more starts (on the bench regexes, where loops are rarely shared, regions
made email's walk 4.5 -> 7.4 ms and complex_span's 102 -> 130 ms); none when slices are on
(slice paths record their hits differently).

A region is the root's *run* of ``loop_jumps``: when that module built a jump table for the same
loop set (most JSON string bodies), the region's hits and exits are read from the table's run-0
prefix instead of walked again (25 median MaskBench schemas, process time summed: regions
440 -> 160 ms); other loop sets are walked breadth first.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from indexc.arrays import expand_runs, sorted_bool_rows
from indexc.masks.class_trie import ClassTrie
from indexc.masks.loop_jumps import JumpTable
from indexc.masks.traverse import WalkPlan

MIN_REGION_NODES = 4_096  # class nodes in a loop's region for it to be walked once and shared
MIN_REGION_STATES = 3  # states with the same loop set for its region to be shared


@dataclass(frozen=True)
class LoopRegion:
    hits: np.ndarray  # int64 sorted: the region's class nodes that end tokens
    exit_node: np.ndarray  # int64: children of the root and of region nodes by a class outside C
    exit_class: np.ndarray  # int64: the class of each exit


def loop_regions(plan: WalkPlan, origins: np.ndarray) -> tuple[np.ndarray, list[LoopRegion]]:
    """(region index per origin, -1 for none; the regions), for non-muted ``origins``."""
    region_of = np.full(origins.size, -1, dtype=np.int64)
    if origins.size == 0 or (plan.slice_of_state >= 0).any():
        return region_of, []
    loops = plan.class_transitions[origins] == origins[:, None]
    looping = np.flatnonzero(loops.any(axis=1))
    if looping.size == 0:
        return region_of, []
    sets, inverse = sorted_bool_rows(loops[looping])
    regions: list[LoopRegion] = []
    sharing = np.bincount(inverse, minlength=len(sets))
    for k, classes in enumerate(sets):
        region = _region(plan, classes, origins[looping[inverse == k][0]]) if sharing[k] >= MIN_REGION_STATES else None
        if region is not None:
            region_of[looping[inverse == k]] = len(regions)
            regions.append(region)
    return region_of, regions


def _region(plan: WalkPlan, classes: np.ndarray, state: int) -> LoopRegion | None:
    """The region of the loop set ``classes`` (``state`` loops on it): read from its jump table
    when ``loop_jumps`` built one, else walked."""
    table = plan.jumps.table_of_state[state] if plan.jumps is not None else -1
    if table >= 0:
        return _region_of_jump_table(plan.jumps.tables[table], plan.class_trie)
    return _walked_region(plan.class_trie, classes)


def _region_of_jump_table(table: JumpTable, ct: ClassTrie) -> LoopRegion | None:
    """The region is the root's run: its members and exits come first in the table's keys (run
    0), a prefix of each, in pre-order; sorted by id they are what the walk finds."""
    if int(np.count_nonzero(table.run_of == 0)) - 1 < MIN_REGION_NODES:  # the root leads its run
        return None
    hits = np.sort(table.member_node[:np.searchsorted(table.member_key, ct.n_nodes)])
    leaving = np.sort(table.exit_node[:np.searchsorted(table.exit_key, ct.n_nodes)])
    return LoopRegion(hits, leaving, ct.node_class[leaving].astype(np.int64))


def _walked_region(ct: ClassTrie, classes: np.ndarray) -> LoopRegion | None:
    """Breadth first from the root over the children whose class is in the loop set: the class
    trie's ids are breadth first, children contiguous, so each level's nodes (and the exits)
    come out in id order."""
    has_tokens = ct.ends_tokens
    inside = [np.zeros(1, dtype=np.int64)]  # the root, as the base of the first exits
    frontier = inside[0]
    size = 0
    while frontier.size:
        first = ct.child_offsets[frontier]
        _, child = expand_runs(first, ct.child_offsets[frontier + 1] - first)  # class-trie children: contiguous ids
        frontier = child[classes[ct.node_class[child]]]
        inside.append(frontier)
        size += frontier.size
    if size < MIN_REGION_NODES:
        return None
    nodes = np.concatenate(inside)
    first = ct.child_offsets[nodes]
    _, child = expand_runs(first, ct.child_offsets[nodes + 1] - first)
    leaving = child[~classes[ct.node_class[child]]]
    region_nodes = nodes[1:]
    return LoopRegion(np.sort(region_nodes[has_tokens[region_nodes]]), leaving,
                      ct.node_class[leaving].astype(np.int64))

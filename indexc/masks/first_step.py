"""First-step sharing: origins that take a token's first class to the same state share the walk below.

A token's fate from state o is decided by its first class c (to state T[o, c]) and then by the
rest of its path from T[o, c].  So the subtree of root child n_c walked from T[o, c] is the
same for every origin with that same first step: walk each distinct pair (T[o, c], n_c) once,
and give origin o the union of the hit sets of its pairs (they lie in disjoint subtrees, so the
union is a concatenation, in root-child order, which is canonical: equal pair lists give equal
hit sets).

Where it pays: JSON Schema DFAs hold many states that allow nearly every token and differ
only on a few first classes (the prefixes of listed keys inside an unlisted-key string, the
positions of a bounded string): all their other first steps go to one shared state.  Measured
(Llama-3, frontier triples walked, at the then any-value depth 2): MaskBench kb_1047 12.3M -> 2.2M (walk 1.0 s -> 0.12 s),
Github_medium o84343 64.6M -> 23.6M, o30305 ~5x.  Deeper sharing (pairs at depth 2-4) was
measured too and buys almost nothing more (o84343: 23.6M at depth 1, 17.9M at depth 4 plus 12M
triples to reach depth 4), so the sharing stops at the first step.

Starts on one node from states that no string as deep as the node's subtree tells apart
(``equivalence``) are numbered as one start too, when there are enough starts for it to pay
(``MIN_EQUIVALENCE_STARTS``): MaskBench o42810, 171,419 -> 18,147 starts.  A node's height
is set by its longest token, and a few root children are tall only by a chain of repeats
(spaces, dashes: heights 63-127) over a shallow bush: equivalence that deep merges little.
So, with equivalence, a step on a node taller than ``SPLIT_HEIGHT`` that still holds
``SPLIT_MIN_STARTS`` merged starts is replaced by the steps to its children (each judged at
its own height), the node's own tokens being a fixed hit set.  o42810 (Llama-3, process
time): 30,910 starts, walked hits 16.0M -> 5.5M, first steps + walk + dedupe 2.9 -> 1.2 s
(splitting at height 12 or 40: about the same).  The start count guards the cost: splitting
every tall step made Kubernetes kb_148's lexer walk slower (385k step rows -> 2.2M for no
merge: its tall nodes hold at most 133 starts); with it, MaskBench o82654's walk 2.7 ->
1.1 s, o83048 0.9 -> 0.8 s, o59980 and sp_152 +-0.1 s (noise on a shared machine).

Equivalence over every class misses most duplicates of a JSON Schema: on 25 median MaskBench
schemas, 208k of 243k starts found a hit set an earlier start on the *same node* had found (21M
of the walk's 24M hits), mostly string bodies and values that differ only after a quote, below
nodes (the letters' root children) whose subtrees hold no quote at all.  So starts on a node
holding at least ``MIN_CROWDED_STARTS`` are numbered again by ``equivalence.equivalent_within``
over the classes of the bytes found below the node (a string there reads no other), one local
refinement per set of start states, skipped where those classes are most of the alphabet (the
full refinement's case: ~5 ms a group, for few merges) or where they reach more than
``REACH_PER_START`` states a start (a counter's rounds: o59980, 15,847 states, spent 0.2 s
there to save 0.1 s of walk; with the bound 75 ms, 92% of the merges).  The groups' refinements
run as one (``equivalence.equivalent_within_groups``: ~3-5 ms less a median schema).  Median25, process
time summed, A/B interleaved: first steps ~0.9 -> ~1.0-1.3 s, walk chunks ~2.9-3.3 -> ~1.7-2.1
s, grouping the hit sets ~0.5 -> ~0.1 s; o59980: walk 0.94-1.05 -> 0.70 s, first steps the same.

Muted origins (inside a long literal, walked on the byte trie) keep a start of their own at the
byte-trie root: their walks are narrow.  A first step that lands in a muted state starts on the
class node and moves to the byte trie in the walk (``traverse._settle``).  A first step that
stays on the origin's slice loop is a start of its own (``in_slice``), since below it hits
are recorded differently.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from indexc import limits as compile_limits
from indexc.arrays import expand_runs, groups_by_first_appearance, sorted_unique, stable_argsort
from indexc.masks.alphabet import ByteAlphabet
from indexc.masks.class_trie import ClassTrie
from indexc.masks.equivalence import WithinQuery, equivalent_states, equivalent_within_groups
from indexc.masks.loop_regions import loop_regions
from indexc.masks.traverse import Starts, WalkPlan

# Starts from which equivalent states are looked for: the refinement's fixed cost (a round over
# every state, then one per trie level) is 5-20 ms on the bench regexes, whose walks have a few
# thousand starts and take 1-50 ms; MaskBench o42810 has 171k starts, unicode_words 29k (break-even).
MIN_EQUIVALENCE_STARTS = 8_192
SPLIT_HEIGHT = 24  # steps on taller class nodes start one level down (their children are mostly shallow)
SPLIT_MIN_STARTS = 256  # ... when the node still holds this many starts once equivalent ones are merged
MIN_CROWDED_STARTS = 16  # starts on one class node for the classes below it to be looked at
REACH_PER_START = 2  # ... unless strings of those classes reach more states than this per start (+ 64)


@dataclass(frozen=True)
class FirstSteps:
    """The distinct starts, and each origin's starts (CSR, in root-child order).

    Ids from ``len(starts)`` on name ``fixed`` hit sets, known without a walk (the hits of a
    loop region, see ``loop_regions``)."""

    origins: np.ndarray  # int64: the origin states, in the order the walk's callers number them
    starts: Starts
    offsets: np.ndarray  # int64 (len(origins) + 1,)
    ids: np.ndarray  # int64: starts of origins[k] are ids[offsets[k]:offsets[k + 1]]
    fixed: tuple[np.ndarray, ...] = ()

    def of(self, k: int) -> np.ndarray:
        return self.ids[self.offsets[k]:self.offsets[k + 1]]


def first_steps(plan: WalkPlan, origins: np.ndarray, *, regions: bool = True,
                state_alphabet: ByteAlphabet | None = None) -> FirstSteps:
    """The origins' first steps (or loop-region exits), numbered once across origins, in
    first-use order; ``regions``: use ``loop_regions`` for origins with a wide self-loop;
    ``state_alphabet`` (the full alphabet, its table exact in every row): number starts whose
    states are equivalent below their node as one (``equivalence``), and also starts on a crowded
    node whose states only the classes found below it tell apart (``equivalence.equivalent_within``)."""
    ct = plan.class_trie
    state_transitions = state_alphabet.class_transitions if state_alphabet is not None else None
    root_children = np.arange(ct.child_offsets[0], ct.child_offsets[1], dtype=np.int64)
    position = np.arange(origins.size, dtype=np.int64)
    walked = position[~plan.muted[origins]]
    region_of, found = loop_regions(plan, origins[walked]) if regions else (np.full(walked.size, -1), [])
    parts = [_steps(plan, origins, walked[region_of < 0], root_children, ct.node_class[root_children])]
    parts += [_steps(plan, origins, walked[region_of == r], region.exit_node, region.exit_class)
              for r, region in enumerate(found)]
    muted = position[plan.muted[origins]]  # one start each, at the byte-trie root (see the module note)
    parts.append((muted, origins[muted], np.zeros(muted.size, np.int64)))
    owner, state, node = (np.concatenate(column) for column in zip(*parts))
    on_bytes = np.zeros(owner.size, dtype=bool)
    on_bytes[owner.size - muted.size:] = True
    in_slice = (plan.slice_of_state[origins[owner]] >= 0) & (state == origins[owner]) & ~on_bytes
    representative, start_of = _numbered(ct, state, node, on_bytes, in_slice)  # in first-use order
    fixed_owner, fixed_nodes = np.zeros(0, np.int64), np.zeros(0, np.int64)
    if (state_transitions is not None and representative.size >= MIN_EQUIVALENCE_STARTS
            and not (plan.slice_of_state >= 0).any()):
        # Starts on the same node from equivalent states are one start (``equivalence``); the
        # steps on tall nodes that still hold many starts then go one level down (the module note).
        merged_representative, merged = _merge_equivalent(plan, state_transitions, state, node, on_bytes, representative)
        crowded = np.bincount(node[merged_representative], minlength=ct.n_nodes) >= SPLIT_MIN_STARTS
        crowded &= ct.heights > SPLIT_HEIGHT
        split = crowded[node] & ~on_bytes & ~plan.muted[state]
        if split.any():
            owner, state, node, on_bytes, fixed_owner, fixed_nodes = _split(plan, owner, state, node, on_bytes, split)
            in_slice = np.zeros(owner.size, dtype=bool)
            representative, start_of = _numbered(ct, state, node, on_bytes, in_slice)
            merged_representative, merged = _merge_equivalent(plan, state_transitions, state, node, on_bytes,
                                                              representative)
        representative, start_of = merged_representative, merged[start_of]
    if state_alphabet is not None and not (plan.slice_of_state >= 0).any():
        kept, merged = _merge_within_subtrees(plan, state_alphabet, state[representative], node[representative],
                                              on_bytes[representative])
        representative, start_of = representative[kept], merged[start_of]
    fixed_distinct = sorted_unique(fixed_nodes)
    fixed = tuple(np.array([n], dtype=np.int64) for n in fixed_distinct.tolist())
    fixed_id = len(found) + np.searchsorted(fixed_distinct, fixed_nodes)
    starts = Starts(state[representative], node[representative], on_bytes[representative], in_slice[representative])
    # A region origin's first id is its region's fixed hit set: put them ahead of the walked ones.
    # A split tall start's own node, when it ends tokens, is a fixed hit set of its own, after them.
    in_region = walked[region_of >= 0]
    owner = np.concatenate([in_region, fixed_owner, owner])
    start_of = np.concatenate([representative.size + region_of[region_of >= 0], representative.size + fixed_id,
                               start_of])
    # keeps root-child (or exit) order within an origin; ``owner`` is a few ascending runs, which
    # numpy's stable sort (timsort, for int64) merges ~2x as fast as ``stable_argsort``'s radix passes
    order = np.argsort(owner, kind="stable")
    offsets = np.zeros(origins.size + 1, np.int64)
    np.cumsum(np.bincount(owner, minlength=origins.size), out=offsets[1:])
    return FirstSteps(origins, starts, offsets, start_of[order], tuple(region.hits for region in found) + fixed)


def _merge_equivalent(plan: WalkPlan, state_transitions: np.ndarray, state: np.ndarray, node: np.ndarray,
                      on_bytes: np.ndarray, representative: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The starts ``representative`` numbered again, equivalent ones as one (``equivalence``):
    (first of each merged start, in first-use order; start -> its merged number)."""
    ct = plan.class_trie
    height = np.where(on_bytes, ct.heights[0], ct.heights[node])[representative]  # a byte start is at the root
    walked_as = equivalent_states(state_transitions, plan.muted, state[representative], height)
    kept, merged = _numbered(ct, walked_as, node[representative], on_bytes[representative],
                             np.zeros(representative.size, dtype=bool))
    return representative[kept], merged


def _merge_within_subtrees(plan: WalkPlan, state_alphabet: ByteAlphabet, state: np.ndarray, node: np.ndarray,
                           on_bytes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The starts (state, node, on_bytes) numbered again, those on a crowded class node (at least
    ``MIN_CROWDED_STARTS``) by their state's block under ``equivalence.equivalent_within`` over
    the classes of the bytes found below the node: (first of each, in order; start -> number).

    Crowded nodes with the same start states (the letters' root children, from every string
    body) are asked in one refinement, over the union of their classes: a superset only splits
    more, and a call per node (~1 ms each, ~130-220 a median schema) cost more than it saved."""
    ct = plan.class_trie
    number = np.arange(state.size, dtype=np.int64)  # a number of its own, unless on a crowded node
    on_class = np.flatnonzero(~on_bytes)
    by_node = on_class[np.lexsort((state[on_class], node[on_class]))]  # by node, then state
    nodes, first, counts = _runs(node[by_node])
    crowded = np.flatnonzero(counts >= MIN_CROWDED_STARTS)
    if not crowded.size:
        return _numbered(ct, number, node, on_bytes, np.zeros(state.size, dtype=bool))
    classes_below = _ClassesBelow(plan, state_alphabet)
    groups: dict[bytes, list[int]] = {}
    for k in crowded.tolist():
        groups.setdefault(state[by_node[first[k]:first[k] + counts[k]]].tobytes(), []).append(k)
    asked, queries = [], []
    for ks in groups.values():
        used = classes_below.of(nodes[ks])
        if used.sum() * 2 > used.size:  # most classes: little to gain over the full refinement, ~5 ms a group
            continue
        members = np.concatenate([by_node[first[k]:first[k] + counts[k]] for k in ks])
        asked.append(members)
        queries.append(WithinQuery(state[members], ct.heights[node[members]], np.flatnonzero(used),
                                   REACH_PER_START * members.size + 64))
    # One refinement for all the groups (numbers of different groups may repeat: their nodes differ)
    for members, blocks in zip(asked, equivalent_within_groups(state_alphabet.class_transitions, plan.muted, queries)):
        if blocks is not None:
            number[members] = state.size + blocks
    return _numbered(ct, number, node, on_bytes, np.zeros(state.size, dtype=bool))


class _ClassesBelow:
    """Which classes of the state table label the bytes below class-trie nodes: a node's subtree
    is a range of the pre-order, its walk classes mapped to the bytes' classes in that table."""

    def __init__(self, plan: WalkPlan, state_alphabet: ByteAlphabet):
        self.ct = plan.class_trie
        n_state_classes = state_alphabet.class_transitions.shape[1]
        self.columns_of = np.zeros((int(plan.class_transitions.shape[1]), n_state_classes), dtype=bool)
        self.columns_of[plan.class_of_byte, state_alphabet.class_of_byte] = True  # walk class -> state table classes
        self.in_preorder = np.empty(self.ct.n_nodes, dtype=np.int64)
        self.in_preorder[self.ct.preorder] = np.arange(self.ct.n_nodes)

    def of(self, nodes: np.ndarray) -> np.ndarray:
        """bool (n_state_classes,): the classes below any of ``nodes`` (not their own edges)."""
        ct, walk_classes = self.ct, np.zeros(self.columns_of.shape[0], dtype=bool)
        for at in nodes.tolist():
            below = self.in_preorder[ct.preorder[at] + 1:ct.preorder[at] + ct.subtree_sizes[at]]
            walk_classes[ct.node_class[below]] = True
        return self.columns_of[walk_classes].any(axis=0)


def _runs(ordered: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(value, first index, length) of each run of equal values in ``ordered``."""
    if not ordered.size:
        return ordered, np.zeros(0, np.int64), np.zeros(0, np.int64)
    first = np.flatnonzero(np.concatenate(([True], ordered[1:] != ordered[:-1])))
    return ordered[first], first, np.diff(np.append(first, ordered.size))


def _split(plan: WalkPlan, owner: np.ndarray, state: np.ndarray, node: np.ndarray, on_bytes: np.ndarray,
           split: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The class-trie steps ``split`` (from states that are not muted: a muted one leaves the
    class trie at the node) replaced by the steps to their children (the walk's next level,
    done here).

    Returns the new (owner, state, node, on_bytes) and, for each split step whose node ends
    tokens, (its owner, its node): that node is a hit whatever the state, a fixed hit set.
    """
    ct = plan.class_trie
    rows = np.flatnonzero(split)
    first = ct.child_offsets[node[rows]]
    which, child = expand_runs(first, ct.child_offsets[node[rows] + 1] - first)
    target = plan.class_transitions[state[rows][which], ct.node_class[child]].astype(np.int64)
    live = target >= 0
    ends_tokens = ct.token_offsets[node[rows] + 1] > ct.token_offsets[node[rows]]
    keep = ~split
    return (np.concatenate([owner[keep], owner[rows][which][live]]), np.concatenate([state[keep], target[live]]),
            np.concatenate([node[keep], child[live]]), np.concatenate([on_bytes[keep], np.zeros(int(live.sum()), bool)]),
            owner[rows][ends_tokens], node[rows][ends_tokens])


def _numbered(ct: ClassTrie, state: np.ndarray, node: np.ndarray, on_bytes: np.ndarray,
              in_slice: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct (state, node, trie, slice flag) starts: (first occurrence of each, in order of
    first appearance; element -> its start's number)."""
    return groups_by_first_appearance(((state * (ct.n_nodes + 1) + node) * 2 + on_bytes) * 2 + in_slice)


def _steps(plan: WalkPlan, origins: np.ndarray, members: np.ndarray, nodes: np.ndarray,
           classes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(owner, state, node) of each live step of the origins ``origins[members]`` into ``nodes``
    (whose edge classes are ``classes``), by owner then node order."""
    compile_limits.check_memory(members.size * nodes.size * 24, "the first steps of every state")
    target = plan.class_transitions[origins[members]][:, classes].astype(np.int64)
    row, column = np.nonzero(target >= 0)
    return members[row], target[row, column], nodes[column]


def root_starts(plan: WalkPlan, origins: np.ndarray) -> FirstSteps:
    """No sharing: each origin is one start at the root (``--no-first-step-sharing``)."""
    return FirstSteps(origins, Starts.at_root(plan, origins), np.arange(origins.size + 1, dtype=np.int64),
                      np.arange(origins.size, dtype=np.int64))

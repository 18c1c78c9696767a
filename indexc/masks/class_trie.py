"""The class trie: the token trie with every byte replaced by its byte class.

Token classes (seed 002): tokens whose bytes have the same class sequence are allowed in
exactly the same states, so the walk visits each class sequence once.  Rather than re-sorting
128k class strings, the class trie is *derived from the byte trie* level by level: a byte-trie
node at depth d maps to the class-trie node keyed by (class node of its parent, class of its
byte); one sort per level numbers the keys.  Class nodes are thus numbered in breadth-first
order with the children of a node contiguous and sorted by class, which is the CSR layout the
frontier walk wants, for free.

A level that is mostly alive is read whole through the trie's breadth-first view
(``BreadthFirstTrie``: per position in ``trie.level_nodes``, the node, its parent, its byte),
which depends on the trie alone and is cached per trie object (a MaskBench run compiles
hundreds of schemas against one trie) and never built by a compile whose levels stay narrow.
Each level's sort also gives its nodes grouped by class node, so the class nodes' tokens and
byte nodes come out of it with no sort over the whole trie.

Dead-byte pruning happens on the way: the byte nodes are kept breadth first from the root,
and a child whose byte is dead in every state, or whose byte cannot follow its parent's byte
in any state, is simply not taken, so its whole subtree is never touched.  The cost is the
number of surviving nodes: a digits regex over Llama-3 touches a few thousand of the 274k
nodes (~1 ms), where marking dead subtrees over the whole trie first cost ~10-15 ms whatever
the regex.  Which nodes survive depends on the dead bytes and pairs alone, not on the classes,
and every JSON Schema has the same ones (UTF-8's), so the kept levels are found once per trie
and dead sets and kept (``kept_levels``); a class trie then only numbers them.

Numbers (Llama-3, 274k byte nodes, CPU, median of 7, in process, warm, interleaved with the
previous builder on a busy host): a JSON Schema's 49-class muted alphabet (MaskBench kb_128:
135,725 class nodes, byte nodes kept) 62 -> 40 ms (50 -> 28 ms wall on a quieter host; before:
the children expanded by byte-node id for every level, ``np.unique`` per level, then two
whole-trie sorts for the tokens and byte nodes); the https regex of seed 002 (the bench's
``url``, 104 byte classes, 82,225 class nodes) 41 -> 30 ms; a date regex (260 class nodes,
every level narrow, no view built) 0.7 ms either way.  BENCHMARKS.md's ablation table gives
the node counts of every bench regex.  Session 8, the 25 DFA-path MaskBench schemas at the
compile-time median (~178k class nodes, 129 levels, ~28 of them wide): the class trie with its
sizes, heights and pre-order 48 -> 39 ms (median of per-schema min of 7, process time, three
interleaved runs), from a level's keys numbered by one value sort of key-and-position instead
of a two-pass radix argsort and a gather, the class nodes set through the sorted nodes (no
inverse scatter), one dead-edge table per compile (byte or pair: one gather an edge), the
breadth-first view's bytes stored as indices, and a level read whole judged by the frontier's
share of the level above; 35 ms with the tokens of nodes that end at most one each taken by a
mask, not by expanding runs; 47 -> 31.8 ms (two more interleaved runs) with the sizes and
heights summed a level at a time by ``bincount``/``maximum.at`` and the pre-order's steps found
for all nodes at once.  Session 9: ``class_levels`` with the kept levels shared by the schemas
15.3/17.0 -> 13.0/13.3 ms a schema (per-schema min of 3, process time, two interleaved pairs).

With token classes switched off the "class" of a byte is the byte itself and the class trie
is the (pruned) byte trie.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from indexc.arrays import expand_runs, offsets_of, run_positions, stable_argsort
from indexc.trie import NO_TOKEN, TokenTrie


@dataclass(frozen=True)
class ClassTrie:
    """Breadth-first class trie; node 0 is the root."""

    node_class: np.ndarray  # int32 (n,): class of the edge into the node (root: -1)
    child_offsets: np.ndarray  # int64 (n+1,): children of c are child_offsets[c]:child_offsets[c+1]
    token_offsets: np.ndarray  # int64 (n+1,): tokens ending at c are tokens[token_offsets[c]:...]
    tokens: np.ndarray  # int32: token ids grouped by class node
    pruned_tokens: int  # text tokens removed by dead-byte pruning
    byte_node_offsets: np.ndarray  # int64 (n+1,): byte-trie nodes mapped to c (CSR); empty if not asked
    byte_nodes: np.ndarray  # int64: byte-trie node ids grouped by class node
    max_level_width: int  # most class nodes at one depth: bounds a frontier level per origin

    @property
    def n_nodes(self) -> int:
        return int(self.node_class.shape[0])

    @cached_property
    def ends_tokens(self) -> np.ndarray:
        """bool (n,): some token ends at the node (its hits are what a walk records)."""
        return self.token_offsets[1:] > self.token_offsets[:-1]

    @property
    def subtree_sizes(self) -> np.ndarray:
        """int64 (n,): nodes in each node's subtree, itself included (bounds a walk started there)."""
        return self._sizes_and_heights[0]

    @property
    def heights(self) -> np.ndarray:
        """int64 (n,): levels below each node (0 for a leaf): the longest string a walk started
        there reads (``equivalence``)."""
        return self._sizes_and_heights[1]

    @cached_property
    def _sizes_and_heights(self) -> tuple[np.ndarray, np.ndarray]:
        """Subtree sizes and heights in one pass: every compile asks for both (``first_step``,
        ``loop_jumps``), and the pass's index work is the same for the two.

        Levels are contiguous id ranges (breadth first), so each level adds into the level
        above, deepest first: its sizes by one ``bincount`` over its parents (float weights,
        exact below 2**53), its heights by one ``maximum.at``.  The ``reduceat`` over the runs of
        children this replaced needed the parents with children found first, per level:
        ~5.2 -> ~2.0 ms for a JSON Schema's 178k class nodes (median of 25, min of 5).
        """
        sizes = np.ones(self.n_nodes, dtype=np.int64)
        heights = np.zeros(self.n_nodes, dtype=np.int64)
        levels = self.level_ranges
        for (parent_lo, parent_hi), (lo, hi) in reversed(list(zip(levels, levels[1:]))):
            parents = self.parents[lo:hi] - parent_lo
            sizes[parent_lo:parent_hi] += np.bincount(parents, weights=sizes[lo:hi],
                                                      minlength=parent_hi - parent_lo).astype(np.int64)
            np.maximum.at(heights[parent_lo:parent_hi], parents, heights[lo:hi] + 1)
        return sizes, heights

    @cached_property
    def level_ranges(self) -> list[tuple[int, int]]:
        """The id range of each level, root level first (breadth first: levels are contiguous)."""
        levels = [(0, 1)]
        while True:
            lo, hi = int(self.child_offsets[levels[-1][0]]), int(self.child_offsets[levels[-1][1]])
            if lo == hi:
                return levels
            levels.append((lo, hi))

    @cached_property
    def parents(self) -> np.ndarray:
        """int64 (n,): each node's parent (the root's: -1)."""
        parents = np.repeat(np.arange(self.n_nodes, dtype=np.int64), np.diff(self.child_offsets))
        return np.concatenate(([-1], parents))

    @cached_property
    def preorder(self) -> np.ndarray:
        """int64 (n,): each node's position in a depth-first pre-order (children in id order),
        so that the subtree of ``v`` is the positions ``[preorder[v], preorder[v] + subtree_sizes[v])``
        (``loop_jumps`` finds a node's descendants in a run with two binary searches).  A node
        comes right after its parent and its earlier siblings' subtrees: that step is found for
        every node at once (siblings are contiguous ids), then one add per level, parents first
        (~3.7 -> ~2.5 ms for a JSON Schema's 178k class nodes, where each level found its own)."""
        sizes = self.subtree_sizes
        before = np.cumsum(sizes) - sizes  # sizes of the nodes with smaller ids
        step = before + 1
        step[1:] -= before[self.child_offsets[self.parents[1:]]]  # 1 + the earlier siblings' sizes
        pre = np.zeros(self.n_nodes, dtype=np.int64)
        for lo, hi in self.level_ranges[1:]:
            np.add(pre[self.parents[lo:hi]], step[lo:hi], out=pre[lo:hi])
        return pre


@dataclass(frozen=True)
class BreadthFirstTrie:
    """The byte trie's levels as ranges: what a level read whole needs, without a gather.

    A *position* is a byte node's rank in ``trie.level_nodes`` (by depth, then id), so a level
    is a range of positions, and each array here holds, per position, what the class trie's
    wide levels read of the node there.  It depends on the trie alone, so it is built once
    per trie (``breadth_first``), and only when a level is read whole: a small regex, whose
    frontiers stay narrow, never builds it (Llama-3: 274k positions, ~7 MB, ~5-15 ms).
    """

    node: np.ndarray  # int64 (n,): the byte-trie node at each position (``trie.level_nodes``)
    level_offsets: tuple[int, ...]  # level d is positions [level_offsets[d], level_offsets[d + 1])
    parent: np.ndarray  # intp (n,): the parent's node id (the root's: 0)
    byte: np.ndarray  # intp (n,): the byte of the edge into the node (an index: numpy would convert a uint8 one each gather)
    pair: np.ndarray  # intp (n,): parent byte * 256 + byte (an index into a flat ``dead_pair``)

    @property
    def n_positions(self) -> int:
        return int(self.node.size)


def _breadth_first_of(trie: TokenTrie) -> BreadthFirstTrie:
    node = trie.level_nodes.astype(np.intp)
    parent = np.maximum(trie.parent[node], 0).astype(np.intp)
    byte = trie.byte[node].astype(np.intp)
    return BreadthFirstTrie(node, tuple(int(x) for x in trie.level_offsets), parent, byte,
                            trie.byte[parent].astype(np.intp) * 256 + byte)


MAX_CACHED_TRIES = 2  # breadth-first views kept (~7 MB each for Llama-3): a process serves one or two tokenizers
_BREADTH_FIRST: dict[int, tuple[weakref.ref, BreadthFirstTrie]] = {}


def breadth_first(trie: TokenTrie) -> BreadthFirstTrie:
    """The trie's breadth-first view, built on first use and kept while the trie lives (at most
    ``MAX_CACHED_TRIES`` of them, the oldest dropped first).

    Why a cache: a MaskBench run or ``indexc build`` compiles hundreds of constraints against
    one trie, and the view costs ~5-15 ms to build.  Keyed by the trie object (its id, checked
    through a weak reference, so a new trie at a recycled id is never served another's view);
    the trie's arrays are never written after it is built.
    """
    entry = _BREADTH_FIRST.get(id(trie))
    if entry is not None and entry[0]() is trie:
        return entry[1]
    view = _breadth_first_of(trie)
    while len(_BREADTH_FIRST) >= MAX_CACHED_TRIES:
        del _BREADTH_FIRST[next(iter(_BREADTH_FIRST))]
    _BREADTH_FIRST[id(trie)] = (weakref.ref(trie, lambda _, key=id(trie): _forget(key)), view)
    return view


def _forget(key: int) -> None:
    """Drop a dead trie's view (unless its id already serves a newer trie)."""
    entry = _BREADTH_FIRST.get(key)
    if entry is not None and entry[0]() is None:
        del _BREADTH_FIRST[key]


def build_class_trie(
    trie: TokenTrie,
    class_of_byte: np.ndarray,
    n_classes: int,
    dead_byte: np.ndarray,
    dead_pair: np.ndarray | None = None,
    *,
    prune_dead: bool = True,
    with_byte_nodes: bool = False,
) -> ClassTrie:
    """Map the byte trie onto byte classes, dropping subtrees under a dead byte when ``prune_dead``.

    Deadness is per byte (dead in every state) and per pair of adjacent bytes (``dead_pair``,
    from ``alphabet.dead_byte_pairs``), not per class: with literal muting the walk's classes
    ignore the muted states' rows, so a class may hold a dead byte and a byte only a muted
    state uses.  ``with_byte_nodes`` also returns which byte nodes each class node
    stands for (what the walk needs to leave class mode at a muted state).
    """
    levels = class_levels(trie, class_of_byte, n_classes, dead_byte if prune_dead else None,
                          dead_pair if prune_dead else None)
    n_nodes = levels.n_nodes
    nodes = levels.nodes_by_class
    node_offsets = offsets_of(levels.byte_node_counts)
    tokens, token_counts = _tokens_of(trie, nodes)
    token_offsets = offsets_of(token_counts)[node_offsets]
    if with_byte_nodes:
        byte_nodes, byte_node_offsets = nodes, node_offsets
    else:
        byte_nodes, byte_node_offsets = np.zeros(0, np.int64), np.zeros(n_nodes + 1, np.int64)
    built = ClassTrie(levels.node_class, offsets_of(np.bincount(levels.parent_of, minlength=n_nodes)) + 1,
                      token_offsets, tokens, int(trie.n_tokens - tokens.size), byte_node_offsets, byte_nodes,
                      levels.max_level_width)
    built.__dict__["parents"] = np.concatenate(([-1], levels.parent_of))  # known here: the cached property's value
    return built


def _tokens_of(trie: TokenTrie, nodes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(int32 tokens ending at ``nodes``, in their order; how many end at each node).

    A byte node ends at most one token unless two tokens have the same bytes, which Llama-3's
    274k nodes never do: then a node's token is its ``token_id``, one gather (the token ranges'
    two gathers and ``sorted_tokens``' one cost ~1.5 ms more over a JSON Schema's ~270k kept
    nodes, their runs' expansion ~3 ms more again)."""
    if np.count_nonzero(trie.token_id != NO_TOKEN) == trie.n_tokens:  # no node ends two tokens
        tokens = trie.token_id[nodes]
        ends = tokens != NO_TOKEN
        return tokens[ends].astype(np.int32, copy=False), ends
    first = trie.token_start[nodes].astype(np.int64)
    token_counts = trie.token_end[nodes] - first
    tokens = trie.sorted_tokens[run_positions(first, token_counts.astype(np.int64))]
    return tokens.astype(np.int32, copy=False), token_counts


@dataclass(frozen=True)
class ClassLevels:
    """The class trie's nodes, numbered breadth first, and the class node of every byte node."""

    class_node: np.ndarray  # int64 (byte nodes,): its class node, -1 where pruned
    nodes_by_class: np.ndarray  # int64: the kept byte nodes, by class node, ascending within one
    node_class: np.ndarray  # int32 (n,): class of the edge into each class node (root: -1)
    parent_of: np.ndarray  # int64 (n - 1,): parent of class nodes 1..n-1, non-decreasing
    max_level_width: int
    byte_node_counts: np.ndarray  # int64 (n,): kept byte nodes of each class node (the runs of ``nodes_by_class``)

    @property
    def n_nodes(self) -> int:
        return int(self.node_class.size)


SMALL_LEVEL = 64  # nodes up to which a level is done in Python (~15 us, not ~60 us of numpy calls)
DENSE_LEVEL = 2  # a level is read whole when the frontier is more than 1/DENSE_LEVEL of the level above


def class_levels(trie: TokenTrie, class_of_byte: np.ndarray, n_classes: int,
                 dead_byte: np.ndarray | None = None, dead_pair: np.ndarray | None = None) -> ClassLevels:
    """Number the class nodes level by level: a byte node's class node is keyed by (its parent's
    class node, the class of its byte), and one ``_sorted_keys`` per level numbers the keys in
    order, so class nodes come breadth first with each node's children contiguous and sorted
    by class.  A node under a dead byte (``dead_byte``) or a dead pair (``dead_pair``, below
    the first level) gets no class node, nor does anything below it.

    Which byte nodes are kept does not depend on the classes: ``kept_levels`` finds them (and
    keeps them per trie and dead sets: every JSON Schema has the same dead bytes and pairs, those
    of UTF-8), so a level here is a gather of its kept nodes' parents' class nodes and one
    numbering.  A narrow level (at most ``SMALL_LEVEL`` nodes) is numbered in Python.  Kept
    nodes come in ascending id order (a level's nodes are grouped by parent, in the parents'
    order).  Llama-3 under a 49-class JSON Schema alphabet (136k class nodes): ~20 ms.
    """
    kept = kept_levels(trie, dead_byte, dead_pair)
    cls = np.ascontiguousarray(class_of_byte, dtype=np.int64)
    class_node = np.full(trie.n_nodes, -1, dtype=np.int64)
    class_node[0] = 0
    parents: list[np.ndarray] = [np.zeros(0, dtype=np.int64)]
    classes: list[np.ndarray] = [np.full(1, -1, dtype=np.int64)]
    by_class: list[np.ndarray] = [np.zeros(1, dtype=np.int64)]
    counts: list[np.ndarray] = [np.ones(1, dtype=np.int64)]
    narrow = _NarrowRun(parents, classes, by_class, counts, n_classes)
    numbers, cls_of = memoryview(class_node), memoryview(cls)
    next_id, max_level_width = 1, 1
    for depth, nodes in enumerate(kept.nodes):
        if nodes.size <= SMALL_LEVEL:  # keys, numbers and order in Python
            level_nodes, level_parents, level_bytes = kept.as_lists(depth)
            keys = [numbers[parent] * n_classes + cls_of[b] for parent, b in zip(level_parents, level_bytes)]
            distinct, index, order = _ranked(keys)
            for node, k in zip(level_nodes, index):
                numbers[node] = next_id + k
            narrow.add(distinct, [level_nodes[i] for i in order], index)
            width = len(distinct)
        else:
            narrow.flush()
            unique_keys, rank, order = _sorted_keys(class_node[kept.parents[depth]] * n_classes
                                                    + cls[kept.bytes[depth]])
            ordered = nodes[order]
            class_node[ordered] = next_id + rank
            parents.append(unique_keys // n_classes)
            classes.append(unique_keys % n_classes)
            by_class.append(ordered)
            counts.append(np.bincount(rank, minlength=unique_keys.size))  # rank ascends: one sequential pass
            width = unique_keys.size
        next_id += width
        max_level_width = max(max_level_width, width)
    narrow.flush()
    return ClassLevels(class_node, np.concatenate(by_class), np.concatenate(classes).astype(np.int32),
                       np.concatenate(parents), max_level_width, np.concatenate(counts))


def sequence_numbers(trie: TokenTrie, class_of_byte: np.ndarray) -> np.ndarray:
    """int64 per byte node: equal numbers iff equal class sequences from the root (the class
    node ids ``class_levels`` gives with nothing pruned, the same values).

    Nothing is pruned, so every level is read whole, its parents all numbered: per level a
    gather of the parents' numbers and one ``_number_keys``, none of the frontier and
    class-node bookkeeping the class trie needs (Llama-3, a 61-class alphabet, all 274k nodes:
    ~28 -> ~17-22 ms CPU, interleaved).
    """
    view = breadth_first(trie)
    cls = np.ascontiguousarray(class_of_byte, dtype=np.int64)[view.byte]
    width = int(class_of_byte.max(initial=0)) + 1
    numbers = np.zeros(trie.n_nodes, dtype=np.int64)
    next_id = 1
    for depth in range(1, len(view.level_offsets) - 1):
        lo, hi = view.level_offsets[depth], view.level_offsets[depth + 1]
        unique_keys, inverse, _ = _number_keys(numbers[view.parent[lo:hi]] * width + cls[lo:hi])
        numbers[view.node[lo:hi]] = next_id + inverse
        next_id += unique_keys.size
    return numbers


@dataclass(frozen=True)
class KeptLevels:
    """The byte nodes dead-byte pruning keeps, per level from depth 1 (ascending ids), with each
    one's parent and byte: all the class trie's levels read that does not depend on the classes.
    The levels stop before the first level with no kept node."""

    nodes: tuple[np.ndarray, ...]  # int64
    parents: tuple[np.ndarray, ...]  # intp: the parent of each kept node
    bytes: tuple[np.ndarray, ...]  # intp: the byte of its edge
    lists: dict = field(default_factory=dict, compare=False)  # narrow levels as Python lists, made once

    def as_lists(self, depth: int) -> tuple[list[int], list[int], list[int]]:
        """A narrow level's three arrays as Python lists (made on first use: the levels are shared)."""
        found = self.lists.get(depth)
        if found is None:
            found = self.lists[depth] = (self.nodes[depth].tolist(), self.parents[depth].tolist(),
                                         self.bytes[depth].tolist())
        return found


MAX_CACHED_PRUNINGS = 2  # kept levels held (~6 MB each for Llama-3): the JSON Schemas' dead sets, and one more
_KEPT: dict[tuple, tuple[weakref.ref, KeptLevels]] = {}


def kept_levels(trie: TokenTrie, dead_byte: np.ndarray | None = None,
                dead_pair: np.ndarray | None = None) -> KeptLevels:
    """``KeptLevels`` of the trie under these dead bytes and pairs (None: nothing pruned), found
    on first use and kept (at most ``MAX_CACHED_PRUNINGS``, the oldest dropped first).

    Why a cache: the dead bytes and pairs of a JSON Schema are those of UTF-8 (control bytes,
    bytes no UTF-8 text holds, pairs no UTF-8 text holds in a row), the same for every schema,
    and finding the kept nodes was ~4-6 ms of each class trie.  Keyed by the trie object
    (checked through a weak reference) and the dead sets' exact bytes."""
    flat_pair = None if dead_pair is None else np.ascontiguousarray(dead_pair, dtype=bool).reshape(-1)
    dead = None if dead_byte is None else np.ascontiguousarray(dead_byte, dtype=bool)
    key = (id(trie), None if dead is None else dead.tobytes(), None if flat_pair is None else flat_pair.tobytes())
    entry = _KEPT.get(key)
    if entry is not None and entry[0]() is trie:
        return entry[1]
    kept = _kept_levels_of(trie, dead, flat_pair)
    _KEPT.pop(key, None)
    while len(_KEPT) >= MAX_CACHED_PRUNINGS:
        del _KEPT[next(iter(_KEPT))]
    _KEPT[key] = (weakref.ref(trie), kept)
    return kept


def _kept_levels_of(trie: TokenTrie, dead_byte: np.ndarray | None, flat_pair: np.ndarray | None) -> KeptLevels:
    """Breadth first from the root: each level takes the frontier's children whose edge is alive
    (read whole through the breadth-first view when the frontier is most of the level above,
    expanded from the CSR otherwise, in Python when the frontier is narrow)."""
    dead_after = _dead_after(dead_byte, flat_pair)
    small = _SmallLevels(trie, dead_byte, flat_pair)
    is_kept = np.zeros(trie.n_nodes, dtype=bool)
    is_kept[0] = True
    levels: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    frontier = np.zeros(1, dtype=np.int64)
    for depth in range(1, trie.level_offsets.size - 1):
        if frontier.size <= SMALL_LEVEL:
            level = small.level(frontier, depth)
        else:
            level = _level(trie, frontier, depth, dead_byte, dead_after, is_kept)
        if not level[0].size:
            break
        is_kept[level[0]] = True
        levels.append(level)
        frontier = level[0]
    return KeptLevels(*(tuple(column) for column in zip(*levels))) if levels else KeptLevels((), (), ())


def _level(trie: TokenTrie, frontier: np.ndarray, depth: int, dead_byte: np.ndarray | None,
           dead_after: np.ndarray | None, is_kept: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One wide level, vectorised: (its kept nodes, ascending; their parents; their bytes).

    Whether the level is read whole is judged from the frontier's share of the level above
    (whose children are this level), not from counting the frontier's children: that count
    cost two gathers over the frontier, ~2 ms a JSON Schema, for a choice that only moves time.
    """
    lo, hi = int(trie.level_offsets[depth]), int(trie.level_offsets[depth + 1])
    if frontier.size * DENSE_LEVEL > int(trie.level_offsets[depth]) - int(trie.level_offsets[depth - 1]):
        view = breadth_first(trie)  # most of the level: read it whole
        alive = is_kept[view.parent[lo:hi]]
        if dead_byte is not None:
            alive &= ~_dead_edges(view.byte[lo:hi], view.pair[lo:hi], depth, dead_byte, dead_after)
        kept = np.flatnonzero(alive)
        return view.node[lo:hi][kept], view.parent[lo:hi][kept], view.byte[lo:hi][kept]
    first = trie.child_offsets[frontier].astype(np.int64)
    owner, position = expand_runs(first, trie.child_offsets[frontier + 1] - first)
    nodes = trie.children[position].astype(np.int64)
    parent = frontier[owner].astype(np.intp)
    byte = trie.byte[nodes].astype(np.intp)
    if dead_byte is not None:
        alive = ~_dead_edges(byte, trie.byte[parent].astype(np.intp) * 256 + byte, depth, dead_byte, dead_after)
        nodes, parent, byte = nodes[alive], parent[alive], byte[alive]
    return nodes, parent, byte


def _dead_after(dead_byte: np.ndarray | None, flat_pair: np.ndarray | None) -> np.ndarray | None:
    """Bool per (parent byte x 256 + byte): the byte is dead, or dead after the parent's; one
    gather per edge below the first level instead of two (65,536 flags, made once a pruning)."""
    if dead_byte is None:
        return None
    dead = np.tile(np.asarray(dead_byte, dtype=bool), 256)
    return dead if flat_pair is None else dead | flat_pair


def _dead_edges(byte: np.ndarray, pair: np.ndarray, depth: int, dead_byte: np.ndarray,
                dead_after: np.ndarray | None) -> np.ndarray:
    """Bool per edge: its byte is dead, or (below the first level) dead after its parent's."""
    return dead_byte[byte] if depth == 1 else dead_after[pair]


class _SmallLevels:
    """Narrow levels in plain Python over memoryviews of the arrays.

    The deep levels of a Llama-3 trie are runs like ``----`` or ``....``, a few nodes each, and
    there are ~100 of them under a wide regex (email: 102 of 115 levels hold at most 64 nodes);
    the vectorised level's ~20 numpy calls then cost ~60 us for a handful of nodes.  Here a
    child costs a few memoryview reads (same class trie, checked on the 16 bench regexes).
    """

    def __init__(self, trie: TokenTrie, dead_byte: np.ndarray | None, flat_pair: np.ndarray | None):
        self.child_offsets = memoryview(np.ascontiguousarray(trie.child_offsets))
        self.children = memoryview(np.ascontiguousarray(trie.children))
        self.byte = memoryview(np.ascontiguousarray(trie.byte))
        self.dead_byte = None if dead_byte is None else memoryview(dead_byte.astype(np.uint8))
        self.dead_pair = None if flat_pair is None else memoryview(flat_pair.astype(np.uint8))

    def level(self, frontier: np.ndarray, depth: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Same as ``_level``, for a frontier of at most ``SMALL_LEVEL`` nodes."""
        kept: list[int] = []
        parents: list[int] = []
        bytes_: list[int] = []
        offsets, children, byte, dead_byte = self.child_offsets, self.children, self.byte, self.dead_byte
        dead_pair = self.dead_pair if depth > 1 else None
        for parent in frontier.tolist():
            parent_byte = byte[parent] * 256
            for position in range(offsets[parent], offsets[parent + 1]):
                node = children[position]
                b = byte[node]
                if dead_byte is not None and (dead_byte[b] or (dead_pair is not None and dead_pair[parent_byte + b])):
                    continue
                kept.append(node)
                parents.append(parent)
                bytes_.append(b)
        return np.array(kept, dtype=np.int64), np.array(parents, dtype=np.intp), np.array(bytes_, dtype=np.intp)


class _NarrowRun:
    """Consecutive narrow levels' keys kept as Python lists and turned into arrays once
    (``flush``): a regex whose classes admit long runs (email: ``----``, ``====``, ``____``) has
    ~100 narrow levels, and two small arrays per level cost more than the level's own work."""

    def __init__(self, parents: list, classes: list, by_class: list, counts: list, n_classes: int):
        self._out = (parents, classes, by_class, counts)
        self._n_classes = n_classes
        self._parents: list[int] = []
        self._classes: list[int] = []
        self._by_class: list[int] = []
        self._counts: list[int] = []

    def add(self, distinct_keys: list[int], positions_by_class: list[int], index: list[int]) -> None:
        """A level's sorted distinct keys, its nodes in key order, and each node's key index."""
        n = self._n_classes
        self._parents.extend(key // n for key in distinct_keys)
        self._classes.extend(key % n for key in distinct_keys)
        self._by_class.extend(positions_by_class)
        counts = [0] * len(distinct_keys)
        for k in index:
            counts[k] += 1
        self._counts.extend(counts)

    def flush(self) -> None:
        if not self._parents:
            return
        parents, classes, by_class, counts = self._out
        parents.append(np.array(self._parents, dtype=np.int64))
        classes.append(np.array(self._classes, dtype=np.int64))
        by_class.append(np.array(self._by_class, dtype=np.int64))
        counts.append(np.array(self._counts, dtype=np.int64))
        self._parents, self._classes, self._by_class, self._counts = [], [], [], []


def _number_keys(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(sorted distinct keys, index of each key among them, the keys' stable sort order):
    ``np.unique`` with ``return_inverse``, plus the order.  A narrow level uses a Python set."""
    if keys.size > SMALL_LEVEL:
        distinct, rank, order = _sorted_keys(keys)
        inverse = np.empty(keys.size, dtype=np.int64)
        inverse[order] = rank
        return distinct, inverse, order
    distinct, index, order = _ranked(keys.tolist())
    return (np.array(distinct, dtype=np.int64), np.array(index, dtype=np.int64),
            np.array(order, dtype=np.int64))


def _sorted_keys(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(sorted distinct keys, the rank among them of each key in sorted order, the keys' stable
    sort order), for non-negative int64 keys.

    The order groups the level's positions by class node for free (the class trie's tokens and
    byte nodes are read in that order).  Each key is packed with its position below it
    (``key << bits | position``, when that fits 63 bits: keys are parent class node x classes,
    ~2**26 at most for Llama-3) and the packed values sorted: a value sort, with no ties left
    to keep stable, is numpy's vectorised one (a 40k-key level: ~0.26 ms), where the argsort
    by two 16-bit radix passes (``arrays.stable_argsort``) took ~0.6 ms and a gather of the
    keys after it.  Wider keys take the radix passes.
    """
    if not keys.size:  # a wide frontier whose children are all dead
        return keys, np.zeros(0, np.int64), np.zeros(0, np.int64)
    base = int(keys.min())
    bits = max(1, (keys.size - 1).bit_length())
    if (int(keys.max()) - base) >> (62 - bits):
        order = stable_argsort(keys - base)
        ordered = keys[order]
    else:
        packed = np.sort(((keys - base) << bits) | np.arange(keys.size, dtype=np.int64))
        order = packed & ((1 << bits) - 1)
        ordered = (packed >> bits) + base
    starts = np.empty(ordered.size, dtype=bool)
    starts[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=starts[1:])
    return ordered[starts], np.cumsum(starts) - 1, order


def _ranked(keys: list[int]) -> tuple[list[int], list[int], list[int]]:
    """``_number_keys`` of a narrow level, in Python: (the sorted distinct keys, each key's
    index among them, the keys' stable sort order)."""
    distinct = sorted(set(keys))
    rank = {key: i for i, key in enumerate(distinct)}
    return distinct, [rank[key] for key in keys], sorted(range(len(keys)), key=keys.__getitem__)

"""The mask stage's driver: byte DFA + token trie -> MaskTable.

Order of work, each step its own module:
1. ``alphabet``: byte classes of the DFA, and the bytes dead in every state;
2. ``slices``: the token groups that wide self-loops accept at once;
   ``literals``: the states of long literals, muted out of the walk's classes;
   ``class_trie``: the token trie over the walk's classes, dead subtrees never entered;
3. ``first_step``: the walks' starts, each distinct first step of the states once, and
   (``equivalence``) once for all the states no string as deep as its node tells apart (on a
   crowded node: no string of the classes found below it);
   ``traverse``: the level-by-level frontier walk, in chunks of starts, in worker
   processes (joblib) only when the first chunk's time projects the rest past the pool's
   start-up (~1 s here, more than a whole small compile);
4. ``dedupe``: states with the same (accepting, slice, starts) share a mask;
   ``expand``: each distinct mask's token ids (text tokens, plus eos where it accepts): short
   ones a batch at a time, long ones flagged from ``SharedHits``' node counts;
5. ``token_sequences``: class sequences of the live tokens, for ``advance``.

Session 8, the 25 DFA-path MaskBench schemas at the compile-time median: the tables step
(masks, live tokens, class sequences, group numbers) ~39-40 -> ~33 ms (median of per-schema
min of 3, process time, in process, two interleaved runs), from ``SharedHits``, contents'
token counts by ``add.reduceat``, the live tokens' bytes selected by clearing the few others,
and keys placed in their rows from their origins alone (no binary search).

Session 9, the same 25 schemas, the class trie and walk stages (per-schema min of 5, process
time, memory reuse on as ``indexc compile`` runs, median over the schemas, two interleaved
runs against the tree before): class trie 40.2/37.4 -> 33.0/32.1 ms, walk 93.2/86.2 -> 68.4/67.0
ms, the two together 133.9/123.5 -> 100.9/99.7 ms.  From: the kept byte nodes of the class trie
shared by every schema (``class_trie.kept_levels``), ``arrays.unique_rows`` without elementwise
temporaries and the crowded groups' refinements run as one (``equivalence``), jump ranges
searched once a node (``loop_jumps.NodeRanges``), hits packed into their sort keys as they are
found (``traverse.Hits``), and chunks of 8,192 starts (one chunk a median schema).

Limits (``indexc.limits``): the state tables are checked against ``--max-memory`` first, a chunk
of starts whose frontier would outgrow a quarter of it is walked again in halves, and the
expanded masks' size is estimated from the hit sets (plus what is held: tables and hit sets) before a token id is
expanded; the time limit is checked after the classes and class trie, per chunk, level and mask.
"""

from __future__ import annotations

import os
import time
import warnings
from functools import cached_property
from typing import Callable

import numpy as np

from indexc import limits as compile_limits
from indexc.arrays import (expand_runs, offsets_of, ragged_groups, ragged_unique, run_positions, set_hashes,
                           sorted_unique)
from indexc.automaton.byte_dfa import ByteDFA
from indexc.masks.alphabet import ByteAlphabet, byte_alphabet, coarser_alphabet, dead_byte_pairs, dead_bytes
from indexc.masks.class_trie import build_class_trie
from indexc.masks.dedupe import MaskInterner
from indexc.masks.expand import HitExpander
from indexc.masks.first_step import FirstSteps, first_steps, root_starts
from indexc.masks.literals import muted_states
from indexc.masks.loop_jumps import loop_jumps
from indexc.masks.options import MaskOptions
from indexc.masks.slices import Slices, find_slices
from indexc.masks.table import MaskList, MaskTable, bitset_row
from indexc.masks.token_sequences import class_sequence_groups, class_sequences
from indexc.masks.traverse import Starts, WalkPlan, hit_sets_of_starts
from indexc.trie import TokenTrie
from indexc.vocab.model import Vocabulary

SMALL_MASK_TOKENS = 4_096  # masks of at most this many tokens are sorted lists, never a vocabulary-sized row
MAX_FRONTIER_PAIRS = 4_000_000  # triples in one frontier level of a chunk (~100 MB of arrays, worst case)
STARTS_PER_CHUNK = 8_192  # starts walked together: their hits sort on 32-bit keys (13 bits of start, 19 of node)
FRONTIER_BYTES_PER_PAIR = 64  # a triple and the step's temporaries (for the --max-memory estimate)


def compute_mask_table(
    dfa: ByteDFA,
    trie: TokenTrie,
    vocab: Vocabulary,
    options: MaskOptions = MaskOptions(),
    *,
    timings: dict | None = None,
) -> MaskTable:
    """Every state's allowed tokens under the exact semantics of DESIGN.md.

    ``timings``, when given, receives the time of each step; it is kept out of the table so
    that identical inputs give byte-identical artifacts.
    """
    timings = {} if timings is None else timings
    t0 = time.perf_counter()
    alphabet, slices, plan = _prepare(dfa, trie, options)
    timings["class_trie_ms"] = _ms_since(t0)  # with the alphabet and the slices

    t1 = time.perf_counter()
    steps, hits = _walk(plan, alphabet, np.arange(dfa.n_states, dtype=np.int64), options)
    timings["walk_ms"] = _ms_since(t1)

    t2 = time.perf_counter()
    masks, state_mask, interner, expander, rows = _distinct_masks(dfa, plan, slices, steps, hits, vocab)
    live = _live_tokens(expander, hits, slices, interner, vocab.size)
    offsets, data = class_sequences(vocab, live, alphabet.class_of_byte)
    groups = _group_numbers(plan, expander, trie, alphabet, live)
    coarse_groups = _coarse_group_numbers(plan, expander, live)
    timings["tables_ms"] = _ms_since(t2)

    stats = {
        "states": dfa.n_states,
        "classes": alphabet.n_classes,
        "walk_classes": int(plan.class_transitions.shape[1]),
        "class_trie_nodes": plan.class_trie.n_nodes,
        "pruned_tokens": plan.class_trie.pruned_tokens,
        "muted_states": int(plan.muted.sum()),
        "slices": slices.count,
        "slice_states": int((slices.slice_of_state >= 0).sum()),
        "unique_masks": len(masks),
        "live_tokens": int(live.size),
    }
    return MaskTable(
        byte_classes=alphabet.class_of_byte,
        class_transitions=alphabet.class_transitions,
        accepting=dfa.accepting.astype(bool),
        state_mask=state_mask,
        masks=masks,
        mask_rows=rows,
        live_tokens=live.astype(np.int32),
        token_class_offsets=offsets,
        token_class_data=data,
        token_groups=groups,
        coarse_token_groups=coarse_groups,
        stats=stats,
    )


def masks_of_states(dfa: ByteDFA, trie: TokenTrie, vocab: Vocabulary, origins: np.ndarray,
                    options: MaskOptions = MaskOptions()) -> tuple[MaskList, np.ndarray]:
    """The distinct masks of the states ``origins`` only, and each origin's mask id.

    For automata of which only a few states' masks are wanted (the boundary products of the
    grammar path: only the product states that start a pair): the others are walked through,
    never from.
    """
    alphabet, slices, plan = _prepare(dfa, trie, options)
    steps, hits = _walk(plan, alphabet, np.asarray(origins, dtype=np.int64), options)
    masks, mask_of_origin, _, _, _ = _distinct_masks(dfa, plan, slices, steps, hits, vocab)
    return masks, mask_of_origin


def _walk(plan: WalkPlan, alphabet: ByteAlphabet, origins: np.ndarray,
          options: MaskOptions) -> tuple[FirstSteps, "StartHits"]:
    """The origins' starts (shared first steps, loop regions, equivalent states, as the options
    say) and their hit sets."""
    if options.first_step_sharing:
        steps = first_steps(plan, origins, regions=options.loop_regions,
                            state_alphabet=alphabet if options.equivalent_starts else None)
    else:
        steps = root_starts(plan, origins)
    return steps, StartHits(_walk_all_starts(plan, steps, options) + [_csr(steps.fixed)])


def _prepare(dfa: ByteDFA, trie: TokenTrie, options: MaskOptions) -> tuple[ByteAlphabet, Slices, WalkPlan]:
    """Byte classes, slices and the walk plan (class trie and tables), within the limits."""
    compile_limits.check_memory(3 * dfa.transitions.nbytes, f"the tables of {dfa.n_states:,} states")  # DFA, classes, plan
    alphabet = byte_alphabet(dfa, merge=options.byte_classes)
    compile_limits.check_time("the byte classes")
    slices = find_slices(dfa, trie, min_tokens=options.min_slice_tokens) if options.slices else Slices.none(dfa.n_states)
    plan = _walk_plan(dfa, trie, alphabet, slices, options)
    compile_limits.check_time("the class trie")
    return alphabet, slices, plan


def _distinct_masks(dfa: ByteDFA, plan: WalkPlan, slices: Slices, steps: FirstSteps, hits: "StartHits",
                    vocab: Vocabulary) -> tuple[MaskList, np.ndarray, MaskInterner, HitExpander,
                                                dict[int, np.ndarray]]:
    """The distinct masks of the walked origins, in first-use order, each origin's mask id, and
    the bitset rows of the masks expanded as vocabulary-sized flags (``MaskTable.mask_rows``)."""
    interner, key_ids = _intern_keys(dfa, plan, steps, hits)
    expander = HitExpander(plan, vocab.size)
    held = 3 * dfa.transitions.nbytes + hits.nbytes
    tokens_per_content = hits.token_bounds(expander)
    compile_limits.check_memory(held + _mask_bytes(tokens_per_content, interner, slices, vocab.size),
                                f"{len(interner):,} masks")
    masks, mask_of_key, rows = _expand_masks(expander, hits, tokens_per_content, slices, interner, vocab)
    return masks, mask_of_key[key_ids].astype(np.int32), interner, expander, rows


def _intern_keys(dfa: ByteDFA, plan: WalkPlan, steps: FirstSteps, hits: "StartHits") -> tuple[MaskInterner, np.ndarray]:
    """Each origin's mask key (accepting, slice, its starts' content ids) interned in first-use
    order, and each origin's key id.

    The keys are built and grouped for all origins at once (one CSR row each, grouped exactly
    by ``arrays.ragged_unique``), then only each distinct key's first origin goes through the
    interner, so the ids are the ones a loop over the origins would give: that loop cost ~6 us
    an origin (BFCL_java_0: 1,298 states, 223 keys: ~7.8 -> ~3.7 ms CPU, median of 7).
    """
    origins = steps.origins
    content = hits.content_of_start[steps.ids]
    owner = np.repeat(np.arange(origins.size, dtype=np.int64), np.diff(steps.offsets))
    kept = content >= 0  # a start with no hits adds nothing to the key
    owner, content = owner[kept], content[kept]
    per_origin = np.bincount(owner, minlength=origins.size)
    row_offsets = offsets_of(per_origin + 2)
    rows = np.empty(int(row_offsets[-1]), dtype=np.int64)
    accepting = dfa.accepting[origins].astype(bool)
    slice_ids = plan.slice_of_state[origins].astype(np.int64)
    rows[row_offsets[:-1]] = accepting
    rows[row_offsets[:-1] + 1] = slice_ids
    # owner is sorted, so the k-th content lands after the (accepting, slice) pairs of its origin
    # and of every earlier one: row_offsets[owner] + 2 + its rank within its origin = k + 2 (owner + 1)
    rows[np.arange(owner.size, dtype=np.int64) + 2 * (owner + 1)] = content
    first, key_ids = ragged_unique(row_offsets, rows)
    interner = MaskInterner()
    for k in first.tolist():
        interner.add(rows[row_offsets[k] + 2:row_offsets[k + 1]], bool(accepting[k]), int(slice_ids[k]))
    return interner, key_ids


def _group_numbers(plan: WalkPlan, expander: HitExpander, trie: TokenTrie, alphabet: ByteAlphabet,
                   live: np.ndarray) -> Callable[[], np.ndarray]:
    """What tells the writer which live tokens share a class sequence (and so a row).

    Without muting the walk's classes are the alphabet's (or single bytes), so the class-trie
    node a token ends at numbers its sequence, for free; otherwise (or for a token a slice
    added) a pass over the byte trie numbers them, run only if the writer asks.
    """
    nodes = None if plan.muted.any() else expander.class_nodes_of(live)
    if nodes is not None and (not nodes.size or int(nodes.max()) < plan.class_trie.n_nodes):
        return lambda: nodes
    return lambda: class_sequence_groups(trie, alphabet.class_of_byte, live)


def _coarse_group_numbers(plan: WalkPlan, expander: HitExpander,
                          live: np.ndarray) -> Callable[[], np.ndarray] | None:
    """With muting, the class-trie node a live token ends at (-1: none), on demand: the walk's
    classes merge bytes only muted states tell apart, so equal class sequences end at one node
    (not conversely).  ``MaskTable.coarse_token_groups``: the writer's floor under the shared
    layout, which spares most JSON Schemas ``_group_numbers``' pass over the trie.  Without
    muting the exact numbers are free and this is not needed."""
    if not plan.muted.any():
        return None
    n_nodes = plan.class_trie.n_nodes

    def coarse() -> np.ndarray:
        nodes = expander.class_nodes_of(live)
        return np.where(nodes < n_nodes, nodes, -1)

    return coarse


def _walk_plan(dfa: ByteDFA, trie: TokenTrie, alphabet: ByteAlphabet, slices: Slices, options: MaskOptions) -> WalkPlan:
    """The walk's alphabet (muted rows left out), class trie, and tables."""
    muted = muted_states(dfa, options.min_literal_length if options.mute_literals else 0)
    if not (options.token_classes and options.byte_classes):
        # Token classes are sequences of byte classes: without either, the class trie is the
        # byte trie (one class per byte), and there is nothing for muting to merge.
        walk_alphabet = byte_alphabet(dfa, merge=False)
        muted = np.zeros(dfa.n_states, dtype=bool)
    elif muted.any():
        walk_alphabet = coarser_alphabet(alphabet, ~muted)
    else:
        walk_alphabet = alphabet
    class_trie = build_class_trie(
        trie, walk_alphabet.class_of_byte, walk_alphabet.n_classes, dead_bytes(dfa), dead_byte_pairs(alphabet),
        prune_dead=options.dead_byte_pruning, with_byte_nodes=bool(muted.any()),
    )
    # The walk reads the tables flat (``reshape(-1)`` each level): a strided table would be
    # copied at every level (a boundary product's 24,395 x 256 byte table: 7 s of kb_684).
    class_transitions = np.ascontiguousarray(walk_alphabet.class_transitions)
    jumps = None
    if options.loop_regions and options.first_step_sharing and not (slices.slice_of_state >= 0).any():
        jumps = loop_jumps(class_trie, class_transitions, muted)
    return WalkPlan(class_trie, class_transitions, trie, np.ascontiguousarray(dfa.transitions), muted,
                    slices.slice_of_state, jumps, walk_alphabet.class_of_byte)


def _walk_all_starts(plan: WalkPlan, steps: FirstSteps, options: MaskOptions) -> list[tuple]:
    """Hit sets of every start, per chunk of starts (offsets, nodes, hashes), walking the chunks
    here or in worker processes, only when it pays.

    Chunks are walked here until the walk has taken ``parallel_min_seconds``; what is left then
    goes to ``jobs`` joblib workers, so a walk shorter than that never pays for starting
    processes (1-2 s here, with shipping the plan) and a long one uses every core.  Projecting
    the whole walk from its first chunk did not work: chunks are cut by count (then: by a
    memory bound), not by time (the RFC grammar's boundary masks: a first chunk of 1,443 starts
    in 0.5 s, then eight of ~92 starts in 12-40 ms each, projected at 4.1 s, and its compile went
    from 2.7 to 5.0 s).
    """
    # One start's frontier holds at most one level of the trie: that must fit.  Chunks are then
    # cut by count, and a chunk whose frontier would outgrow the pair budget is walked again in
    # halves (``traverse.hit_sets_of_starts``).
    widest = plan.class_trie.max_level_width
    if plan.muted.any():  # paths through a literal continue on the byte trie
        widest = max(widest, int(np.diff(plan.byte_trie.level_offsets).max()))
    compile_limits.check_memory(widest * FRONTIER_BYTES_PER_PAIR, "the walk's frontier (one state at a time)")
    pairs = min(MAX_FRONTIER_PAIRS, compile_limits.current().limits.max_memory // 4 // FRONTIER_BYTES_PER_PAIR)
    chunks = _chunks(len(steps.starts), min(STARTS_PER_CHUNK, options.states_per_chunk))
    if not chunks:
        return []
    jobs = options.jobs if options.jobs > 0 else (os.cpu_count() or 1)
    results = []
    started = time.perf_counter()
    for position, chunk in enumerate(chunks):
        left = chunks[position:]
        if jobs > 1 and len(left) > 1 and time.perf_counter() - started >= options.parallel_min_seconds:
            results += _walk_in_workers(plan, steps, left, min(jobs, len(left)), pairs)
            break
        compile_limits.check_time("the walk")
        results.append(hit_sets_of_starts(plan, steps.starts, chunk, pairs))
    return results


def _chunks(n_starts: int, most: int) -> list[np.ndarray]:
    """The starts in consecutive runs of at most ``most``."""
    return [np.arange(lo, min(lo + most, n_starts)) for lo in range(0, n_starts, most)]


def _walk_in_workers(plan: WalkPlan, steps: FirstSteps, chunks: list[np.ndarray], jobs: int, pairs: int) -> list:
    """The chunks' hit sets from joblib workers, in order, under the compile's time limit."""
    from multiprocessing import TimeoutError as WorkerTimeout  # what joblib raises

    from joblib import Parallel, delayed

    guard = compile_limits.current()  # workers do not see it: bounded by joblib's timeout and here
    results = []
    try:
        with warnings.catch_warnings():  # joblib warns of the tasks it cancels when the limit stops it
            warnings.filterwarnings("ignore", message=".*(successfully executed|have been cancelled)")
            walked = Parallel(n_jobs=jobs, return_as="generator", timeout=guard.remaining_seconds())(
                delayed(hit_sets_of_starts)(plan, steps.starts, chunk, pairs) for chunk in chunks)
            try:
                for chunk_result in walked:
                    guard.check_time("the walk")
                    results.append(chunk_result)
            finally:
                walked.close()  # cancels what is left, inside the warning filter
    except WorkerTimeout:
        raise guard.time_out("the walk (worker processes)") from None
    return results


def _csr(hit_sets: tuple[np.ndarray, ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Hit sets as one chunk (offsets, int32 nodes, hashes), the form the walk returns."""
    offsets = np.zeros(len(hit_sets) + 1, dtype=np.int64)
    np.cumsum([hits.size for hits in hit_sets], out=offsets[1:])
    nodes = (np.concatenate(hit_sets) if hit_sets else np.zeros(0, np.int64)).astype(np.int32)
    return offsets, nodes, set_hashes(offsets, nodes)


class StartHits:
    """The distinct hit sets of the walk's starts ("contents"); a state's hit set is its starts'
    contents end to end, so its content ids are the exact key of its hit set.

    Built from the walk's chunks in a few vectorised calls: the sets' hashes come with the
    chunks, so equal sets are found by grouping hashes and comparing only the sets that have
    an earlier twin (``arrays.ragged_groups``), with no temporary the size of all the hits
    (a 12,940-state schema, MaskBench o42810, had 95M of them, 16M since ``equivalence``
    merges starts: 3,382 distinct sets among 18,147 starts, compared in ~0.2 s).
    """

    def __init__(self, chunks: list[tuple[np.ndarray, np.ndarray, np.ndarray]]):
        lengths = np.concatenate([np.diff(offsets) for offsets, _, _ in chunks]) if chunks else np.zeros(0, np.int64)
        self._nodes = np.concatenate([nodes for _, nodes, _ in chunks]) if chunks else np.zeros(0, np.int32)
        hashes = np.concatenate([h for _, _, h in chunks]) if chunks else np.zeros(0, np.uint64)
        self._offsets = offsets_of(lengths)
        first, group = ragged_groups(self._offsets, self._nodes, hashes)
        empty = lengths == 0
        rank = np.cumsum(~empty[first]) - 1  # content ids skip the empty set
        self.content_of_start = np.where(empty, -1, rank[group])  # -1: no hits below the start
        self._first = first[~empty[first]]  # the start holding each content
        self.nbytes = int(self._nodes.nbytes)

    def __len__(self) -> int:
        return int(self._first.size)

    def of(self, key: np.ndarray) -> np.ndarray:
        """The hit set of a state with this key (disjoint subtrees: a concatenation), gathered
        in one go: keys run to hundreds of contents since tall steps are split (o42810: 136 on
        average, 0.2 s as one slice per content)."""
        held_by = self._first[key]
        lo = self._offsets[held_by]
        return self._nodes[run_positions(lo, self._offsets[held_by + 1] - lo)].astype(np.int64)

    def of_many(self, keys: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """The hit sets of several keys end to end: (index of the key each node is for, the nodes)."""
        contents = np.concatenate(keys) if keys else np.zeros(0, np.int64)
        key_of_content = np.repeat(np.arange(len(keys), dtype=np.int64), [key.size for key in keys])
        held_by = self._first[contents]
        lo = self._offsets[held_by]
        content, position = expand_runs(lo, self._offsets[held_by + 1] - lo)
        return key_of_content[content], self._nodes[position].astype(np.int64)

    @cached_property
    def _content_nodes(self) -> np.ndarray:
        """Every distinct content's int32 nodes end to end (at most the size of all the hits),
        gathered at once: a slice per content cost ~1 us each, thousands of them."""
        return self._nodes[run_positions(self._offsets[self._first], self.content_sizes)]

    @cached_property
    def content_sizes(self) -> np.ndarray:
        """int64 per content: its nodes."""
        return self._offsets[self._first + 1] - self._offsets[self._first]

    def token_bounds(self, expander: HitExpander) -> np.ndarray:
        """Tokens ended by each content's nodes."""
        if not len(self):
            return np.zeros(0, np.int64)
        starts = offsets_of(self.content_sizes)[:-1]  # contents are never empty
        return np.add.reduceat(expander.tokens_at(self._content_nodes), starts)

    def mark_all(self, expander: HitExpander, flags: np.ndarray) -> None:
        """Flag every token some start reaches: the union of the distinct contents (node flags,
        no sort), not of every start's hits (JME_41: 798k hits, 8,927 starts, 1,520 contents)."""
        expander.mark_union(self._content_nodes, flags)


class SharedHits:
    """The hit sets of the long masks, which share most of their contents: each one's nodes
    counted from a similar mask's counts, plus the contents it adds, less those it drops.

    A JSON Schema's ~18 long masks (the insides of strings) hold ~1,050 contents, ~75k nodes
    each, and come in a few families whose members differ by ~100 contents: gathering each
    one's nodes and flagging them cost ~0.85 ms a mask.  Here a few node counts (with
    repeats: contents may share nodes) are kept, each with the contents it counts; a mask
    starts from the one that differs least from it (or from nothing, if that is cheaper) and
    its nodes are those counted at least once.  Exact whichever count it starts from.

    Nodes are numbered in one row of *slots*: class nodes as they are, then (after the
    ``n_class_nodes`` slot, which no node takes: ``HitExpander``'s owner of no token) the byte
    nodes among the contents, by rank in ``byte_nodes``.
    """

    KEPT_COUNTS = 4  # node counts kept (one per family of masks, the least recently used dropped)

    def __init__(self, hits: StartHits, keys: list[np.ndarray], n_class_nodes: int):
        self._hits = hits
        self._n_class_nodes = n_class_nodes
        nodes = hits.of(sorted_unique(np.concatenate(keys)))
        self.byte_nodes = sorted_unique(-1 - nodes[nodes < 0])  # int64, few: paths through literals
        self._width = n_class_nodes + 1 + self.byte_nodes.size
        # (bool per content: counted, int64 count per slot, the class nodes' token flags)
        self._kept: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []

    def _slots(self, nodes: np.ndarray) -> np.ndarray:
        if not self.byte_nodes.size:
            return nodes
        return np.where(nodes >= 0, nodes, self._n_class_nodes + 1 + np.searchsorted(self.byte_nodes, -1 - nodes))

    def token_flags(self, key: np.ndarray, expander: HitExpander) -> np.ndarray:
        """A new vocabulary-sized flag row of the tokens of the key's nodes.  From a kept count
        whose flags are kept too, only the tokens of the class nodes whose presence flipped are
        set or cleared (~100 contents' nodes, not a 128k gather and a pass over every slot)."""
        wanted, counts, since = self._recount(key)
        n = self._n_class_nodes
        if since is None:
            flags = expander.class_node_flags(counts > 0)
        else:
            flags, touched, was = since
            now = counts[touched] > 0
            on_class = touched < n
            expander.set_class_nodes(flags, touched[on_class & now & ~was], True)
            expander.set_class_nodes(flags, touched[on_class & was & ~now], False)
        self._kept.append((wanted, counts, flags))
        row = flags.copy()
        expander.mark_byte_nodes(row, self.byte_nodes[np.flatnonzero(counts[n + 1:])])
        return row

    def _recount(self, key: np.ndarray) -> tuple[np.ndarray, np.ndarray, tuple | None]:
        """(bool per content: the key's, its node counts, and when counted from a kept count (taken
        out of the kept ones): that count's token flags, the slots changed and whether each was
        present before); the caller keeps the new count."""
        wanted = np.zeros(len(self._hits), dtype=bool)
        wanted[key] = True
        sizes = self._hits.content_sizes
        best, cheapest = -1, int(sizes[wanted].sum())
        for i, (held, _, _) in enumerate(self._kept):
            cost = int(sizes[held ^ wanted].sum())
            if cost < cheapest:
                best, cheapest = i, cost
        if best < 0:
            if len(self._kept) == self.KEPT_COUNTS:
                self._kept.pop(0)
            return wanted, np.bincount(self._slots(self._hits.of(np.flatnonzero(wanted))), minlength=self._width), None
        held, counts, flags = self._kept.pop(best)
        added = self._slots(self._hits.of(np.flatnonzero(wanted & ~held)))
        dropped = self._slots(self._hits.of(np.flatnonzero(held & ~wanted)))
        touched = np.concatenate((added, dropped))
        was = counts[touched] > 0
        np.add.at(counts, added, 1)
        np.subtract.at(counts, dropped, 1)
        return wanted, counts, (flags, touched, was)


def _expand_masks(expander: HitExpander, hits: StartHits, tokens_per_content: np.ndarray, slices: Slices,
                  interner: MaskInterner, vocab: Vocabulary):
    """Sorted token ids of each distinct mask: a short one as a sorted list of its tokens; a
    long one as its slice's flag row with its hits marked (no sort, no vocabulary-sized list).

    Returns the masks and, per interned key, its mask id: two keys can spell the same tokens
    (different first steps that allow the same tokens, or a literal reached in class mode by
    one and in byte mode by the other), so masks are deduplicated once more on their ids.
    """
    eos = np.array(sorted(set(vocab.eos_ids)), dtype=np.int64)
    slice_rows = [_flag_row(vocab.size, tokens) for tokens in slices.tokens]
    # The token count is exact (each token ends at one node, the parts are disjoint), so
    # equal masks take the same branch and meet under the same kind of key.
    counts = [int(tokens_per_content[key].sum()) + (slices.tokens[slice_id].size if slice_id >= 0 else 0)
              + (eos.size if accepting else 0)
              for key, accepting, slice_id in zip(interner.keys, interner.accepting, interner.slice_ids)]
    chosen = [k for k, count in enumerate(counts) if count <= SMALL_MASK_TOKENS]
    short = _short_masks(expander, hits, slices, interner, eos, chosen, [counts[k] for k in chosen], vocab.size)
    long = [interner.keys[k] for k, count in enumerate(counts) if count > SMALL_MASK_TOKENS]
    shared = SharedHits(hits, long, expander.plan.class_trie.n_nodes) if long else None
    masks: list[np.ndarray | None] = []  # None: the mask's row (``rows``) holds it
    sizes: list[int] = []
    rows: dict[int, np.ndarray] = {}
    ids_of: dict[bytes, int] = {}
    mask_of_key = np.empty(len(interner), dtype=np.int64)
    for k, (key, accepting, slice_id) in enumerate(zip(interner.keys, interner.accepting, interner.slice_ids)):
        compile_limits.check_time("mask expansion")
        ids = short.get(k)
        if ids is not None:  # a short list, sorted: no vocabulary-sized row
            dedupe_key = b"ids" + ids.tobytes()
        else:
            flags = shared.token_flags(key, expander)
            if slice_id >= 0:
                flags |= slice_rows[slice_id]
            if accepting:
                flags[eos] = True
            row = bitset_row(flags)
            dedupe_key = b"row" + row.tobytes()  # 16 KB for 128k ids: cheaper to hash than the ids
        mask_of_key[k] = ids_of.setdefault(dedupe_key, len(masks))
        if mask_of_key[k] == len(masks):
            if ids is None:
                rows[len(masks)] = row
            masks.append(ids)
            sizes.append(ids.size if ids is not None else int(np.count_nonzero(flags)))
    return MaskList(masks, rows, np.array(sizes, dtype=np.int64), vocab.size), mask_of_key, rows


SHORT_BATCH_TOKENS = 1 << 20  # token ids of short masks sorted in one pass (~16 MB of temporaries)


def _short_masks(expander: HitExpander, hits: StartHits, slices: Slices, interner: MaskInterner, eos: np.ndarray,
                 chosen: list[int], sizes: list[int], vocab_size: int) -> dict[int, np.ndarray]:
    """The sorted int32 token ids of the short masks ``chosen`` (key indices), by key index.

    A batch of masks at a time (up to ``SHORT_BATCH_TOKENS`` ids): their hit sets' tokens,
    slice tokens and eos ids tagged with the mask's place in the batch, one sort of
    (place x vocabulary + token), neighbours compared, cut at the places.  The loop it replaced
    made ~10 numpy calls per mask (~95 us each: 173 short masks of JME_41, ~16 ms).
    """
    short: dict[int, np.ndarray] = {}
    for batch in _short_batches(chosen, sizes):
        place, nodes = hits.of_many([interner.keys[k] for k in batch])
        tagged = [expander.tagged_tokens(place, nodes)]
        for i, k in enumerate(batch):
            slice_id = interner.slice_ids[k]
            extra = [slices.tokens[slice_id]] if slice_id >= 0 else []
            extra += [eos] if interner.accepting[k] else []
            tagged += [i * vocab_size + part.astype(np.int64) for part in extra]
        ordered = sorted_unique(np.concatenate(tagged)) if tagged else np.zeros(0, np.int64)
        place_of, token = np.divmod(ordered, vocab_size)
        bounds = np.searchsorted(place_of, np.arange(len(batch) + 1))
        token = token.astype(np.int32)
        for i, k in enumerate(batch):
            short[k] = token[bounds[i]:bounds[i + 1]].copy()
    return short


def _short_batches(chosen: list[int], sizes: list[int]) -> list[list[int]]:
    """``chosen`` cut into consecutive runs of at most ``SHORT_BATCH_TOKENS`` tokens (one mask at least)."""
    batches: list[list[int]] = []
    total = 0
    for k, size in zip(chosen, sizes):
        if not batches or total + size > SHORT_BATCH_TOKENS:
            batches.append([])
            total = 0
        batches[-1].append(k)
        total += size
    return batches


def _mask_bytes(tokens_per_content: np.ndarray, interner: MaskInterner, slices: Slices, vocab_size: int) -> int:
    """Bytes the expanded masks will take, from the contents' token counts (ids at 4 bytes, a key each)."""
    tokens = np.array([int(tokens_per_content[key].sum()) for key in interner.keys], dtype=np.int64)
    tokens = np.minimum(tokens, vocab_size)
    tokens += [slices.tokens[s].size if s >= 0 else 0 for s in interner.slice_ids]
    return int(tokens.sum()) * 4 + len(interner) * (vocab_size // 8 + 64) + 2 * vocab_size


def _flag_row(size: int, tokens: np.ndarray) -> np.ndarray:
    flags = np.zeros(size, dtype=bool)
    flags[tokens] = True
    return flags


def _live_tokens(expander: HitExpander, hits: StartHits, slices: Slices, interner: MaskInterner,
                 vocab_size: int) -> np.ndarray:
    """Sorted ids of the text tokens in at least one mask (the ones ``advance`` can take)."""
    if not len(interner):
        return np.zeros(0, np.int32)
    flags = np.zeros(vocab_size, dtype=bool)
    hits.mark_all(expander, flags)
    for slice_id in set(interner.slice_ids) - {-1}:
        flags[slices.tokens[slice_id]] = True
    return np.flatnonzero(flags).astype(np.int32)


def _ms_since(start: float) -> float:
    return round((time.perf_counter() - start) * 1000.0, 3)

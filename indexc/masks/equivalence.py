"""Walk-equivalent states: starts bound to find the same hits are walked once.

A walk from (state s, node n) can only go as deep as n's subtree, ``height(n)`` levels: it
reads nothing but strings of at most that many classes.  So two states that no string of
``k`` classes or fewer tells apart (the same liveness along the way, and the same *muted* flag
at every step, since a muted state moves the walk to the byte trie) give the same hit set
below any node of height ``k`` or less: call them *k-equivalent*.  ``first_step`` numbers a
start by its state's k-equivalence block (k = its node's height), so such starts are one
start, walked once from any of the states.

k-equivalence is the classic partition refinement cut at depth k: block_0 = muted or not
(the dead state is a block of its own), and s, t are (k + 1)-equivalent iff they are
k-equivalent and every class takes them to k-equivalent states.  Rounds stop at the highest
height asked for, or as soon as a round splits nothing (the partition is then final).

A round re-examines only the states it can split: the predecessors of the states that left
their block in the round before (their block number changed).  The others keep their
block: their successors' numbers did not change, so their rows are the rows that put them
together.  A counter's blocks split one or two at a time, so a round touches a few states,
where a full round (``arrays.unique_rows`` over every state's row) cost 10-20 ms: 127 of
them were 2.4 s of the bench's unicode_words regex (18,541 states x 95 classes).

Why it pays: a JSON Schema DFA counts (bounded strings, bounded arrays, the keys left to
write), and the states of a counter far from its bound all look alike to tokens of a dozen
bytes.  The walk started them one by one, and found equal hit sets again and again, then
compared them element by element to dedupe them.  Measured on MaskBench Github_medium o42810
(12,940 states, Llama-3): 171,419 walk starts -> 18,147, hits 95M -> 16M, walk 17.4 -> 3.2 s,
for ~0.1 s of refinement (128 rounds).  Only the grouping changes: each merged start's hit
set is exactly the one it had, so masks and artifacts are byte-identical.  The height
bounds the depth, not the paths: those 18,147 starts held only 3,382 distinct hit sets, most
of the rest below tall nodes, which ``first_step`` therefore splits (``SPLIT_HEIGHT``).

``equivalent_within`` asks the same question over a subset of the classes: the ones found
below a trie node, for the starts on it (``first_step``).  A walk from the node reads no other
class, so states that only another class tells apart (two string bodies that differ after the
closing quote, below a node with only letters under it) give the same hit set.  It refines
locally, over the states those classes reach from the starts, since with a few classes (a
string body's letters loop) that is a handful of rows.  Exactness: the hit set of a start is
decided by the (dead, muted) flags along the class paths below its node; a path in byte mode
(after a muted state) reads bytes whose classes are among those found below the node, or it
holds a pruned token, which dies wherever it started.

``equivalent_within_groups`` asks many such questions in one refinement (``first_step``'s
~30 crowded groups a JSON Schema): each query's states are copies of their own, so the
partitions are the ones asked alone, and a query leaves the rounds when it is final.  Session 9,
25 median MaskBench schemas (process time, min of 3, interleaved): ``first_step``'s crowded-node
merge ~16-20 -> ~12.5-14.5 ms a schema, one refinement instead of ~30 of ~3 rounds each.

Not done with slices on: a slice path's hits depend on the state it loops at, not on its
block only (``first_step`` then numbers starts by their own state).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from indexc import limits as compile_limits
from indexc.arrays import (expand_runs, groups_by_first_appearance, in_first_appearance_order, sorted_unique,
                           stable_argsort, unique_rows)


def equivalent_states(transitions: np.ndarray, muted: np.ndarray, states: np.ndarray,
                      depths: np.ndarray) -> np.ndarray:
    """For each query (``states[i]``, ``depths[i]``): a number shared by exactly the states
    ``depths[i]``-equivalent to ``states[i]`` (see the module note); numbers of queries of
    different depths are not comparable.

    ``transitions``: int (n_states, n_classes), -1 for the dead state, over classes that are
    exact for *every* state (the full alphabet's, not the walk's, whose muted rows are unused).
    """
    answers = np.empty(states.size, dtype=np.int64)
    if not states.size:
        return answers
    order = stable_argsort(depths)
    bounds = np.searchsorted(depths[order], np.arange(int(depths.max()) + 2))
    refinement = _Refinement(transitions, muted)
    for depth in range(bounds.size - 1):
        asked = order[bounds[depth]:bounds[depth + 1]]
        answers[asked] = refinement.block[states[asked]]
        if bounds[depth + 1] == states.size:
            break
        compile_limits.check_time("the walk's equivalent states")
        if not refinement.split():  # the partition is final: it holds at every depth from here
            rest = order[bounds[depth + 1]:]
            answers[rest] = refinement.block[states[rest]]
            break
    return answers


class _Refinement:
    """The blocks of the current round, and the states that left their block in the last one."""

    def __init__(self, transitions: np.ndarray, muted: np.ndarray):
        self.transitions = transitions
        n_states = transitions.shape[0]
        # Block numbers, with one more entry: the dead state (-1 in the table) reads the last, -1.
        # A split's new blocks take new numbers, never reused: at most one per state, ever.
        self._with_dead = np.append(muted.astype(np.int64), -1)
        self.block = self._with_dead[:-1]
        self.size = np.zeros(n_states + 2, dtype=np.int64)
        self.size[:2] = np.bincount(self.block, minlength=2)
        self.n_numbers = 2
        self.changed: np.ndarray | None = None  # None: every state is to be examined (round 1)
        self._predecessors: tuple[np.ndarray, np.ndarray] | None = None

    def split(self) -> bool:
        """One round: split the blocks of the examined states by their rows; False if none split."""
        examined = self._examined()
        old = self.block[examined]
        # ``take`` twice: fancy indexing by an int32 table's rows cost ~2.5x as long (~600 x 58 rows: ~105 -> ~45 us)
        successors = np.take(self._with_dead, np.take(self.transitions, examined, axis=0))
        first, group = in_first_appearance_order(*unique_rows(np.column_stack([old, successors])))  # by first state
        # A block with an unexamined member keeps its number for those (they were not split);
        # otherwise its first group keeps it.  Every other group takes a new number.
        owner = old[first]
        first_of_owner, owner_rank = groups_by_first_appearance(owner)
        examined_in = np.bincount(owner_rank[group], minlength=first_of_owner.size)
        keeps = np.zeros(first.size, dtype=bool)
        keeps[first_of_owner] = examined_in == self.size[owner[first_of_owner]]
        fresh = np.flatnonzero(~keeps)
        number = owner.copy()
        number[fresh] = self.n_numbers + np.arange(fresh.size)
        self.n_numbers += fresh.size
        new = number[group]
        moved = new != old
        self.changed = examined[moved]
        np.subtract.at(self.size, old[moved], 1)
        np.add.at(self.size, new[moved], 1)
        self.block[self.changed] = new[moved]
        return bool(self.changed.size)

    def _examined(self) -> np.ndarray:
        """The states whose rows may have changed: all in round 1, then the predecessors of the
        states that changed block."""
        if self.changed is None:
            return np.arange(self.block.size, dtype=np.int64)
        offsets, predecessors = self._predecessor_csr()
        lo = offsets[self.changed]
        _, position = expand_runs(lo, offsets[self.changed + 1] - lo)
        return sorted_unique(predecessors[position])

    def _predecessor_csr(self) -> tuple[np.ndarray, np.ndarray]:
        """(offsets, states) of each state's predecessors, built on first use (not if round 1
        settles everything)."""
        if self._predecessors is None:
            n_states, n_classes = self.transitions.shape
            target = self.transitions.reshape(-1)
            live = np.flatnonzero(target >= 0)
            by_target = stable_argsort(target[live])
            predecessors = live[by_target] // n_classes
            offsets = np.searchsorted(target[live][by_target], np.arange(n_states + 1))
            self._predecessors = offsets, predecessors
        return self._predecessors


def equivalent_within(transitions: np.ndarray, muted: np.ndarray, states: np.ndarray, depths: np.ndarray,
                      columns: np.ndarray, most_states: int | None = None) -> np.ndarray | None:
    """For each query (``states[i]``, ``depths[i]``): a number shared only by states that no string
    of at most ``depths[i]`` classes *from* ``columns`` tells apart (``first_step``: the classes
    found below trie nodes); numbers of queries of different depths are not comparable.

    A local refinement: only the states such strings reach from ``states`` have rows that matter,
    a few where the classes are a string body's (letters loop); a state reached beyond them is
    given a block of its own, which can only split more, never wrongly merge.  None if those
    states are more than ``most_states``: the rounds cost in proportion to them.
    """
    return equivalent_within_groups(transitions, muted, [WithinQuery(states, depths, columns, most_states)])[0]


@dataclass(frozen=True)
class WithinQuery:
    """One ``equivalent_within`` question: its states, their depths, the classes, the bound."""

    states: np.ndarray  # int64
    depths: np.ndarray  # int64, one per state
    columns: np.ndarray  # int64: the classes strings are made of
    most_states: int | None = None


GROUP_CELLS = 1 << 20  # groups x states of one batch: its flags and positions (~9 MB)


def equivalent_within_groups(transitions: np.ndarray, muted: np.ndarray,
                             queries: list[WithinQuery]) -> list[np.ndarray | None]:
    """``equivalent_within`` of several queries, refined together: each one's states are copies
    of their own (a *pair* (query, state) per state it reaches) that start in blocks of their
    own, so no two queries' blocks ever merge and each query's partition is the one it would get
    alone; numbers of different queries are not comparable.

    Why together: ``first_step`` asks ~30 of these a JSON Schema, each ~145 states over ~18
    classes for ~3 rounds, where the ~100 numpy calls of a query cost more than its data
    (~9 -> ~3 ms a schema asked at once).  The queries' column lists are padded to one width
    by repeating their first column (a repeated column tells nothing apart); a query with no
    column reads every target as dead (nothing after the start tells its states apart).
    """
    results: list[np.ndarray | None] = [None] * len(queries)
    per_batch = max(1, GROUP_CELLS // max(1, transitions.shape[0]))
    for lo in range(0, len(queries), per_batch):
        batch = queries[lo:lo + per_batch]
        results[lo:lo + len(batch)] = _Pairs(transitions, batch).answers(muted, batch)
    return results


class _Pairs:
    """The (query, state) pairs reached by a batch of queries, numbered ``query * n_states + state``."""

    def __init__(self, transitions: np.ndarray, queries: list[WithinQuery]):
        self.flat = np.ascontiguousarray(transitions).reshape(-1)
        self.n_states, self.width = transitions.shape
        columns = [query.columns if query.columns.size else np.zeros(1, np.int64) for query in queries]
        padded = max(column.size for column in columns)
        self.columns = np.array([np.resize(column, padded) for column in columns], dtype=np.int64)
        self.no_columns = np.array([not query.columns.size for query in queries], dtype=bool)
        self.kept, self.failed = self._reach(queries)  # bool per pair: reached, by a query that did not fail
        self.reached = np.flatnonzero(self.kept)  # sorted pairs
        self.position = np.cumsum(self.kept) - 1  # of a kept pair in ``reached``

    def targets(self, pairs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(query of each pair, int64 (pairs, padded columns): its state's targets, -1 dead)."""
        query = pairs // self.n_states
        state = pairs - query * self.n_states
        targets = self.flat[(state * self.width)[:, None] + self.columns[query]].astype(np.int64)
        if self.no_columns.any():
            targets[self.no_columns[query]] = -1
        return query, targets

    def _reach(self, queries: list[WithinQuery]) -> tuple[np.ndarray, np.ndarray]:
        """(bool per pair: within its query's depth of the query's states, bool per query: it
        reached more than its ``most_states``; its pairs are then left out)."""
        n = self.n_states
        depth_of = np.array([int(q.depths.max()) if q.depths.size else 0 for q in queries], dtype=np.int64)
        most = np.array([n + 1 if q.most_states is None else q.most_states for q in queries], dtype=np.int64)
        seen = np.zeros(len(queries) * n, dtype=bool)
        frontier = sorted_unique(np.concatenate([k * n + q.states for k, q in enumerate(queries)]))
        seen[frontier] = True
        count = np.bincount(frontier // n, minlength=len(queries))
        failed = np.zeros(len(queries), dtype=bool)  # judged when a step reaches new states, as one query alone
        for step in range(int(depth_of.max(initial=0))):
            frontier = frontier[~failed[frontier // n] & (depth_of[frontier // n] > step)]
            if not frontier.size:
                break
            query, targets = self.targets(frontier)
            pairs = (query[:, None] * n + targets)[targets >= 0]
            frontier = sorted_unique(pairs[~seen[pairs]])
            seen[frontier] = True
            grown = np.bincount(frontier // n, minlength=len(queries))
            count += grown
            failed |= (grown > 0) & (count > most)
        seen &= np.repeat(~failed, n)
        return seen, failed

    def answers(self, muted: np.ndarray, queries: list[WithinQuery]) -> list[np.ndarray | None]:
        """Each query's numbers (None where it failed), from rounds over the reached pairs of the
        queries still refining: a query leaves once a round splits none of its blocks (then final)
        or its deepest state is answered, so the rounds do not all run as long as the longest."""
        reached, n_pairs, n = self.reached, self.reached.size, self.n_states
        query, targets = self.targets(reached)
        live = targets >= 0
        pairs = np.where(live, query[:, None] * n + targets, 0)
        known = live & self.kept[pairs]
        index = self.position[pairs]
        # A target: its block among the pairs (``n_pairs`` + block, filled per round), the dead state
        # -1, or a state outside the reached ones (-2 - state: a block of its own).
        outside = np.where(targets >= 0, -2 - targets, -1)
        block = muted[reached - query * n].astype(np.int64) + 2 * query  # queries apart from the start
        n_blocks = np.bincount(sorted_unique(block) // 2, minlength=len(queries))
        asked = [k for k in range(len(queries)) if not self.failed[k]]
        sizes = [queries[k].states.size for k in asked]
        states = np.concatenate([k * n + queries[k].states for k in asked] + [np.zeros(0, np.int64)])
        depths = np.concatenate([queries[k].depths for k in asked] + [np.zeros(0, np.int64)])
        query_of = np.repeat(np.array(asked, dtype=np.int64), sizes)
        at = self.position[states]
        deepest = np.full(len(queries), -1, dtype=np.int64)
        np.maximum.at(deepest, query_of, depths)
        active = deepest >= 0
        final = np.zeros(len(queries), dtype=bool)
        rows = np.arange(n_pairs)
        numbers = np.empty(states.size, dtype=np.int64)
        for depth in range(int(deepest.max(initial=-1)) + 1):
            now = active[query_of] & ((depths == depth) | (final[query_of] & (depths >= depth)))
            numbers[now] = block[at[now]]
            active &= ~final & (deepest > depth)
            rows = rows[active[query[rows]]]
            if not rows.size:
                break
            # rows taken with ``np.take``: fancy indexing of a 2-d array's rows is several times slower
            successor = np.where(np.take(known, rows, axis=0), n_pairs + block[np.take(index, rows, axis=0)],
                                 np.take(outside, rows, axis=0))
            first, block[rows] = unique_rows(np.column_stack([block[rows], successor]))  # never across queries
            counts = np.bincount(query[rows[first]], minlength=len(queries))
            final = active & (counts == n_blocks)  # a round only splits: the same count of blocks is final
            n_blocks = np.where(active, counts, n_blocks)
        results: list[np.ndarray | None] = [None] * len(queries)
        for k, part in zip(asked, np.split(numbers, np.cumsum(sizes)[:-1].astype(np.int64))):
            results[k] = part
        return results

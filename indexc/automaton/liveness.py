"""Trimming: keep the states that are reachable from the start *and* can still accept.

The mask semantics need this (a token is allowed iff it leads to a live state, and the byte
DFA convention is that every stored state is live), and minimisation needs it (partition
refinement assumes no unreachable states).  A state that cannot reach an accepting state is
replaced by ``DEAD`` in every row that points to it.

The surviving states are renumbered in breadth-first order from the start, successors taken
in column order, so the numbering is canonical: the same language always gives the same
arrays (the start is 0).

Both searches walk the *distinct* successor lists, extracted with numpy from the table
(a byte row has 256 cells but typically 1 to 10 distinct targets), so the Python part is
O(distinct edges): 0.1-2.7 ms for the benchmark regexes' byte DFAs (up to 827 states), 0.14 s
for the 40,001 states of ``[^"]{0,5000}``.  The extraction sorts the runs once, by
(source, target) with two radix passes, instead of two multi-key ``lexsort`` calls: on
MaskBench Github_easy o60843's tables 2.5 -> 1.0 ms (3,639 x 49 atoms) and 2.2 -> 1.6 ms
(1,474 x 256 bytes).  On the large schema tables (Github_easy o9901: 94,939 x 50 atoms, then
78,281 x 256 bytes) the runs are found among the live cells only and only the live cells are
renumbered: the byte table's trim 301 -> 260 ms (process time, min of 3, interleaved).  The two
searches then went level by level (``_reached``): a wide level in numpy, a narrow one in
Python, one ``seen`` memory under both; the liveness search of o9901's atom table 45-50 ->
18-24 ms, of o12291's (84,903 states, 83 levels) 52 -> 22-30 ms, its breadth-first numbering
31 -> 13-19 ms; o9901's 1,055 narrow levels number as before (~30 ms).  A DFA of a few
thousand states (a regex's) is searched in Python alone and renumbered by one gather, the
numpy set-up being most of its cost there (bench regexes' trims within -10..+9%).

Two callers need less than ``trim``: the schema DFA path's subsets, all reachable and numbered
again later (``live_part``: searched for dead states, renumbered only if some are), and the
UTF-8 expansion of a live DFA, live already (``breadth_first_renumbering``: the breadth-first
numbering alone).  On a median MaskBench schema (~1,800 subsets, ~1,400 byte states) that
leaves out the subsets' numbering (~1 ms) and the byte table's liveness search (~0.7 ms).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from indexc.arrays import groups_by_first_appearance, run_positions, stable_argsort
from indexc.automaton.byte_dfa import DEAD


def successor_lists(transitions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """CSR ``(offsets, targets)``: each state's distinct successors, by first column.

    Rows are first cut into runs of equal cells (a byte row is a few runs), so the sort
    works on runs, not on all ``n * k`` cells; the runs are found among the live cells only
    (a byte table is mostly ``DEAD``: Github_easy o9901's 78,281 x 256 table has 2.1M live
    cells of 20M; 92 -> ~50 ms)."""
    n, k = transitions.shape
    cells = np.flatnonzero(transitions != DEAD)  # live cells, in (source, column) order
    values = transitions.reshape(-1)[cells]
    # a live cell starts a run unless the cell just left of it, in the same row, holds its target
    run_start = np.ones(len(cells), dtype=bool)
    run_start[1:] = (values[1:] != values[:-1]) | (cells[1:] != cells[:-1] + 1) | (cells[1:] % k == 0)
    src = cells[run_start] // k
    dst = values[run_start].astype(np.int64)
    # The first run of each (source, target) pair: a stable sort by the pair keeps the runs of
    # one pair in column order, and the firsts, put back in run order, are by first column.
    pairs = src * (n + 1) + dst
    order = stable_argsort(pairs)
    first = np.ones(len(order), dtype=bool)
    first[1:] = pairs[order[1:]] != pairs[order[:-1]]
    kept = np.sort(order[first])
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(src[kept], minlength=n), out=offsets[1:])
    return offsets, dst[kept]


def trim(transitions: np.ndarray, accepting: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """The reachable live part, renumbered breadth-first; ``None`` if the start is not live."""
    offsets, targets = successor_lists(transitions)
    live = _live_states(offsets, targets, accepting)
    if not live[0]:
        return None
    return _kept(transitions, accepting, offsets, targets, live)


def live_part(transitions: np.ndarray, accepting: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """``trim`` for a DFA whose states are all reachable (a subset construction's) and whose
    numbering does not matter (it is minimised, expanded and renumbered breadth-first after):
    when every state is live, the DFA as it is, without the breadth-first numbering (~1 ms of
    a median MaskBench schema's 1,800 subsets, which are all live); else ``trim``'s result."""
    offsets, targets = successor_lists(transitions)
    live = _live_states(offsets, targets, accepting)
    if not live[0]:
        return None
    if live.all():
        return transitions, accepting.astype(bool)
    return _kept(transitions, accepting, offsets, targets, live)


def breadth_first_renumbering(transitions: np.ndarray, accepting: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``trim`` for a DFA every state of which is live already (the UTF-8 expansion of a live
    DFA, ``utf8_expansion``): the reachable states renumbered breadth-first, with no liveness
    search (~0.7 ms of a median MaskBench schema's 1,400 byte states)."""
    offsets, targets = successor_lists(transitions)
    return _kept(transitions, accepting, offsets, targets, None)


def _kept(transitions: np.ndarray, accepting: np.ndarray, offsets: np.ndarray, targets: np.ndarray,
          live: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """The ``live`` states (all if None) reachable from 0, renumbered breadth-first."""
    order = _reached(offsets, targets, np.zeros(1, dtype=np.int64), live)
    new_id = np.full(transitions.shape[0], DEAD, dtype=np.int32)
    new_id[order] = np.arange(len(order), dtype=np.int32)
    return _renumbered(transitions[order], new_id), accepting[order].astype(bool)


_TAKE_ALL_CELLS = 1 << 16


def _renumbered(rows: np.ndarray, new_id: np.ndarray) -> np.ndarray:
    """``rows`` with every state ``s`` replaced by ``new_id[s]``; ``DEAD`` stays.

    Only the live cells are looked up: a byte table is mostly ``DEAD`` (Github_easy o9901's
    78,281 x 256 states: 2.1M live cells of 20M), and the masked lookup took 62 ms there
    against 107 for a ``np.take`` of every cell (through an appended slot for ``DEAD``)."""
    if rows.size <= _TAKE_ALL_CELLS:  # a regex's table: one gather costs less than the masking
        return np.take(np.append(new_id, np.int32(DEAD)), rows)
    out = np.full(rows.shape, DEAD, dtype=np.int32)
    live = rows != DEAD
    out[live] = new_id[rows[live]]
    return out


def live_states(transitions: np.ndarray, accepting: np.ndarray) -> np.ndarray:
    """Boolean mask of the states from which an accepting state is reachable."""
    return _live_states(*successor_lists(transitions), accepting)


def _live_states(offsets: np.ndarray, targets: np.ndarray, accepting: np.ndarray) -> np.ndarray:
    live = np.zeros(len(offsets) - 1, dtype=bool)
    live[_reached(*predecessor_lists(offsets, targets), np.flatnonzero(accepting), None)] = True
    return live


def predecessor_lists(offsets: np.ndarray, targets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """CSR ``(offsets, sources)`` of each state's predecessors, from its successor lists."""
    n = len(offsets) - 1
    sources = np.repeat(np.arange(n), np.diff(offsets))
    order = np.argsort(targets, kind="stable")
    return np.searchsorted(targets[order], np.arange(n + 1)), sources[order]


# A DFA of at most this many states is searched in Python alone (a regex's: the numpy set-up
# would be most of its cost).
_NUMPY_FROM_STATES = 4_096
# A level of the search with at most this many states is walked in Python; a wider one in
# numpy (a dozen calls, tens of microseconds whatever its size).
_PYTHON_LEVEL_STATES = 128


def _reached(offsets: np.ndarray, targets: np.ndarray, roots: np.ndarray, allowed: np.ndarray | None) -> np.ndarray:
    """The states reachable from ``roots`` through ``allowed`` states (all if None), in breadth-
    first order: ``breadth_first_levels`` one after the other (a queue over Python lists for a
    small DFA, ``_reached_in_python``)."""
    if len(offsets) - 1 <= _NUMPY_FROM_STATES:
        return _reached_in_python(offsets, targets, roots, allowed)
    return np.array([q for level in breadth_first_levels(offsets, targets, roots, allowed) for q in level],
                    dtype=np.int64)


def breadth_first_levels(offsets: np.ndarray, targets: np.ndarray, roots: np.ndarray,
                         allowed: np.ndarray | None = None) -> Iterator[list[int]]:
    """The levels of a breadth-first search from ``roots`` (the first level) through ``allowed``
    states (all if None), a level's new states in the order of their first mention in its
    states' CSR lists, which is the order a queue would give.

    Levels are few and wide on most schema DFAs (Github_hard o12291: 84,903 states in 83
    levels) and numerous and narrow on a long bounded string (Github_easy o9901: 1,055 levels):
    wide levels go to numpy, narrow ones to Python lists.  Both read one ``seen`` memory (a
    bytearray under a numpy view), so switching costs nothing.  Readers: ``_reached`` and
    ``size_bound`` (which counts the levels of a backward search)."""
    n = len(offsets) - 1
    allowed_bytes = b"\x01" * n if allowed is None else allowed.astype(bool).tobytes()
    allowed_mask = np.frombuffer(allowed_bytes, dtype=np.bool_)
    seen_bytes = bytearray(n)
    seen = np.frombuffer(seen_bytes, dtype=np.bool_)
    seen[roots] = True
    lists: tuple[list[int], list[int]] | None = None  # made at the first narrow level
    frontier = roots.tolist()
    while frontier:
        yield frontier
        if len(frontier) > _PYTHON_LEVEL_STATES:
            states = np.asarray(frontier, dtype=np.int64)
            mentioned = targets[run_positions(offsets[states], offsets[states + 1] - offsets[states])]
            mentioned = mentioned[allowed_mask[mentioned] & ~seen[mentioned]]
            found_array = mentioned[groups_by_first_appearance(mentioned)[0]]
            seen[found_array] = True
            frontier = found_array.tolist()
            continue
        if lists is None:
            lists = (offsets.tolist(), targets.tolist())
        offsets_list, targets_list = lists
        found: list[int] = []
        for q in frontier:
            for t in targets_list[offsets_list[q]:offsets_list[q + 1]]:
                if allowed_bytes[t] and not seen_bytes[t]:
                    seen_bytes[t] = 1
                    found.append(t)
        frontier = found


def _reached_in_python(offsets: np.ndarray, targets: np.ndarray, roots: np.ndarray,
                       allowed: np.ndarray | None) -> np.ndarray:
    """``_reached`` for a small DFA: one queue over Python lists."""
    offsets_list, targets_list = offsets.tolist(), targets.tolist()
    allowed_list = None if allowed is None else allowed.tolist()
    order = roots.tolist()
    seen = set(order)
    for q in order:  # grows while iterating
        for t in targets_list[offsets_list[q]:offsets_list[q + 1]]:
            if t not in seen and (allowed_list is None or allowed_list[t]):
                seen.add(t)
                order.append(t)
    return np.array(order, dtype=np.int64)

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
renumbered: the byte table's trim 301 -> 260 ms (process time, min of 3, interleaved); what is
left is the two searches in Python (~80 ms) and reading the 20M-cell table (~140 ms).
"""

from __future__ import annotations

from collections import deque

import numpy as np

from indexc.arrays import stable_argsort
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
    order = _breadth_first_order(offsets, targets, live)
    new_id = np.full(transitions.shape[0], DEAD, dtype=np.int32)
    new_id[order] = np.arange(len(order), dtype=np.int32)
    return _renumbered(transitions[order], new_id), accepting[order].astype(bool)


def _renumbered(rows: np.ndarray, new_id: np.ndarray) -> np.ndarray:
    """``rows`` with every state ``s`` replaced by ``new_id[s]``; ``DEAD`` stays.

    Only the live cells are looked up: a byte table is mostly ``DEAD`` (Github_easy o9901's
    78,281 x 256 states: 2.1M live cells of 20M), and the masked lookup took 62 ms there
    against 107 for a ``np.take`` of every cell (through an appended slot for ``DEAD``)."""
    out = np.full(rows.shape, DEAD, dtype=np.int32)
    live = rows != DEAD
    out[live] = new_id[rows[live]]
    return out


def live_states(transitions: np.ndarray, accepting: np.ndarray) -> np.ndarray:
    """Boolean mask of the states from which an accepting state is reachable."""
    return _live_states(*successor_lists(transitions), accepting)


def _live_states(offsets: np.ndarray, targets: np.ndarray, accepting: np.ndarray) -> np.ndarray:
    n = len(offsets) - 1
    sources = np.repeat(np.arange(n), np.diff(offsets))
    order = np.argsort(targets, kind="stable")
    pred_offsets = np.searchsorted(targets[order], np.arange(n + 1)).tolist()
    preds = sources[order].tolist()
    live = accepting.astype(bool).tolist()
    queue = deque(i for i, is_live in enumerate(live) if is_live)
    while queue:
        q = queue.popleft()
        for p in preds[pred_offsets[q]:pred_offsets[q + 1]]:
            if not live[p]:
                live[p] = True
                queue.append(p)
    return np.array(live, dtype=bool)


def _breadth_first_order(offsets: np.ndarray, targets: np.ndarray, live: np.ndarray) -> np.ndarray:
    """Live states reachable from 0 through live states, breadth-first (successors by column)."""
    offsets_list, targets_list, live_list = offsets.tolist(), targets.tolist(), live.tolist()
    seen = {0}
    order = [0]
    for q in order:  # grows while iterating
        for t in targets_list[offsets_list[q]:offsets_list[q + 1]]:
            if live_list[t] and t not in seen:
                seen.add(t)
                order.append(t)
    return np.array(order, dtype=np.int64)

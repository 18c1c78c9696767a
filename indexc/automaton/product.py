"""Products of two DFAs: the state pairs reachable from the start pair, and their table.

An intersection of two regular languages (a JSON Schema string's pattern and its length, a
grammar terminal and the regexes it must also match) is the product automaton restricted to
the pairs reachable from (start, start).  A pair ``(s, t)`` is coded ``s * n_b + t``, so the
start pair is code 0 and stays first once the codes are sorted; the search is breadth first,
one numpy step per frontier (a gather in each table and ``unique``) and a set lookup per code
it reaches, so the cost follows the reachable pairs, not ``n_a * n_b``.  The codes found were
once kept as a sorted array merged with each frontier (``union1d``), which made a deep product
quadratic: a string of ``maxLength`` 1,024 under an email pattern (MaskBench o6237: 2,445
levels, three products refused at 100,000 pairs) spent 26 of its 38 s compile in numpy's
``unique``; 4.8 s in all since.

The tables may have different column spaces (character atoms of two regexes): the caller
passes the pairs of columns that meet (``column_a``, ``column_b``), and the product's columns
are those pairs; for byte DFAs both are ``None`` (the 256 bytes).
"""

from __future__ import annotations

import numpy as np

from indexc.automaton.byte_dfa import DEAD


def reachable_pairs(a: np.ndarray, b: np.ndarray, *, column_a: np.ndarray | None = None,
                    column_b: np.ndarray | None = None, max_pairs: int) -> np.ndarray | None:
    """Sorted codes of the pairs reachable from (0, 0) in the tables ``a`` and ``b``; ``None``
    past ``max_pairs`` pairs (the caller says which limit that is)."""
    width = np.int64(b.shape[0])
    frontier = np.zeros(1, dtype=np.int64)
    seen = {0}  # every code found: one set lookup per distinct code a level reaches
    levels = [frontier]
    while frontier.size:
        next_a, next_b = _moves(a, b, frontier, width, column_a, column_b)
        live = (next_a != DEAD) & (next_b != DEAD)
        reached = np.unique(next_a[live].astype(np.int64) * width + next_b[live])
        new = [code for code in reached.tolist() if code not in seen]
        seen.update(new)
        if len(seen) > max_pairs:
            return None
        frontier = np.array(new, dtype=np.int64)
        levels.append(frontier)
    return np.sort(np.concatenate(levels))


def product(a: np.ndarray, a_accepting: np.ndarray, b: np.ndarray, b_accepting: np.ndarray, *,
            column_a: np.ndarray | None = None, column_b: np.ndarray | None = None,
            max_pairs: int) -> tuple[np.ndarray, np.ndarray] | None:
    """The product automaton of the reachable pairs (int32 transitions, bool accepting: both
    accept), states numbered by sorted pair code (the start is 0; not trimmed); ``None`` past
    ``max_pairs`` pairs."""
    codes = reachable_pairs(a, b, column_a=column_a, column_b=column_b, max_pairs=max_pairs)
    if codes is None:
        return None
    width = np.int64(b.shape[0])
    next_a, next_b = _moves(a, b, codes, width, column_a, column_b)
    live = (next_a != DEAD) & (next_b != DEAD)
    targets = np.searchsorted(codes, next_a.astype(np.int64) * width + next_b)
    transitions = np.where(live, targets, DEAD).astype(np.int32)
    return transitions, a_accepting[codes // width] & b_accepting[codes % width]


def _moves(a: np.ndarray, b: np.ndarray, codes: np.ndarray, width: np.int64, column_a, column_b):
    rows_a, rows_b = a[codes // width], b[codes % width]
    if column_a is not None:
        rows_a, rows_b = rows_a[:, column_a], rows_b[:, column_b]
    return rows_a, rows_b

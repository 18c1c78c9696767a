"""Two numpy idioms the trie walks share: runs of positions expanded, and distinct values.

``expand_runs`` turns a CSR-style list of runs (a trie node's children, a node's tokens, a
group's tokens) into every position they cover in six numpy calls, where a Python loop over the
runs would cost a call per run.  ``distinct`` (``distinct_array``) is ``np.unique`` without
it: ``np.unique`` imports ``numpy.ma`` on its first call (~33 ms), which a fresh process's first
mask would pay.  Used by the live walk (``walker``) and the lexeme paths' decomposition and rows
(``lexeme_paths``).
"""

from __future__ import annotations

import numpy as np


def expand_runs(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Every position of the runs ``[starts[i], starts[i] + counts[i])``, run after run (a run's
    owner, where a caller needs it, is ``np.repeat(owners, counts)``)."""
    ends = np.cumsum(counts)
    return np.arange(ends[-1] if ends.size else 0) + np.repeat(starts - (ends - counts), counts)


def distinct(values: np.ndarray) -> list[int]:
    """The distinct values, ascending."""
    return distinct_array(values).tolist()


def distinct_array(values: np.ndarray) -> np.ndarray:
    """The distinct values, ascending, as an array."""
    ordered = np.sort(values)
    return ordered[np.concatenate(([True], ordered[1:] != ordered[:-1]))] if ordered.size else ordered

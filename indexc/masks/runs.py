"""Vectorised expansion of CSR runs, the one idiom every level of the walk uses.

Given runs ``[starts[i], starts[i] + counts[i])``, ``expand_runs`` returns, for every element
of every run, the index ``i`` of its run and its position, with one ``np.repeat`` and one
``np.cumsum`` instead of a Python loop over runs.
"""

from __future__ import annotations

import numpy as np


def expand_runs(starts: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(run index, position) of every element of the runs, runs in order."""
    total = int(counts.sum())
    owner = np.repeat(np.arange(counts.size), counts)
    run_first = np.cumsum(counts) - counts
    positions = starts[owner] + (np.arange(total) - run_first[owner])
    return owner, positions

"""Small numpy helpers shared by every stage of the compiler.

``sorted_unique`` exists because ``sorted_unique(a)`` without return flags calls
``np.ma.is_masked`` (numpy 2.x), whose first use imports ``numpy.ma`` and ``numpy.matrixlib``:
25-30 ms once per process, which is more than a whole compile of a small regex in a fresh
``indexc compile`` process.  A sort and a neighbour comparison give the same result.
"""

from __future__ import annotations

import numpy as np


def sorted_unique(values: np.ndarray) -> np.ndarray:
    """The distinct values of ``values`` (flattened), ascending: ``np.unique(values)``."""
    ordered = np.sort(np.asarray(values).ravel())
    if ordered.size < 2:
        return ordered
    keep = np.empty(ordered.size, dtype=bool)
    keep[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=keep[1:])
    return ordered[keep]

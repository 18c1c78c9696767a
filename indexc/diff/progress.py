"""How the diff reports its slow parts: a grammar side's search and its masks (``indexc diff``'s status line)."""

from __future__ import annotations

from collections.abc import Callable

PROGRESS_EVERY = 256  # pairs found, or masks computed, between two calls of a progress callback
Progress = Callable[[str, int, int], None]  # (what, done, total): "pairs" found, "masks" computed

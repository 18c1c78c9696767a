"""Run the serving hot paths a few times on the first load of a process, before any caller does.

Why: CPython 3.11+ runs a function's generic bytecode for its first calls and specialises it
only after about eight (the adaptive interpreter), and the numpy routines a fill uses are cold
in the CPU's caches, so in a fresh process the first fills and advances of the first sequence
cost 2-3x what later ones do (measured in a fresh process on Llama-3 artifacts: fill p50
3.3-3.9 us and advance p50 3.5-4.7 us over the first walk, against 1.3-2.0 / 1.7-2.0 us once
warm).  The first ``load`` of a process therefore fills the start state's mask into a scratch
row ``CALLS`` times and advances a scratch matcher on one of its text tokens (and rolls it
back) ``CALLS`` times, and fills and bit-tests one mask of each stored form (dense, sparse,
complement) ``CALLS`` times: ~0.1 ms, once per process.  A side effect is a check: a start
state whose mask allows a token its walk refuses is an ``ArtifactError`` from that ``load``.

What is not warmed: the data.  A first fill of a dense mask in a fresh process still reads 16 KB
(a Llama-3 row) from memory rather than from a cache (~2-3 us here); the pages at least are
mapped in already (``source.populate``).
"""

from __future__ import annotations

import numpy as np

CALLS = 16  # comfortably past CPython's specialisation warm-up (8 calls in 3.11)
_done = False


def warm_up_once(index) -> None:
    """Exercise ``fill_bitmask`` and ``advance`` ``CALLS`` times, the first time a process loads an index."""
    global _done
    if _done:
        return
    matcher = index.matcher()
    scratch = np.zeros((1, index.mask_words), dtype=np.int32)
    masks = index._masks
    for mask_id in _one_mask_of_each_form(masks.form):
        for _ in range(CALLS):
            masks.fill(mask_id, scratch, 0)
            masks.contains(mask_id, index.vocab_size - 1)
    for _ in range(CALLS):
        matcher.fill_bitmask(scratch)
    token = _text_token(scratch[0], index._eos)
    if token is not None:
        for _ in range(CALLS):
            matcher.advance(token)
            matcher.rollback(1)
    _done = True


def _one_mask_of_each_form(forms: np.ndarray) -> list[int]:
    """The first mask stored densely, sparsely and as a complement (those that exist)."""
    _, first = np.unique(forms, return_index=True)
    return first.tolist()


def _text_token(row: np.ndarray, eos: frozenset[int]) -> int | None:
    """A token whose bit is set in ``row`` and that is not an eos id (None if the row has none)."""
    for word in np.flatnonzero(row).tolist():
        bits = int(row[word]) & 0xFFFFFFFF
        while bits:
            lowest = bits & -bits
            token = 32 * word + lowest.bit_length() - 1
            if token not in eos:
                return token
            bits ^= lowest
    return None

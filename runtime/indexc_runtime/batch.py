"""``fill_bitmasks``: the masks of a whole batch of sequences in one call, whatever serves each one.

A model server steps every running sequence at once and needs one ``(batch, W)`` int32
bitmask (``W = ceil(vocab / 32)``), row ``i`` for sequence ``i``.  The sequences may follow
different constraints (artifacts), and some may be served by matchers that are not regex
matchers (the grammar path's matcher has the same ``fill_bitmask(out, row)``).

How: the regex matchers are grouped by the Index they serve; per group, the mask id of every
row is looked up with one numpy gather over the state -> mask table, and the rows are written
by form with one numpy call each: dense masks as one gather of ``dense_masks`` rows into the
batch rows, sparse and complement masks as one fill of their rows (0 or -1) and one scatter of
all their (row, word) pairs.  That is about ten numpy calls per artifact in the batch, whatever
the batch size, against one Python-level fill (~1 us) per row.  A group smaller than
``VECTOR_MIN_ROWS`` takes the per-row path (below that, a dozen numpy calls cost more than the
loop).  Finished matchers get a zero row.  Any other matcher fills its own row.  The measured
rates are in ``bench/bench_serve.py``'s table (BENCHMARKS.md).

``out`` may be wider than every artifact's ``W`` (a model vocabulary padded beyond the
tokenizer's, as vLLM allocates it): the padding words of each row are zeroed, so padding ids
are never allowed.  Rows past ``len(matchers)`` are not touched.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from indexc_runtime.format import MASK_COMPLEMENT, MASK_DENSE, MASK_SPARSE
from indexc_runtime.matcher import Matcher

VECTOR_MIN_ROWS = 8  # smaller groups are filled row by row


def fill_bitmasks(matchers: Sequence, out: np.ndarray) -> None:
    """Fill ``out[i]`` with the allowed-token bitmask of ``matchers[i]`` for every ``i``."""
    _check_batch_bitmask(out, len(matchers))
    groups: dict[int, tuple[object, list[int], list[int]]] = {}
    finished: list[int] = []
    for row, matcher in enumerate(matchers):
        if type(matcher) is not Matcher:
            matcher.fill_bitmask(out, row)
        elif matcher._finished:
            finished.append(row)
        else:
            index = matcher._index
            group = groups.get(id(index))
            if group is None:
                group = groups[id(index)] = (index, [], [])
            group[1].append(row)
            group[2].append(matcher._state)
    if finished:
        out[finished] = 0
    for index, rows, states in groups.values():
        _fill_group(index, rows, states, out)


def _fill_group(index, rows: list[int], states: list[int], out: np.ndarray) -> None:
    """The rows of the matchers of one Index (see the module note)."""
    words = index.mask_words
    if words > out.shape[1]:
        raise ValueError(f"a matcher serves a vocabulary of {index.vocab_size} ids ({words} words per row): "
                         f"the bitmask has only {out.shape[1]} words per row")
    target = out if words == out.shape[1] else out[:, :words]
    if words < out.shape[1]:
        out[rows, words:] = 0
    masks = index._masks
    state_mask = np.frombuffer(index._automaton.state_mask, dtype=np.int32)
    if len(rows) < VECTOR_MIN_ROWS:
        for row, state in zip(rows, states):
            masks.fill(int(state_mask[state]), target, row)
        return
    row_ids = np.asarray(rows, dtype=np.intp)
    mask_ids = state_mask[np.asarray(states, dtype=np.intp)]
    forms = masks.form[mask_ids]
    dense = forms == MASK_DENSE
    if dense.all():
        target[row_ids] = masks.dense[masks.dense_row[mask_ids]]
        return
    if dense.any():
        target[row_ids[dense]] = masks.dense[masks.dense_row[mask_ids[dense]]]
    target[row_ids[forms == MASK_SPARSE]] = 0
    target[row_ids[forms == MASK_COMPLEMENT]] = -1
    listed = ~dense
    starts = masks.offsets[mask_ids[listed]]
    counts = masks.offsets[mask_ids[listed] + 1] - starts
    positions = _runs(starts, counts)
    target[np.repeat(row_ids[listed], counts), masks.word_index[positions]] = masks.word_value[positions]


def _runs(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Concatenation of ``arange(start, start + count)`` for each pair, without a Python loop."""
    total = int(counts.sum())
    shifts = np.repeat(starts - np.cumsum(counts) + counts, counts)
    return shifts + np.arange(total)


def _check_batch_bitmask(out: object, rows: int) -> None:
    if not (isinstance(out, np.ndarray) and out.dtype == np.int32 and out.ndim == 2):
        got = f"{type(out).__name__} {getattr(out, 'dtype', '')} {getattr(out, 'shape', '')}"
        raise ValueError(f"the bitmask must be an int32 numpy array of shape (batch, words); got {got}")
    if rows > out.shape[0]:
        raise ValueError(f"{rows} matchers need a bitmask of at least {rows} rows, got {out.shape[0]}")

"""``fill_bitmasks``: the masks of a whole batch of sequences in one call, whatever serves each one.

A model server steps every running sequence at once and needs one ``(batch, W)`` int32
bitmask (``W = ceil(vocab / 32)``), row ``i`` for sequence ``i``.  The sequences may follow
different constraints (artifacts), and some may be served by matchers that are not regex
matchers (the grammar path's matcher has the same ``fill_bitmask(out, row)``).

How: the regex matchers are grouped by the Index they serve; per group, the mask id of every
row comes from one numpy gather over the state -> mask table, the rows are sorted by mask id
(``argsort``), and each distinct mask is written once into all its rows with a broadcasting
assignment (a dense row copied into k rows; a sparse or complement mask as a fill of its rows
with 0 or -1 and one scatter of its words into all of them).  A batch on one constraint has
few distinct masks (a random walk through the email regex: 6 masks for 256 sequences), so a
256-row fill is a dozen numpy calls instead of 256 Python-level fills.  Measured (Llama-3, a
shared 2-core VM, best of 7; email, phone, URL and IP regexes): 256 rows 220-270 us against
320-460 us row by row (about 1.0-1.2 M masks/s against 0.6-0.8 M), 64 rows 43-60 us against
62-78 us.  Writing the rows is most of it (a 16 KB row per sequence: 4 MB for 256), so a
single gather of every row's mask followed by one scatter into ``out`` was *slower* than the
row loop (it writes the batch twice: 540 us for 256 rows); the broadcast writes it once.  Small
batches (< ``VECTOR_MIN_ROWS``) and groups whose masks are mostly distinct
(< ``SHARED_MASK_ROWS`` rows per mask) are filled row by row, the cheaper way there (~1 us a
row).  Finished matchers get a zero row.  Any other kind of matcher fills its own row.
Throughput next to llguidance and xgrammar: ``bench/bench_serve.py``.

``out`` may be wider than every artifact's ``W`` (a model vocabulary padded beyond the
tokenizer's, as vLLM allocates it): the padding words of each regex matcher's row are zeroed,
so padding ids are never allowed (other kinds of matchers get ``out`` as it is: pass them a
bitmask of their own width).  Rows past ``len(matchers)`` are not touched.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from indexc_runtime.format import MASK_DENSE, MASK_SPARSE
from indexc_runtime.matcher import Matcher

VECTOR_MIN_ROWS = 32  # smaller batches and groups are filled row by row
SHARED_MASK_ROWS = 3  # one write per distinct mask pays off from this many rows per mask on average


def fill_bitmasks(matchers: Sequence, out: np.ndarray) -> None:
    """Fill ``out[i]`` with the allowed-token bitmask of ``matchers[i]`` for every ``i``."""
    _check_batch_bitmask(out, len(matchers))
    if len(matchers) < VECTOR_MIN_ROWS:
        _fill_each(matchers, out)
        return
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


def _fill_each(matchers: Sequence, out: np.ndarray) -> None:
    """Row by row: what a small batch costs least with."""
    words = out.shape[1]
    for row, matcher in enumerate(matchers):
        if type(matcher) is not Matcher:
            matcher.fill_bitmask(out, row)
        elif matcher._index.mask_words == words or matcher._finished:
            matcher._fill_row(out, row)  # a finished row is all zero, padding included
        else:
            _fill_group(matcher._index, [row], [matcher._state], out)


def _fill_group(index, rows: list[int], states: list[int], out: np.ndarray) -> None:
    """The rows of the matchers of one Index: one write per distinct mask (see the module note)."""
    words = index.mask_words
    if words > out.shape[1]:
        raise ValueError(f"a matcher serves a vocabulary of {index.vocab_size} ids ({words} words per row): "
                         f"the bitmask has only {out.shape[1]} words per row")
    target = out if words == out.shape[1] else out[:, :words]
    if words < out.shape[1]:
        out[rows, words:] = 0
    masks, state_mask = index._masks, index._automaton.state_mask
    if len(rows) < VECTOR_MIN_ROWS:
        for row, state in zip(rows, states):
            masks.fill(state_mask[state], target, row)
        return
    mask_ids = np.frombuffer(state_mask, dtype=np.int32)[np.asarray(states, dtype=np.intp)]
    order = np.argsort(mask_ids, kind="stable")
    sorted_ids = mask_ids[order]
    row_ids = np.asarray(rows, dtype=np.intp)[order]
    bounds = np.flatnonzero(sorted_ids[1:] != sorted_ids[:-1]) + 1
    if SHARED_MASK_ROWS * (bounds.size + 1) > len(rows):  # mostly distinct masks: row by row is cheaper
        for row, mask_id in zip(row_ids.tolist(), sorted_ids.tolist()):
            masks.fill(mask_id, target, row)
        return
    for start, end in zip([0, *bounds.tolist()], [*bounds.tolist(), len(rows)]):
        _fill_rows(masks, int(sorted_ids[start]), row_ids[start:end], target)


def _fill_rows(masks, mask_id: int, row_ids: np.ndarray, target: np.ndarray) -> None:
    """Write one mask into every row of ``row_ids`` (broadcast: no temporary of the batch's size)."""
    if row_ids.size == 1:
        masks.fill(mask_id, target, int(row_ids[0]))
        return
    form, index, value, _, _, _ = masks._entries[mask_id] or masks.entry(mask_id)
    if form == MASK_DENSE:
        target[row_ids] = index
        return
    target[row_ids] = 0 if form == MASK_SPARSE else -1
    target[row_ids[:, None], index] = value


def _check_batch_bitmask(out: object, rows: int) -> None:
    if not (isinstance(out, np.ndarray) and out.dtype == np.int32 and out.ndim == 2):
        got = f"{type(out).__name__} {getattr(out, 'dtype', '')} {getattr(out, 'shape', '')}"
        raise ValueError(f"the bitmask must be an int32 numpy array of shape (batch, words); got {got}")
    if rows > out.shape[0]:
        raise ValueError(f"{rows} matchers need a bitmask of at least {rows} rows, got {out.shape[0]}")

"""MaskTable + vocabulary -> the named arrays of ``indexc_runtime.format.SECTIONS`` (format version 2).

Three encodings differ from the ``MaskTable`` in memory, each for the runtime's sake:
- ``class_transitions`` holds ``next + 1`` (0: dead) in the narrowest unsigned dtype that holds
  ``n_states`` (``format.state_dtype``): the runtime bounds it with one ``max`` at load, and the
  table shrinks 2-4x (an 18,541-state table of Llama-3 ``[\\w ]{1,60}``: 7.0 -> 3.5 MB);
- ``mask_word_index`` is int64, so numpy scatters it into a bitmask row without a conversion;
- the token class rows are indexed by token id when at least half the vocabulary is live
  (``format.rows_by_token_id``: then it is no larger), so ``advance`` finds a token's classes
  with two reads instead of a bisection; ``live_tokens`` is then empty.

Only the shapes and id ranges that the encoding itself relies on are checked here (so that a
broken table fails with a message about the table, not about a file); everything else the
runtime would refuse is caught by the writer's self-check, which loads the finished file with
``verify=True`` before it is renamed into place.
"""

from __future__ import annotations

import numpy as np

from indexc.arrays import sorted_unique
from indexc.artifact.mask_encoding import EncodedMasks, encode_masks
from indexc.masks.table import MaskTable
from indexc_runtime.format import (
    SECTIONS,
    TOKEN_ROWS_BY_ID,
    TOKEN_ROWS_LIVE,
    rows_by_token_id,
    state_dtype,
)


def table_sections(
    table: MaskTable, vocab_size: int, special_ids: np.ndarray
) -> tuple[dict[str, np.ndarray], EncodedMasks, str]:
    """Every section's array (in ``SECTIONS`` order, with its file dtype), the mask encoding, and
    how the token class rows are numbered (the header's ``token_class_rows``)."""
    _check_table(table, vocab_size)
    masks = encode_masks(table.masks, vocab_size)
    token_rows, live, offsets = token_class_rows(table, vocab_size)
    arrays = {
        "byte_classes": table.byte_classes,
        "class_transitions": (table.class_transitions.astype(np.int64) + 1).astype(state_dtype(table.n_states)),
        "accepting": table.accepting.astype(np.uint8),
        "state_mask": table.state_mask,
        "mask_form": masks.form,
        "mask_dense_row": masks.dense_row,
        "mask_word_offsets": masks.word_offsets,
        "forced_token": masks.forced_token,
        "dense_masks": masks.dense,
        "mask_word_index": masks.word_index,
        "mask_word_value": masks.word_value,
        "live_tokens": live,
        "token_class_offsets": offsets,
        "token_class_data": table.token_class_data,
        "special_ids": sorted_unique(np.asarray(special_ids, dtype=np.int64)),
    }
    typed = {spec.name: _as_file_dtype(arrays[spec.name], spec.dtypes, spec.name) for spec in SECTIONS}
    return typed, masks, token_rows


def token_class_rows(table: MaskTable, vocab_size: int) -> tuple[str, np.ndarray, np.ndarray]:
    """(``token_class_rows``, ``live_tokens``, ``token_class_offsets``): rows by token id or by live token."""
    live = np.asarray(table.live_tokens, dtype=np.int64)
    if not rows_by_token_id(live.size, vocab_size):
        return TOKEN_ROWS_LIVE, live, table.token_class_offsets
    lengths = np.zeros(vocab_size, dtype=np.int64)
    lengths[live] = np.diff(table.token_class_offsets)
    offsets = np.zeros(vocab_size + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return TOKEN_ROWS_BY_ID, np.zeros(0, dtype=np.int64), offsets


def _as_file_dtype(values: np.ndarray, dtypes: tuple[str, ...], name: str) -> np.ndarray:
    """C-contiguous little-endian copy (or view) of ``values`` in the first allowed dtype, or in
    its own when allowed (``class_transitions`` comes sized already); refuses values that do not fit."""
    values = np.asarray(values)
    own = np.dtype(values.dtype).newbyteorder("<")
    target = own if own.str.lstrip("|") in dtypes else np.dtype(dtypes[0])
    if values.size and values.dtype.kind in "iub":
        info = np.iinfo(target)
        low, high = int(values.min()), int(values.max())
        if low < info.min or high > info.max:
            raise ValueError(f"section {name!r}: values [{low}, {high}] do not fit {dtype}")
    return np.ascontiguousarray(values, dtype=target)


def _check_table(table: MaskTable, vocab_size: int) -> None:
    n_states, n_classes = table.class_transitions.shape
    if not 1 <= n_classes <= 256:
        raise ValueError(f"MaskTable: {n_classes} byte classes; a class must fit in one byte (1..256)")
    if n_states < 1:
        raise ValueError("MaskTable: no states (state 0 is the start state)")
    if table.byte_classes.shape != (256,) or table.accepting.shape != (n_states,) or table.state_mask.shape != (n_states,):
        raise ValueError("MaskTable: byte_classes must have 256 entries, accepting and state_mask one per state")
    if not table.masks:
        raise ValueError("MaskTable: no masks")
    live = np.asarray(table.live_tokens)
    if live.size and (live.min() < 0 or live.max() >= vocab_size):
        raise ValueError(f"MaskTable: live tokens must lie in [0, {vocab_size})")
    if table.token_class_offsets.shape != (live.size + 1,):
        raise ValueError("MaskTable: token_class_offsets needs one entry per live token, plus one")

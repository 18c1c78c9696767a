"""MaskTable + vocabulary -> the named arrays of ``indexc_runtime.format.SECTIONS`` (format version 3).

Three encodings differ from the ``MaskTable`` in memory, each for the runtime's sake:
- ``class_transitions`` holds ``next + 1`` (0: dead) in the narrowest unsigned dtype that holds
  ``n_states`` (``format.state_dtype``): the runtime bounds it with one ``max`` at load, and the
  table shrinks 2-4x (an 18,541-state table of Llama-3 ``[\\w ]{1,60}``: 7.0 -> 3.5 MB);
- ``mask_word_index`` is int64, so numpy scatters it into a bitmask row without a conversion;
- the token class rows take the smallest of three layouts (``token_rows``: one row per live
  token, per token id, or per distinct class sequence).

Only the shapes and id ranges that the encoding itself relies on are checked here (so that a
broken table fails with a message about the table, not about a file); everything else the
runtime would refuse is caught by the writer's self-check, which loads the finished file with
``verify=True`` before it is renamed into place.
"""

from __future__ import annotations

import numpy as np

from indexc.arrays import sorted_unique
from indexc.artifact.mask_encoding import EncodedMasks, encode_masks
from indexc.artifact.token_rows import token_rows
from indexc.masks.table import MaskTable
from indexc_runtime.format import SECTIONS, state_dtype


def table_sections(
    table: MaskTable, vocab_size: int, special_ids: np.ndarray, token_layout: str | None = None
) -> tuple[dict[str, np.ndarray], EncodedMasks, str]:
    """Every section's array (in ``SECTIONS`` order, with its file dtype), the mask encoding, and
    how the token class rows are numbered (the header's ``token_class_rows``)."""
    _check_table(table, vocab_size)
    masks = encode_masks(table.masks, vocab_size, table.mask_rows, table.mask_sizes)
    rows = token_rows(table.live_tokens, table.token_class_offsets, table.token_class_data, vocab_size, token_layout,
                      groups=table.token_groups, coarse_groups=table.coarse_token_groups)
    arrays = {
        "byte_classes": table.byte_classes,
        "class_transitions": (table.class_transitions.astype(np.int64) + 1).astype(state_dtype(table.n_states)),
        "accepting": table.accepting.astype(np.uint8),
        "state_mask": table.state_mask,
        **masks.sections(),
        "live_tokens": rows.live_tokens,
        "token_class_offsets": rows.offsets,
        "token_class_data": rows.data,
        "special_ids": sorted_unique(np.asarray(special_ids, dtype=np.int64)),
        "token_row_of_id": rows.row_of_id,
    }
    typed = {spec.name: _as_file_dtype(arrays[spec.name], spec.dtypes, spec.name) for spec in SECTIONS}
    return typed, masks, rows.layout


def _as_file_dtype(values: np.ndarray, dtypes: tuple[str, ...], name: str) -> np.ndarray:
    """C-contiguous little-endian copy (or view) of ``values`` in the first allowed dtype, or in
    its own when allowed (``class_transitions`` comes sized already); refuses values that do not
    fit (a range only checked when the dtype changes: the dense masks' min and max cost ~0.3 ms)."""
    values = np.asarray(values)
    own = np.dtype(values.dtype).newbyteorder("<")
    target = own if own.str.lstrip("|") in dtypes else np.dtype(dtypes[0])
    if values.size and values.dtype.kind in "iub" and target != values.dtype:
        info = np.iinfo(target)
        low, high = int(values.min()), int(values.max())
        if low < info.min or high > info.max:
            raise ValueError(f"section {name!r}: values [{low}, {high}] do not fit {target}")
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

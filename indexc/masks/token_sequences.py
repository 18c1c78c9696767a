"""The byte-class sequence of every live token: all the runtime needs to ``advance``.

A token's next state is found by walking its class sequence through the (small)
state x class table, so the artifact stores no state x token table: only, for each token
that appears in some mask, its bytes translated to classes (CSR layout).  Tokens that are in
no mask can never be advanced on and are not stored at all.
"""

from __future__ import annotations

import numpy as np

from indexc.arrays import expand_runs
from indexc.vocab.model import Vocabulary


def class_sequences(
    vocab: Vocabulary, token_ids: np.ndarray, class_of_byte: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """CSR (offsets int64, data uint8) of the byte classes of ``token_ids``' bytes, in order."""
    flat, token_offsets = vocab.flat_bytes()
    ids = token_ids.astype(np.int64)
    starts = token_offsets[ids]
    lengths = token_offsets[ids + 1] - starts
    offsets = np.zeros(ids.size + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    _, positions = expand_runs(starts, lengths)
    return offsets, class_of_byte[flat[positions]].astype(np.uint8)

"""Byte-class sequences of the live tokens: what ``advance`` walks through the state table.

Stored as CSR: ``token_class_offsets`` (one row per token, plus one) into ``token_class_data``
(one byte class per byte).  The rows are numbered one of three ways (header key
``token_class_rows``, chosen by the writer as the smallest):

- ``"token_id"``: row ``t`` is token ``t``; an empty row means "not live".  Used when at least
  half the vocabulary is live (most regexes over text: 114k of Llama-3's 128k ids for a URL),
  where ``vocab_size + 1`` offsets are no larger than a sorted id list plus its offsets.  A
  lookup is two memoryview reads (~70 ns).
- ``"live_tokens"``: row ``k`` is token ``live_tokens[k]`` (sorted).  A lookup is one
  ``bisect`` over a memoryview of the ids (~0.7 us for the 1,348 ids of a phone regex, ~1 us
  for 100k) plus two reads.  Always the case in version-1 files.
- ``"shared"`` (version 3): row ``token_row_of_id[t]``; tokens with the same class sequence
  share a row and row 0 is empty (not live).  Under a regex with few classes most live tokens
  share their sequence with others (a URL regex: 114k live tokens, 38.5k distinct sequences;
  bounded strings: 124k and 2.8k), so two bytes per id plus the distinct rows undercut 4-byte
  offsets plus every token's classes (URL: 1.26 -> 0.72 MB).  A lookup is three reads.

Nothing is built and nothing is cached per token: a lookup costs the same the first time as
the hundredth, and the walk itself iterates a memoryview slice of ``token_class_data``.

Checks (at load, vectorised: 20-80 us for Llama-3 artifacts, most of it one comparison over
the 128k offsets and one ``max`` over ~700 KB of classes): ids strictly increasing inside
``[0, vocab_size)``, offsets rising from 0 to the data length, classes below ``n_classes``,
shared row numbers below the row count.
"""

from __future__ import annotations

from bisect import bisect_left

import numpy as np

from indexc_runtime.container import Container, scalar_view
from indexc_runtime.format import TOKEN_ROWS_BY_ID, TOKEN_ROWS_SHARED

class TokenClasses:
    """token id -> its span of ``data`` (the byte classes of its bytes); an empty span: not live."""

    def __init__(self, vocab_size: int, by_id: bool, live: np.ndarray, offsets: np.ndarray, data: np.ndarray,
                 row_of_id: np.ndarray | None = None):
        self.vocab_size = vocab_size
        self.by_id = by_id
        self.row_of_id = None if row_of_id is None else scalar_view(row_of_id)
        self._row_of_id_array = row_of_id
        self.live = scalar_view(live)
        self.offsets = scalar_view(offsets)
        self.data = scalar_view(data)
        self._offset_array = offsets

    @classmethod
    def from_container(cls, container: Container) -> "TokenClasses":
        header = container.header
        live = container.array("live_tokens")
        offsets = container.array("token_class_offsets")
        data = container.array("token_class_data")
        container.check_below("live_tokens", live, header.vocab_size)
        if live.size > 1 and not np.all(live[1:] > live[:-1]):
            raise container.error("token ids must increase strictly", "live_tokens")
        if int(offsets[0]) != 0 or int(offsets[-1]) != data.size or np.any(offsets[1:] < offsets[:-1]):
            raise container.error(f"offsets must rise from 0 to the data length {data.size}", "token_class_offsets")
        container.check_below("token_class_data", data, header.n_classes)
        row_of_id = None
        if header.token_rows == TOKEN_ROWS_SHARED:
            row_of_id = container.array("token_row_of_id")
            container.check_below("token_row_of_id", row_of_id, offsets.size - 1)
        return cls(header.vocab_size, header.token_rows == TOKEN_ROWS_BY_ID, live, offsets, data, row_of_id)

    def live_count(self) -> int:
        """How many tokens appear in some mask (for reports; counts non-empty rows when rows are ids)."""
        return int(np.count_nonzero(self.lengths())) if self.by_id or self.row_of_id is not None else len(self.live)

    def lengths(self) -> np.ndarray:
        """Byte length of every token id (int32; 0 for tokens in no mask)."""
        row_lengths = np.diff(self._offset_array).astype(np.int32)
        if self.by_id:
            return row_lengths
        if self.row_of_id is not None:
            return row_lengths[self._row_of_id_array]
        lengths = np.zeros(self.vocab_size, dtype=np.int32)
        lengths[np.asarray(self.live)] = row_lengths
        return lengths

    def span(self, token: int) -> tuple[int, int]:
        """(start, end) of the token's classes in ``data``; start == end for a token in no mask."""
        row = token
        if self.row_of_id is not None:
            row = self.row_of_id[token]
        elif not self.by_id:
            row = bisect_left(self.live, token)
            if row == len(self.live) or self.live[row] != token:
                return 0, 0
        return self.offsets[row], self.offsets[row + 1]

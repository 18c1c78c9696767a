"""Byte-class sequences of the live tokens: what ``advance`` walks through the state table.

Stored as CSR: ``live_tokens`` (sorted ids), ``token_class_offsets`` and
``token_class_data``.  Built on the first ``advance`` (not at load), once per ``Index``: an
int32 array from token id to its position among the live tokens (0.5 MB and ~0.3 ms for a
128k vocabulary) and an empty list cache of the same length.  A token's first lookup reads
its slice of ``token_class_data`` into a small ``bytes`` (~0.6 us); later lookups are one list
index (~40 ns).  Both are sized by the largest live id, so by the file's content, not by a
header field.

Checks (once, vectorised, on first use): ids strictly increasing inside ``[0, vocab_size)``,
offsets rising from 0 to the data length, classes below ``n_classes``.
"""

from __future__ import annotations

import numpy as np

from indexc_runtime.container import Container

SECTIONS = ("live_tokens", "token_class_offsets", "token_class_data")


class TokenClasses:
    """token id -> bytes of its class ids (``None`` for a token in no mask)."""

    def __init__(self, live: np.ndarray, offsets: np.ndarray, data: np.ndarray):
        size = int(live[-1]) + 1 if live.size else 0
        self._position = np.full(size, -1, dtype=np.int32)  # token id -> index in live_tokens
        self._position[live] = np.arange(live.size, dtype=np.int32)
        self._offsets = offsets
        self._data = memoryview(data)
        self.cache: list[bytes | None] = [None] * size

    @classmethod
    def from_container(cls, container: Container) -> "TokenClasses":
        for name in SECTIONS:
            container.verify_checksum(name)
        header = container.header
        live = container.array("live_tokens")
        offsets = container.array("token_class_offsets")
        data = container.array("token_class_data")
        container.check_range("live_tokens", live, 0, header.vocab_size - 1)
        if live.size > 1 and not np.all(live[1:] > live[:-1]):
            raise container.error("token ids must increase strictly", "live_tokens")
        if int(offsets[0]) != 0 or int(offsets[-1]) != data.size or np.any(offsets[1:] < offsets[:-1]):
            raise container.error(f"offsets must rise from 0 to the data length {data.size}", "token_class_offsets")
        container.check_range("token_class_data", data, 0, header.n_classes - 1)
        return cls(live, offsets, data)

    def classes(self, token: int) -> bytes | None:
        """Class ids of the token's bytes; the hot path reads ``cache[token]`` before calling this."""
        if not 0 <= token < self._position.size:
            return None
        position = int(self._position[token])
        if position < 0:
            return None
        found = bytes(self._data[int(self._offsets[position]) : int(self._offsets[position + 1])])
        self.cache[token] = found
        return found

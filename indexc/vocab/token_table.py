"""The id-indexed table that every reader fills, and its conversion into a ``Vocabulary``.

Readers see tokens in two waves: the model's own vocabulary (tens of thousands of ids, placed
at once with ``place_many``) and then a few added tokens that take precedence over whatever
the model put at their id (``place``; HF ``added_tokens`` such as Mistral's ``<s>`` override
the model's entry for the same id).  Ids that nobody fills stay holes.

Rules applied here, so that every reader gets them the same way:
- a special token's bytes are ``b""`` (it never produces text);
- a text token with no bytes at all is a hole: an empty token would match everywhere and mean
  nothing;
- ``vocab_size`` larger than the table pads it with holes (a model's embedding matrix is often
  rounded up: Qwen2's 151,936 for 151,665 tokens); smaller is an error, since ids the
  tokenizer produces would fall outside the model;
- an id beyond ``MAX_VOCAB_SIZE`` is refused before anything is allocated for it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from indexc.errors import VocabularyError
from indexc.vocab.model import TokenKind, Vocabulary

# 16.7 M ids: 60 times the largest vocabulary in use (Gemma's 262 k).  A larger id in a file is
# corruption, and honouring it would allocate gigabytes.
MAX_VOCAB_SIZE = 1 << 24


class TokenTable:
    """Bytes, kind and display name per id while a vocabulary file is being read."""

    def __init__(self, size: int, *, family: str, source: str):
        check_size(size, source)
        self.family = family
        self.source = source
        self.token_bytes: list[bytes] = [b""] * size
        self.names: list[str] = [""] * size
        self.kinds = np.full(size, TokenKind.HOLE, dtype=np.uint8)

    @property
    def size(self) -> int:
        return len(self.token_bytes)

    def place_many(self, ids: np.ndarray, token_bytes: Sequence[bytes], names: Sequence[str],
                   kinds: np.ndarray) -> None:
        """Fill distinct ``ids`` at once (the model's vocabulary)."""
        if len(ids) == 0:
            return
        self._check_range(int(ids.min()), int(ids.max()))
        first = int(ids[0])
        if np.array_equal(ids, np.arange(first, first + len(ids))):  # the usual layout: in id order
            self.token_bytes[first:first + len(ids)] = token_bytes
            self.names[first:first + len(ids)] = names
        else:
            for i, data, name in zip(ids.tolist(), token_bytes, names):
                self.token_bytes[i] = data
                self.names[i] = name
        self.kinds[ids] = kinds

    def place(self, token_id: int, data: bytes, kind: TokenKind, name: str) -> None:
        """Fill (or overwrite) one id."""
        self._check_range(token_id, token_id)
        self.token_bytes[token_id] = data
        self.names[token_id] = name
        self.kinds[token_id] = kind

    def to_vocabulary(self, eos_ids: Sequence[int], vocab_size: int | None = None) -> Vocabulary:
        """Freeze into a ``Vocabulary`` of ``max(size, vocab_size)`` ids."""
        if vocab_size is not None:
            self._pad_to(vocab_size)
        kinds = self.kinds
        special = kinds == TokenKind.SPECIAL
        empty = np.fromiter(map(len, self.token_bytes), dtype=np.int64, count=self.size) == 0
        kinds[empty & ~special] = TokenKind.HOLE
        token_bytes = self.token_bytes
        for i in np.flatnonzero(special & ~empty).tolist():
            token_bytes[i] = b""
        kinds.flags.writeable = False  # the fingerprint is cached: the vocabulary must not change
        return Vocabulary(
            token_bytes=tuple(token_bytes),
            kinds=kinds,
            eos_ids=tuple(sorted(set(int(i) for i in eos_ids))),
            family=self.family,
            source=self.source,
            names=tuple(self.names),
        )

    def _pad_to(self, vocab_size: int) -> None:
        if vocab_size < self.size:
            raise VocabularyError(
                f"model vocab size {vocab_size} is smaller than the tokenizer's {self.size} ids",
                source=self.source,
            )
        check_size(vocab_size, self.source)
        extra = vocab_size - self.size
        self.token_bytes.extend([b""] * extra)
        self.names.extend([""] * extra)
        self.kinds = np.concatenate([self.kinds, np.full(extra, TokenKind.HOLE, dtype=np.uint8)])

    def _check_range(self, low: int, high: int) -> None:
        if low < 0 or high >= self.size:
            raise VocabularyError(f"token id {low if low < 0 else high} is outside [0, {self.size})",
                                  source=self.source)


def check_size(size: int, source: str) -> None:
    if not 0 <= size <= MAX_VOCAB_SIZE:
        raise VocabularyError(
            f"vocabulary of {size} ids is outside the supported range [0, {MAX_VOCAB_SIZE}]",
            source=source,
        )


def ids_array(values, what: str, source: str) -> np.ndarray:
    """The token ids of a file as int64, refusing non-integers (JSON floats, strings, huge)."""
    array = np.array(list(values))
    if len(array) and (array.dtype.kind not in "iu" or array.ndim != 1):
        raise VocabularyError(f"{what}: token ids must be integers", source=source)
    return array.astype(np.int64, copy=False)


def first_duplicate(ids: np.ndarray) -> int | None:
    """An id that occurs twice in ``ids``, or None."""
    if len(ids) < 2:
        return None
    ordered = np.sort(ids)
    repeats = np.flatnonzero(ordered[1:] == ordered[:-1])
    return int(ordered[repeats[0]]) if len(repeats) else None

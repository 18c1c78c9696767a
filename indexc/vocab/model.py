"""The vocabulary as the compiler sees it: one byte string per token id, plus token kinds.

Why bytes and not strings: a constraint is matched against the UTF-8 bytes of the text, and
tokens of byte-level BPE (GPT-2, Llama-3, Qwen2) or byte-fallback SentencePiece (`<0xNN>`)
are often partial UTF-8 sequences.  The bytes of a token are what the token stands for under
the tokenizer's own rules, so that the bytes of an encoded text's tokens concatenate to the
text's UTF-8 bytes (SentencePiece's leading `▁` stands for a space: see ``sentencepiece``).

Token kinds (``TokenKind``) decide what a mask may contain:
- ``NORMAL``, ``BYTE`` (a byte-fallback token `<0xNN>`) and ``USER`` (an added, non-special
  token, which produces its text) are *text tokens*: allowed when their bytes keep the
  constraint alive;
- ``SPECIAL`` (control tokens such as `<s>`, `<|eot_id|>`) never produce text: never allowed,
  except the end-of-sequence ids, which are allowed exactly in accepting states;
- ``HOLE`` is an id with no token (a gap in the id space, or an id between the tokenizer's
  size and a larger model ``vocab_size``): never allowed.

Several ids may have the same bytes (Mistral has many): every one of them is kept.
"""

from __future__ import annotations

import enum
import hashlib
from dataclasses import dataclass, field

import numpy as np


class TokenKind(enum.IntEnum):
    NORMAL = 0
    BYTE = 1
    USER = 2
    SPECIAL = 3
    HOLE = 4


TEXT_KINDS = (TokenKind.NORMAL, TokenKind.BYTE, TokenKind.USER)

FINGERPRINT_VERSION = b"indexc-vocab-fingerprint-v1"


@dataclass(frozen=True)
class Vocabulary:
    """Exact bytes of every token id in ``[0, size)``.

    ``token_bytes[i]`` is ``b""`` for special tokens and holes; ``names[i]`` is the token's
    string as the tokenizer spells it (for display only, ``""`` for holes).
    """

    token_bytes: tuple[bytes, ...]
    kinds: np.ndarray  # uint8 TokenKind per id, shape (size,)
    eos_ids: tuple[int, ...]
    family: str  # "byte-level-bpe", "sentencepiece-bpe", "unigram", "gguf-..."
    source: str  # file the vocabulary came from (for messages)
    names: tuple[str, ...] = field(default=(), compare=False)

    @property
    def size(self) -> int:
        return len(self.token_bytes)

    @property
    def special_ids(self) -> np.ndarray:
        return np.flatnonzero(self.kinds == TokenKind.SPECIAL)

    def text_token_mask(self) -> np.ndarray:
        """Boolean array: which ids are text tokens (may appear in a mask for their bytes)."""
        return np.isin(self.kinds, np.array([int(k) for k in TEXT_KINDS], dtype=np.uint8))

    def flat_bytes(self) -> tuple[np.ndarray, np.ndarray]:
        """All token bytes as one uint8 array and int64 offsets (token i: ``flat[off[i]:off[i+1]]``).

        Built once per vocabulary (~10 ms for Llama-3) so that per-token byte work downstream
        (class sequences of 10^5 live tokens) is a vectorised gather instead of a Python loop.
        """
        cached = self.__dict__.get("_flat_bytes")
        if cached is None:
            offsets = np.zeros(self.size + 1, dtype=np.int64)
            np.cumsum(np.fromiter(map(len, self.token_bytes), dtype=np.int64, count=self.size), out=offsets[1:])
            cached = (np.frombuffer(b"".join(self.token_bytes), dtype=np.uint8), offsets)
            object.__setattr__(self, "_flat_bytes", cached)
        return cached

    @property
    def fingerprint(self) -> str:
        """Stable hex hash over the size, every token's kind and bytes, and the eos ids.

        Two vocabularies with the same fingerprint give the same masks for every constraint,
        so an artifact carries it and the runtime refuses a tokenizer whose fingerprint differs.
        """
        cached = self.__dict__.get("_fingerprint")
        if cached is not None:
            return cached
        h = hashlib.blake2b(digest_size=16)
        h.update(FINGERPRINT_VERSION)
        h.update(self.size.to_bytes(8, "little"))
        h.update(np.ascontiguousarray(self.kinds, dtype=np.uint8).tobytes())
        lengths = np.fromiter((len(b) for b in self.token_bytes), dtype=np.uint32, count=self.size)
        h.update(lengths.tobytes())
        h.update(b"".join(self.token_bytes))
        h.update(np.array(sorted(self.eos_ids), dtype=np.int64).tobytes())
        digest = h.hexdigest()
        object.__setattr__(self, "_fingerprint", digest)
        return digest

"""Small vocabularies built directly from byte strings, for tests that must not need a loader."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from indexc.vocab.model import TokenKind, Vocabulary

SEED_000_TOKENS = [b"a", b"b", b"c", b"ax", b"az", b"aza", b"aya", b"ayb"]  # "ay" is not a token


def synthetic_vocab(tokens: Sequence[bytes], kinds: Sequence[TokenKind] | None = None) -> Vocabulary:
    """Token i has bytes ``tokens[i]``; every token is NORMAL unless ``kinds`` says otherwise."""
    if kinds is None:
        kinds = [TokenKind.NORMAL] * len(tokens)
    return Vocabulary(
        token_bytes=tuple(tokens),
        kinds=np.array([int(k) for k in kinds], dtype=np.uint8),
        eos_ids=(),
        family="synthetic",
        source="test",
    )

"""Which token of A is which token of B: ids when the vocabularies agree, bytes when they do not.

With the same vocabulary fingerprint the ids mean the same tokens, and a mask is compared id
for id; the vocabularies are needed only to print tokens readably.  With different
fingerprints (a tokenizer upgrade) ids mean nothing across the two, so every text token is
keyed by its *bytes* (the text it produces) and every end-of-sequence id by one shared
``EOS_KEY``; masks are compared over the keys both vocabularies have, and the tokens that
exist in only one vocabulary are listed once, apart (a per-state list of them would repeat
the same news in every state).  Several ids with the same bytes (Mistral has many) share a
key: the diff is about which texts may come next, and such ids always agree.

Masks of the two artifacts are turned into sorted key arrays once per stored (deduplicated)
mask and compared with ``np.setdiff1d``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from indexc.diff.errors import DiffError
from indexc.diff.tables import DiffTables
from indexc.vocab.display import printable
from indexc.vocab.model import Vocabulary

EOS_KEY = 0
NO_KEY = -1  # never allowed in any mask: special (non-eos) tokens and holes


@dataclass(frozen=True)
class Side:
    """One artifact's ids in the shared key space."""

    tables: DiffTables
    vocab: Vocabulary | None
    key_of_id: np.ndarray | None  # None: keys are the ids themselves
    id_of_key: np.ndarray | None  # first id of each key (-1 where this side lacks it)

    def label(self, token: int) -> str:
        """``id`` or ``id 'text'`` (the token's bytes, escaped where unprintable)."""
        if self.vocab is None:
            return str(token)
        text = self.vocab.token_bytes[token]
        if not text:
            name = self.vocab.names[token] if self.vocab.names else ""
            return f"{token} <{name or 'special'}>"
        return f"{token} '{printable(text)}'"


class TokenSpace:
    def __init__(self, a: DiffTables, b: DiffTables, vocab_a: Vocabulary | None,
                 vocab_b: Vocabulary | None):
        self.same_vocabulary = a.fingerprint == b.fingerprint
        for tables, vocab in ((a, vocab_a), (b, vocab_b)):
            if vocab is not None and vocab.fingerprint != tables.fingerprint:
                raise DiffError(f"the given tokenizer (fingerprint {vocab.fingerprint[:12]}) is not the one the "
                                f"artifact was built for ({tables.fingerprint[:12]})", source=tables.path)
        if self.same_vocabulary:
            vocab = vocab_a or vocab_b
            self.a, self.b = Side(a, vocab, None, None), Side(b, vocab, None, None)
            self.common = None
            self.only_a = self.only_b = np.zeros(0, dtype=np.int64)
        else:
            if vocab_a is None or vocab_b is None:
                raise DiffError("the artifacts were built for different vocabularies; pass both tokenizers "
                                "(--tokenizer-a, --tokenizer-b) to compare them by token bytes", source=b.path)
            self._by_bytes(a, b, vocab_a, vocab_b)
        self._keys_a = lru_cache(maxsize=512)(lambda mask: self._mask_keys(self.a, mask))
        self._keys_b = lru_cache(maxsize=512)(lambda mask: self._mask_keys(self.b, mask))

    def _by_bytes(self, a: DiffTables, b: DiffTables, vocab_a: Vocabulary, vocab_b: Vocabulary) -> None:
        texts_a, texts_b = _text_tokens(vocab_a), _text_tokens(vocab_b)
        universe = sorted(set(texts_a.values()) | set(texts_b.values()))
        key_of_text = {text: key for key, text in enumerate(universe, start=EOS_KEY + 1)}
        n_keys = len(universe) + 1
        sides = []
        for tables, vocab, texts in ((a, vocab_a, texts_a), (b, vocab_b, texts_b)):
            key_of_id = np.full(vocab.size, NO_KEY, dtype=np.int64)
            ids = np.fromiter(texts, dtype=np.int64, count=len(texts))
            key_of_id[ids] = [key_of_text[texts[i]] for i in ids.tolist()]
            key_of_id[list(vocab.eos_ids)] = EOS_KEY
            id_of_key = np.full(n_keys, -1, dtype=np.int64)
            has_key = np.flatnonzero(key_of_id >= 0)[::-1]  # reversed: the lowest id of a key is written last
            id_of_key[key_of_id[has_key]] = has_key
            sides.append(Side(tables, vocab, key_of_id, id_of_key))
        self.a, self.b = sides
        in_a, in_b = self.a.id_of_key >= 0, self.b.id_of_key >= 0
        self.common = in_a & in_b
        self.only_a = self.a.id_of_key[in_a & ~in_b]  # ids, in A's numbering
        self.only_b = self.b.id_of_key[in_b & ~in_a]

    def keys_a(self, mask: int) -> np.ndarray:
        return self._keys_a(mask)

    def keys_b(self, mask: int) -> np.ndarray:
        return self._keys_b(mask)

    def _mask_keys(self, side: Side, mask: int) -> np.ndarray:
        """Sorted keys of a stored mask (-1: the dead state's empty mask), common keys only."""
        if mask < 0:
            return np.zeros(0, dtype=np.int64)
        ids = side.tables.mask_token_ids(mask).astype(np.int64)
        if side.key_of_id is None:
            return ids
        keys = np.unique(side.key_of_id[ids])
        keys = keys[keys >= 0]
        return keys[self.common[keys]]

    def ids_a(self, keys: np.ndarray) -> np.ndarray:
        return keys if self.a.id_of_key is None else self.a.id_of_key[keys]

    def ids_b(self, keys: np.ndarray) -> np.ndarray:
        return keys if self.b.id_of_key is None else self.b.id_of_key[keys]


def _text_tokens(vocab: Vocabulary) -> dict[int, bytes]:
    """id -> bytes of every text token (specials and holes have no text to compare)."""
    ids = np.flatnonzero(vocab.text_token_mask()).tolist()
    return {i: vocab.token_bytes[i] for i in ids}

"""Greedy longest-match tokenization: a text's token ids without the tokenizer's merges.

The compiler's warm-up walk (``indexc.artifact.warm_memo``) needs *a* tokenization of its
synthetic text, not the tokenizer's own: the configuration after a text prefix is the same
however the prefix was cut, so a cut only decides at which positions masks are asked for.
Longest match cuts JSON text much as a BPE tokenizer does (keys and punctuation runs whole).
The compiler has no BPE merges (the vocabulary file's ``tokens`` only), and adding a tokenizer
library for a warm-up was not worth a dependency.
"""

from __future__ import annotations

import numpy as np

from indexc.vocab.model import Vocabulary


def greedy_token_ids(vocab: Vocabulary, text: bytes, *, limit: int) -> np.ndarray:
    """At most ``limit`` text-token ids whose bytes spell a prefix of ``text``, each the longest
    token at its position (the lowest id among equal bytes); stops early where no token starts."""
    by_bytes, longest = _text_tokens(vocab)
    ids, position = [], 0
    while position < len(text) and len(ids) < limit:
        reach = longest.get(text[position:position + 2], 1)
        for end in range(min(len(text), position + reach), position, -1):
            found = by_bytes.get(text[position:end])
            if found is not None:
                ids.append(found)
                position = end
                break
        else:
            break
    return np.array(ids, dtype=np.int32)


def _text_tokens(vocab: Vocabulary) -> tuple[dict[bytes, int], dict[bytes, int]]:
    """(bytes -> lowest text-token id, first two bytes -> the longest token's length that starts
    with them), built once per vocabulary (~35 ms for Llama-3).  The lengths tried at a position
    start there: Llama-3's longest token has 128 bytes, but a token that starts like a word's
    first two letters rarely more than 10, and a grammar's sampled warm-up cuts dozens of
    sentences (lark.lark's: ~40 -> ~8 ms)."""
    cached = vocab.__dict__.get("_greedy_tokens")
    if cached is None:
        by_bytes: dict[bytes, int] = {}
        for token_id in np.flatnonzero(vocab.text_token_mask()).tolist():
            data = vocab.token_bytes[token_id]
            if data:
                by_bytes.setdefault(data, token_id)
        longest: dict[bytes, int] = {}
        for data in by_bytes:
            if len(data) > longest.get(data[:2], 1):
                longest[data[:2]] = len(data)
        cached = (by_bytes, longest)
        object.__setattr__(vocab, "_greedy_tokens", cached)
    return cached

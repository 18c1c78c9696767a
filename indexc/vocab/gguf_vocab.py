"""Where a GGUF file's tokenizer metadata becomes a ``TokenTable``.

The keys read (llama.cpp's names): ``tokenizer.ggml.model``, ``tokenizer.ggml.tokens`` (one
string per id), ``tokenizer.ggml.token_type`` (optional, one int per id) and the declared end
ids ``tokenizer.ggml.eos_token_id``, ``eot_token_id`` and ``eom_token_id`` (optional).

The model names the spelling of ``NORMAL`` tokens: ``gpt2`` is byte-level BPE (the GPT-2 byte
map), ``llama`` is SentencePiece (``▁`` = space; llama.cpp's SPM), ``t5`` is a SentencePiece
Unigram.  Other models (``bert`` WordPiece, ``rwkv``, ...) and ``none`` are refused by name.

Token types, as llama.cpp's ``token_to_piece`` treats them:
- NORMAL (1): the model's spelling;
- USER_DEFINED (4): USER, the string's UTF-8 as written (converters store added tokens as
  plain text, with any ``▁`` already made a space);
- BYTE (6): BYTE, the one byte of its ``<0xNN>`` string (anything else is an error);
- CONTROL (3) and UNKNOWN (2): SPECIAL, no bytes;
- UNUSED (5): HOLE, no token (llama.cpp never emits or prints it).
Without a ``token_type`` array every token is NORMAL.  Type 0 (undefined) and types above 6
are refused: llama.cpp would silently print nothing for them.
"""

from __future__ import annotations

import os

import numpy as np

from indexc.errors import VocabularyError
from indexc.vocab.byte_level import byte_level_bytes
from indexc.vocab.gguf_reader import read_gguf_metadata
from indexc.vocab.model import TokenKind
from indexc.vocab.sentencepiece import BYTE_PIECES, piece_bytes
from indexc.vocab.token_table import TokenTable

MODEL_KEY = "tokenizer.ggml.model"
TOKENS_KEY = "tokenizer.ggml.tokens"
TOKEN_TYPE_KEY = "tokenizer.ggml.token_type"
END_ID_KEYS = ("tokenizer.ggml.eos_token_id", "tokenizer.ggml.eot_token_id", "tokenizer.ggml.eom_token_id")

FAMILY_OF_MODEL = {
    "gpt2": "gguf-byte-level-bpe",
    "llama": "gguf-sentencepiece-bpe",
    "t5": "gguf-unigram",
}

# Index = GGUF token type (llama.cpp's llama_token_type); 255 marks a type that is refused.
REFUSED = 255
KIND_OF_TOKEN_TYPE = np.array(
    [REFUSED, TokenKind.NORMAL, TokenKind.SPECIAL, TokenKind.SPECIAL, TokenKind.USER, TokenKind.HOLE,
     TokenKind.BYTE],
    dtype=np.uint8,
)


def read_gguf_tokenizer(path: str | os.PathLike) -> tuple[TokenTable, list[int]]:
    """The token table of a GGUF file and the end ids its metadata declares."""
    source = os.fspath(path)
    meta = read_gguf_metadata(source, keys={MODEL_KEY, TOKENS_KEY, TOKEN_TYPE_KEY, *END_ID_KEYS})
    family = _family(meta.get(MODEL_KEY), source)
    tokens = meta.get(TOKENS_KEY)
    if not (isinstance(tokens, list) and all(type(t) is str for t in tokens)):
        raise VocabularyError(f"GGUF file has no {TOKENS_KEY} array of strings", source=source)
    kinds = _kinds(meta.get(TOKEN_TYPE_KEY), len(tokens), source)

    table = TokenTable(len(tokens), family=family, source=source)
    try:
        spelled = byte_level_bytes(tokens) if family == "gguf-byte-level-bpe" else piece_bytes(tokens)
    except UnicodeEncodeError:  # unreachable: the strings were decoded from UTF-8
        raise VocabularyError("a token is not valid Unicode", source=source) from None
    for i in np.flatnonzero(kinds != TokenKind.NORMAL).tolist():
        spelled[i] = _special_spelling(tokens[i], TokenKind(kinds[i]), i, source)
    table.place_many(np.arange(len(tokens), dtype=np.int64), spelled, tokens, kinds)
    return table, _declared_end_ids(meta, source)


def _family(model: object, source: str) -> str:
    if model is None:
        raise VocabularyError(f"GGUF file has no tokenizer metadata ({MODEL_KEY})", source=source)
    if model in FAMILY_OF_MODEL:
        return FAMILY_OF_MODEL[model]
    raise VocabularyError(
        f"GGUF tokenizer model {model!r} is not supported (supported: {', '.join(FAMILY_OF_MODEL)})",
        source=source,
    )


def _kinds(token_types: object, count: int, source: str) -> np.ndarray:
    if token_types is None:
        return np.full(count, TokenKind.NORMAL, dtype=np.uint8)
    if not (isinstance(token_types, np.ndarray) and token_types.dtype.kind in "iu"):
        raise VocabularyError(f"{TOKEN_TYPE_KEY} is not an array of integers", source=source)
    if len(token_types) != count:
        raise VocabularyError(f"{TOKEN_TYPE_KEY} has {len(token_types)} entries for {count} tokens",
                              source=source)
    in_range = (token_types >= 0) & (token_types < len(KIND_OF_TOKEN_TYPE))
    kinds = np.full(count, REFUSED, dtype=np.uint8)
    kinds[in_range] = KIND_OF_TOKEN_TYPE[token_types[in_range]]
    refused = np.flatnonzero(kinds == REFUSED)
    if len(refused):
        i = int(refused[0])
        raise VocabularyError(f"token {i} has unknown token type {int(token_types[i])}", source=source)
    return kinds


def _special_spelling(text: str, kind: TokenKind, token_id: int, source: str) -> bytes:
    """Bytes of a token whose type is not NORMAL."""
    if kind == TokenKind.USER:
        return text.encode("utf-8")
    if kind == TokenKind.BYTE:
        if text not in BYTE_PIECES:
            raise VocabularyError(f"byte token {token_id} is {text!r}, not <0xNN>", source=source)
        return bytes((BYTE_PIECES[text],))
    return b""


def _declared_end_ids(meta: dict, source: str) -> list[int]:
    ids = []
    for key in END_ID_KEYS:
        value = meta.get(key)
        if value is None:
            continue
        if type(value) is not int:
            raise VocabularyError(f"{key} is not an integer", source=source)
        if value >= 0:  # -1 is llama.cpp's "no such token"
            ids.append(value)
    return ids

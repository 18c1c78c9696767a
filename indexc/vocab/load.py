"""The two ways to get a ``Vocabulary``: read a tokenizer file, or build one from byte strings.

``load_vocabulary`` recognises the file by its first bytes, never by its name: ``GGUF`` is a
GGUF model file, the zstandard magic or anything else is taken for a HF tokenizer.json (a file
that is neither fails there with a JSON error at a position).  It then settles the eos set
(``eos``) and pads to the model's ``vocab_size``.

``vocabulary_from_tokens`` is for tests and synthetic vocabularies: every id is a NORMAL token
with the given bytes, except the ids listed as special or eos (SPECIAL, no bytes) and empty
byte strings (holes).
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np

from indexc.errors import VocabularyError
from indexc.vocab.eos import resolve_eos_ids
from indexc.vocab.gguf_reader import GGUF_MAGIC
from indexc.vocab.gguf_vocab import read_gguf_tokenizer
from indexc.vocab.hf_json import read_hf_tokenizer
from indexc.vocab.model import TokenKind, Vocabulary
from indexc.vocab.token_table import TokenTable
from indexc.vocab.tokenizer_config import find_tokenizer_config, read_eos_token


def load_vocabulary(
    path: str | os.PathLike,
    *,
    config_path: str | os.PathLike | None = None,
    eos_ids: Sequence[int] | None = None,
    vocab_size: int | None = None,
) -> Vocabulary:
    """The vocabulary of a HF tokenizer.json (``.json`` / ``.json.zst``) or a GGUF file.

    ``config_path``: a HF tokenizer_config.json for the eos token (default: found beside a HF
    tokenizer file).  ``eos_ids``: the eos set, replacing what the files say.  ``vocab_size``:
    the model's vocabulary size when larger than the tokenizer's (the extra ids are holes).
    Raises ``VocabularyError`` naming the file and what is wrong.
    """
    source = os.fspath(path)
    declared_ids: list[int] = []
    if _starts_with(source, GGUF_MAGIC):
        table, declared_ids = read_gguf_tokenizer(source)
    else:
        table = read_hf_tokenizer(source)
        if config_path is None:
            config_path = find_tokenizer_config(source)
    config_source = os.fspath(config_path) if config_path is not None else None
    config_eos = read_eos_token(config_source) if config_source is not None and eos_ids is None else None
    eos = resolve_eos_ids(
        table.names,
        table.kinds,
        override=eos_ids,
        declared_ids=declared_ids,
        config_eos=config_eos,
        source=source,
        config_source=config_source,
    )
    return table.to_vocabulary(sorted(eos), vocab_size)


def vocabulary_from_tokens(
    token_bytes: Sequence[bytes],
    *,
    eos_ids: Sequence[int] = (),
    special_ids: Sequence[int] = (),
    family: str = "synthetic",
    source: str = "<memory>",
) -> Vocabulary:
    """A vocabulary whose token ``i`` stands for ``token_bytes[i]``.

    Ids in ``special_ids`` or ``eos_ids`` are SPECIAL (their bytes are dropped; the given bytes
    become the display name); an empty byte string elsewhere is a hole.
    """
    token_bytes = [bytes(data) for data in token_bytes]
    table = TokenTable(len(token_bytes), family=family, source=source)
    names = [data.decode("utf-8", "backslashreplace") for data in token_bytes]
    kinds = np.full(len(token_bytes), TokenKind.NORMAL, dtype=np.uint8)
    table.place_many(np.arange(len(token_bytes), dtype=np.int64), token_bytes, names, kinds)
    for token_id in {*special_ids, *eos_ids}:
        if not 0 <= token_id < len(token_bytes):
            raise VocabularyError(f"special or eos id {token_id} is outside [0, {len(token_bytes)})",
                                  source=source)
        table.place(token_id, b"", TokenKind.SPECIAL, names[token_id])
    return table.to_vocabulary(eos_ids)


def _starts_with(source: str, magic: bytes) -> bool:
    try:
        with open(source, "rb") as handle:
            return handle.read(len(magic)) == magic
    except OSError as exc:
        raise VocabularyError(f"cannot read tokenizer: {exc.strerror or exc}", source=source) from None

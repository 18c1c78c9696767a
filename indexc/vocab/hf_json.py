"""Where a HF ``tokenizer.json`` (plain or zstandard-compressed) becomes a ``TokenTable``.

Three steps: read the text (a zstd frame is recognised by its magic number, not by the name),
detect the family (``hf_family``), then spell every token as bytes:

- the model's vocabulary: a ``{token: id}`` object (BPE) or ``[[piece, score], ...]`` with the
  id as the position (Unigram); byte-level strings go through the GPT-2 byte map
  (``byte_level``), SentencePiece pieces through ``▁`` -> space and ``<0xNN>`` -> that byte
  (``sentencepiece``);
- the model's unknown token (``unk_token`` / ``unk_id``) is SPECIAL: it stands for text the
  model could not spell, not for the text ``<unk>``;
- ``added_tokens`` override the model's entry for their id: ``special: true`` -> SPECIAL (no
  bytes); ``special: false`` -> USER, whose bytes are the content's UTF-8 *as written*, in
  every family.  ``tokenizers`` matches an added token against the input text before any
  byte mapping, so encoding ``"<tool_call>"`` or ``"é x"`` yields the added id, and these are
  the bytes it stands for.  (Its ByteLevel decoder would byte-map a content made only of
  byte-map characters; for an added token that collides with a byte-level vocabulary entry,
  such as ``Ġhi``, encoding and decoding disagree and the encoding side is kept here.)

Normalisers are not applied to the tokens (they act on the input text): a token's bytes are
what it stands for in the *normalised* text.  A text that the normaliser changes (NFD input to
Qwen2's NFC, full-width forms to T5's NFKC-like map) is spelled in its normalised form.

``merges`` are never parsed: in the layout ``tokenizers`` writes they are the end of the file
and are cut off the text before ``json.loads`` (``without_trailing_merges``).  Measured on
this machine (2 shared cores, best of 5, fresh process) for Llama-3 (9.1 MB, 128,256 ids):
cutting the merges 5 ms (3.3 MB left), UTF-8 decode 5 ms, ``json.loads`` 55 ms (90 ms with
the merges), byte mapping 32 ms; the whole ``load_vocabulary`` 140 ms plain and 150 ms from
the zstd file (16 ms of decompression).  ``json.loads`` of ``bytes`` is slower than of the
decoded ``str`` (164 ms against 112 ms for the whole file), hence the explicit decode.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import zstandard

from indexc.errors import VocabularyError
from indexc.vocab.byte_level import byte_level_bytes
from indexc.vocab.hf_family import BYTE_LEVEL_BPE, HfFamily, detect_family
from indexc.vocab.model import TokenKind
from indexc.vocab.sentencepiece import byte_piece_positions, piece_bytes
from indexc.vocab.token_table import TokenTable, first_duplicate, ids_array

ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
MAX_JSON_BYTES = 1 << 30  # a decompressed tokenizer.json larger than 1 GiB is not a tokenizer
MAX_MERGES_CANDIDATES = 64  # "merges" strings looked at from the end before giving up on the cut
MERGES_KEY = re.compile(rb'"merges"\s*:\s*\[')
TRAILING_CLOSERS = re.compile(rb"\]\s*\}\s*\}\s*")


def read_tokenizer_json_text(path: str | Path) -> str:
    """The text of a tokenizer.json, decompressing a zstandard file (recognised by content)."""
    source = str(path)
    return _decode(_read_json_bytes(source), source)


def read_hf_tokenizer(path: str | Path) -> TokenTable:
    """Every token of a HF tokenizer.json, with bytes and kinds (eos ids are decided later)."""
    source = str(path)
    data = _read_json_bytes(source)
    text = _decode(without_trailing_merges(data) or data, source)
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise VocabularyError(f"not a tokenizer.json: invalid JSON ({exc.msg})", source=source,
                              position=exc.pos) from None
    except RecursionError:
        raise VocabularyError("not a tokenizer.json: JSON nested too deeply", source=source) from None
    if not isinstance(doc, dict):
        raise VocabularyError("not a tokenizer.json: the top level is not a JSON object", source=source)
    return tokens_of_document(doc, source)


def without_trailing_merges(data: bytes) -> bytes | None:
    """``data`` with the BPE merges list emptied, when it can be cut out without parsing it.

    Merges are most of a BPE file (5.1 of Llama-3's 9.1 MB) and are never needed here.  The
    cut applies only to the layout every ``tokenizers`` file has: the merges array is the last
    value of ``model``, which is the last value of the document, so the text ends with
    ``"merges": [ ... ] } }``.  The key is the last ``"merges"`` followed by ``:`` and ``[``
    whose quote is not escaped (inside a JSON string every quote is; a merge pair holding the
    token ``merges`` is followed by ``,`` or ``]``), and the array runs from there to the last
    ``]``.  Any other layout returns None and the whole file is parsed.  The cut array is not
    validated: a file broken only inside its merges still loads.
    """
    key = len(data)
    for _ in range(MAX_MERGES_CANDIDATES):
        key = data.rfind(b'"merges"', 0, key)
        if key < 0 or MERGES_KEY.match(data, key):
            break
    else:
        return None
    if key < 0 or data[key - 1:key] == b"\\":  # not found, or an escaped quote inside a string
        return None
    close = data.rfind(b"]")
    if close < key or not TRAILING_CLOSERS.fullmatch(data, close):
        return None
    return data[:key] + b'"merges": []' + data[close + 1:]


def tokens_of_document(doc: dict[str, Any], source: str) -> TokenTable:
    """The token table of an already parsed tokenizer.json."""
    family = detect_family(doc, source)
    added = _added_tokens(doc, source)
    model = doc["model"]
    if family.model_type == "Unigram":
        strings, ids, unk_id = _unigram_vocab(model, source)
    else:
        strings, ids, unk_id = _bpe_vocab(model, source)
    size = max(int(ids.max()) + 1 if len(ids) else 0, max((a["id"] + 1 for a in added), default=0))
    table = TokenTable(size, family=family.name, source=source)
    token_bytes, kinds = _spell(strings, family, source)
    table.place_many(ids, token_bytes, strings, kinds)
    if unk_id is not None:
        table.place(unk_id, b"", TokenKind.SPECIAL, table.names[unk_id])
    for token in added:
        content = token["content"]
        if token["special"]:
            table.place(token["id"], b"", TokenKind.SPECIAL, content)
        else:
            table.place(token["id"], _utf8(content, source), TokenKind.USER, content)
    return table


def _spell(strings: list[str], family: HfFamily, source: str) -> tuple[list[bytes], np.ndarray]:
    """Bytes and kinds (NORMAL or BYTE) of the model's vocabulary strings."""
    kinds = np.full(len(strings), TokenKind.NORMAL, dtype=np.uint8)
    try:
        if family.name == BYTE_LEVEL_BPE:
            return byte_level_bytes(strings), kinds
        token_bytes = piece_bytes(strings)
    except UnicodeEncodeError:
        bad = next(s for s in strings if not _encodable(s))
        raise VocabularyError(f"token {bad!r} is not valid Unicode", source=source) from None
    if family.byte_fallback:
        for position, value in byte_piece_positions(strings):
            token_bytes[position] = bytes((value,))
            kinds[position] = TokenKind.BYTE
    return token_bytes, kinds


def _bpe_vocab(model: dict[str, Any], source: str) -> tuple[list[str], np.ndarray, int | None]:
    vocab = model.get("vocab")
    if not isinstance(vocab, dict):
        raise VocabularyError('BPE model: "vocab" is not a {token: id} object', source=source)
    strings = list(vocab)
    ids = ids_array(vocab.values(), "BPE vocab", source)
    duplicate = first_duplicate(ids)
    if duplicate is not None:
        raise VocabularyError(f"BPE vocab: id {duplicate} is given to two tokens", source=source)
    unk = model.get("unk_token")
    return strings, ids, vocab.get(unk) if isinstance(unk, str) else None


def _unigram_vocab(model: dict[str, Any], source: str) -> tuple[list[str], np.ndarray, int | None]:
    vocab = model.get("vocab")
    if not isinstance(vocab, list):
        raise VocabularyError('Unigram model: "vocab" is not a list of [piece, score] pairs', source=source)
    if not all(type(entry) is list and entry and type(entry[0]) is str for entry in vocab):
        raise VocabularyError("Unigram model: a vocab entry is not a [piece, score] pair", source=source)
    strings = [entry[0] for entry in vocab]
    unk_id = model.get("unk_id")
    if unk_id is not None and not (type(unk_id) is int and 0 <= unk_id < len(strings)):
        raise VocabularyError(f"Unigram model: unk_id {unk_id!r} is not a piece id", source=source)
    return strings, np.arange(len(strings), dtype=np.int64), unk_id


def _added_tokens(doc: dict[str, Any], source: str) -> list[dict[str, Any]]:
    added = doc.get("added_tokens") or []
    if not isinstance(added, list):
        raise VocabularyError('"added_tokens" is not a list', source=source)
    for index, token in enumerate(added):
        valid = (
            isinstance(token, dict)
            and type(token.get("id")) is int
            and token["id"] >= 0
            and isinstance(token.get("content"), str)
        )
        if not valid:
            raise VocabularyError(f"added_tokens[{index}] needs an integer id >= 0 and a string content",
                                  source=source)
        token["special"] = bool(token.get("special", False))
    return added


def _read_json_bytes(source: str) -> bytes:
    data = _read_file(source)
    return _decompress(data, source) if data.startswith(ZSTD_MAGIC) else data


def _decode(data: bytes, source: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise VocabularyError("not a tokenizer.json: not UTF-8 text", source=source,
                              position=exc.start) from None


def _read_file(source: str) -> bytes:
    try:
        with open(source, "rb") as handle:
            return handle.read()
    except OSError as exc:
        raise VocabularyError(f"cannot read tokenizer: {exc.strerror or exc}", source=source) from None


def _decompress(data: bytes, source: str) -> bytes:
    """The content of a zstd frame, refusing one whose header announces more than 1 GiB."""
    try:
        announced = zstandard.frame_content_size(data)
        if announced > MAX_JSON_BYTES:
            raise VocabularyError(f"zstandard frame announces {announced} bytes (more than 1 GiB)",
                                  source=source)
        reader = zstandard.ZstdDecompressor().decompressobj()
        out = reader.decompress(data)
    except zstandard.ZstdError as exc:
        raise VocabularyError(f"corrupt zstandard data: {exc}", source=source) from None
    if not reader.eof:
        raise VocabularyError("truncated zstandard data", source=source)
    if len(out) > MAX_JSON_BYTES:
        raise VocabularyError("decompressed tokenizer is larger than 1 GiB", source=source)
    return out


def _utf8(text: str, source: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        raise VocabularyError(f"token {text!r} is not valid Unicode", source=source) from None


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True

"""A minimal GGUF writer for the tests: header + metadata key-values, no tensors.

Written from the GGUF specification, independently of ``indexc.vocab.gguf_reader`` (it
imports nothing from it), so that reading what this writes checks the reader against the
format and not against itself.  Layout (little-endian): ``"GGUF"``, ``uint32 version``,
``uint64 tensor_count``, ``uint64 kv_count``, then per pair ``string key``, ``uint32 type``,
value; a string is ``uint64 length`` + UTF-8; an array is ``uint32 element type``, ``uint64
count``, elements.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# Value type codes of the GGUF specification.
UINT8, INT8, UINT16, INT16, UINT32, INT32, FLOAT32, BOOL, STRING, ARRAY, UINT64, INT64, FLOAT64 = range(13)

SCALAR_FORMATS = {
    UINT8: "<B", INT8: "<b", UINT16: "<H", INT16: "<h", UINT32: "<I", INT32: "<i",
    FLOAT32: "<f", BOOL: "<?", UINT64: "<Q", INT64: "<q", FLOAT64: "<d",
}

# llama.cpp token types.
NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6


@dataclass(frozen=True)
class Value:
    """A typed metadata value; ``element_type`` only for arrays."""

    type: int
    value: Any
    element_type: int | None = None


def u32(value: int) -> Value:
    return Value(UINT32, value)


def string(value: str) -> Value:
    return Value(STRING, value)


def string_array(values: Sequence[str]) -> Value:
    return Value(ARRAY, list(values), STRING)


def int32_array(values: Sequence[int]) -> Value:
    return Value(ARRAY, list(values), INT32)


def encode_string(text: str) -> bytes:
    data = text.encode("utf-8")
    return struct.pack("<Q", len(data)) + data


def encode_value(value: Value) -> bytes:
    """The bytes of a value, without its type code."""
    if value.type == STRING:
        return encode_string(value.value)
    if value.type == ARRAY:
        head = struct.pack("<IQ", value.element_type, len(value.value))
        if value.element_type == ARRAY:
            return head + b"".join(encode_value(v) for v in value.value)
        return head + b"".join(encode_value(Value(value.element_type, v)) for v in value.value)
    return struct.pack(SCALAR_FORMATS[value.type], value.value)


def gguf_bytes(metadata: dict[str, Value], *, version: int = 3, tensor_count: int = 0) -> bytes:
    """A GGUF file holding ``metadata`` (in insertion order) and no tensor infos."""
    out = [b"GGUF", struct.pack("<IQQ", version, tensor_count, len(metadata))]
    for key, value in metadata.items():
        out.append(encode_string(key))
        out.append(struct.pack("<I", value.type))
        out.append(encode_value(value))
    return b"".join(out)


def write_gguf(path: Path, metadata: dict[str, Value], **header: int) -> Path:
    path.write_bytes(gguf_bytes(metadata, **header))
    return path


def tokenizer_metadata(
    model: str,
    tokens: Sequence[str],
    token_types: Sequence[int] | None = None,
    *,
    eos_token_id: int | None = None,
    extra: dict[str, Value] | None = None,
) -> dict[str, Value]:
    """The metadata llama.cpp's converter writes for a tokenizer (the keys indexc reads)."""
    metadata = {
        "general.architecture": string("llama" if model == "llama" else "gpt2"),
        "tokenizer.ggml.model": string(model),
        "tokenizer.ggml.tokens": string_array(tokens),
    }
    if token_types is not None:
        metadata["tokenizer.ggml.token_type"] = int32_array(token_types)
    if eos_token_id is not None:
        metadata["tokenizer.ggml.eos_token_id"] = u32(eos_token_id)
    metadata.update(extra or {})
    return metadata

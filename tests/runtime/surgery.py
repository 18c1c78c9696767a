"""Edit artifact bytes with checksums kept valid, to reach the loader's checks behind the CRCs.

Written from the format description (docs/artifact-format.md), not with the writer's code:
prefix ``<8sII`` (magic, header length, header CRC-32), msgpack header, data area at the next
multiple of 64, section offsets relative to the data area.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Callable

import msgpack
import numpy as np

PREFIX = struct.Struct("<8sII")


def split(raw: bytes) -> tuple[dict, bytes]:
    """(header dict, data area bytes)."""
    magic, length, _ = PREFIX.unpack_from(raw)
    header = msgpack.unpackb(raw[16 : 16 + length], raw=False)
    data_start = -(-(16 + length) // 64) * 64
    return header, raw[data_start:]


def join(header: dict, data: bytes, magic: bytes = b"INDEXC\x00\x01") -> bytes:
    packed = msgpack.packb(header, use_bin_type=True)
    head = PREFIX.pack(magic, len(packed), zlib.crc32(packed)) + packed
    return head + bytes(-len(head) % 64) + data


def rewrite_header(raw: bytes, change: Callable[[dict], None]) -> bytes:
    header, data = split(raw)
    change(header)
    return join(header, data)


def section(header: dict, name: str) -> dict:
    return next(entry for entry in header["sections"] if entry["name"] == name)


def rewrite_section(raw: bytes, name: str, change: Callable[[np.ndarray], None]) -> bytes:
    """Apply ``change`` to a copy of the section's array and store it back with a fresh CRC."""
    header, data = split(raw)
    entry = section(header, name)
    start, end = entry["offset"], entry["offset"] + entry["nbytes"]
    array = np.frombuffer(data[start:end], dtype=entry["dtype"]).reshape(entry["shape"]).copy()
    change(array)
    patched = array.tobytes()
    entry["crc32"] = zlib.crc32(patched)
    return join(header, data[:start] + patched + data[end:])


def setting(index, value) -> Callable[[np.ndarray], None]:
    """A ``rewrite_section`` change: item(s) ``index`` of the flattened section set to ``value``."""
    def change(array: np.ndarray) -> None:
        array.reshape(-1)[index] = value
    return change


def follow_walk(data: bytes, tokens: list[int]) -> None:
    """Load a grammar artifact and follow ``tokens``, asking every mask on the way (the hostile
    tests' walk: the runtime's first-use checks run where a mask reads a section)."""
    import indexc_runtime

    matcher = indexc_runtime.load(data).matcher()
    for token in tokens:
        matcher.allowed_token_ids()
        matcher.advance(token)


def assert_refused_at_load(data: bytes, name: str, change: Callable[[np.ndarray], None], message: str) -> None:
    """``load`` refuses the file with section ``name`` changed by ``change`` (checksums kept),
    with an ``ArtifactError`` matching ``message``."""
    import pytest

    import indexc_runtime

    with pytest.raises(indexc_runtime.ArtifactError, match=message):
        indexc_runtime.load(rewrite_section(data, name, change))

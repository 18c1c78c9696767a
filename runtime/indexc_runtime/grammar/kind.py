"""Is this artifact a grammar index?  Decided from its header bytes alone (``load``'s dispatch).

``indexc_runtime.load`` serves DFA and grammar artifacts; the two have different header keys
and sections, so the kind is decided before either reader runs.  The header is not decoded
here: the writer encodes the pair ``index_kind: "grammar"`` as the exact msgpack bytes
``GRAMMAR_KIND_BYTES`` and those bytes cannot occur inside any other header value (the byte
``0xA7`` directly after the ASCII ``d`` is not valid UTF-8, and header strings are UTF-8;
header keys are ASCII), so one substring test of the header bytes decides.  The grammar
reader then checks the header in full.  Cost: one small read (the prefix and the header; for
the ``.zst`` shipping form, inflating the start of the frame), a few microseconds, so the DFA
path's load barely notices.  Anything unreadable is "not a grammar": the DFA reader then
reports the problem with its full checks.
"""

from __future__ import annotations

import os

import msgpack
import zstandard

from indexc_runtime.format import MAX_HEADER_BYTES, PREFIX, ZSTD_MAGIC
from indexc_runtime.grammar.format import GRAMMAR_INDEX_KIND

GRAMMAR_KIND_BYTES = msgpack.packb("index_kind") + msgpack.packb(GRAMMAR_INDEX_KIND)


def is_grammar_artifact(path_or_bytes) -> bool:
    """True iff the artifact's header says ``index_kind: "grammar"`` (False for anything unreadable)."""
    try:
        return GRAMMAR_KIND_BYTES in _header_bytes(path_or_bytes)
    except (OSError, ValueError, TypeError, zstandard.ZstdError):
        return False


def _header_bytes(path_or_bytes) -> bytes:
    """The prefix and header bytes of the artifact (possibly fewer, for a short or broken file)."""
    if isinstance(path_or_bytes, (bytes, bytearray, memoryview)):
        view = memoryview(path_or_bytes).cast("B")
        if bytes(view[:4]) == ZSTD_MAGIC:
            return _inflated_head(bytes(view))
        return bytes(view[: PREFIX.size + _header_length(bytes(view[: PREFIX.size]))])
    if not isinstance(path_or_bytes, (str, os.PathLike)):
        return b""
    with open(os.fspath(path_or_bytes), "rb") as handle:
        prefix = handle.read(PREFIX.size)
        if prefix[:4] == ZSTD_MAGIC:
            handle.seek(0)
            return _inflated_head(handle.read())
        return prefix + handle.read(_header_length(prefix))


def _header_length(prefix: bytes) -> int:
    if len(prefix) < PREFIX.size:
        return 0
    length = PREFIX.unpack(prefix)[1]
    return length if length <= MAX_HEADER_BYTES else 0


def _inflated_head(compressed: bytes) -> bytes:
    """Inflate only as far as the prefix and the header (a few KiB of a frame)."""
    decoder = zstandard.ZstdDecompressor().decompressobj()
    out = bytearray()
    for start in range(0, len(compressed), 4096):
        out += decoder.decompress(compressed[start : start + 4096])
        if decoder.eof or (len(out) >= PREFIX.size and len(out) >= PREFIX.size + _header_length(bytes(out[:PREFIX.size]))):
            break
    return bytes(out)

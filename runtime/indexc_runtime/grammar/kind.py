"""Is this artifact a grammar index?  ``load``'s dispatch between the DFA and grammar readers.

``indexc_runtime.load`` serves DFA and grammar artifacts; the two have different header keys
and sections, so the kind is decided before either reader checks the header.  ``load`` opens
the file once (``container.open_raw``: map, prefix, header CRC, msgpack) and asks
``is_grammar_header`` of the decoded header: one dict lookup, where a separate probe of the
file (open, read, close) cost a fresh process 55-90 us of the DFA load's ~1.1 ms.  The
chosen reader then checks the header in full; a header that is not even a map is "not a
grammar", and the DFA reader names the problem.

``is_grammar_artifact`` answers the same question for a path or bytes without mapping the
file, for tools that only want the kind: the writer encodes the pair
``index_kind: "grammar"`` as the exact msgpack bytes ``GRAMMAR_KIND_BYTES`` and those bytes
cannot occur inside any other header value (the byte ``0xA7`` directly after the ASCII ``d``
is not valid UTF-8, and header strings are UTF-8; header keys are ASCII), so one substring
test of the header bytes decides.  Cost: one small read (the prefix and the header; for the
``.zst`` shipping form, inflating the start of the frame).  Anything unreadable is "not a
grammar".
"""

from __future__ import annotations

import io
import os
import stat

import msgpack
import zstandard

from indexc_runtime.format import MAX_HEADER_BYTES, PREFIX, ZSTD_MAGIC
from indexc_runtime.grammar.format import GRAMMAR_INDEX_KIND

_OPEN_FLAGS = getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
GRAMMAR_KIND_BYTES = msgpack.packb("index_kind") + msgpack.packb(GRAMMAR_INDEX_KIND)


def is_grammar_header(header: object) -> bool:
    """True iff a decoded (not yet checked) header says ``index_kind: "grammar"``."""
    return type(header) is dict and header.get("index_kind") == GRAMMAR_INDEX_KIND


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
    descriptor = os.open(os.fspath(path_or_bytes), os.O_RDONLY | _OPEN_FLAGS)  # a FIFO must not block
    if not stat.S_ISREG(os.fstat(descriptor).st_mode):
        os.close(descriptor)
        return b""  # not a regular file: the DFA reader refuses it with its own message
    with os.fdopen(descriptor, "rb") as handle:
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
    """Inflate only the prefix and the header (a bounded read: a zstd bomb inflates no further)."""
    with zstandard.ZstdDecompressor().stream_reader(io.BytesIO(compressed)) as reader:
        prefix = _read_exactly(reader, PREFIX.size)
        return prefix + _read_exactly(reader, _header_length(prefix))


def _read_exactly(reader, size: int) -> bytes:
    out = bytearray()
    while len(out) < size:
        chunk = reader.read(size - len(out))
        if not chunk:
            break
        out += chunk
    return bytes(out)

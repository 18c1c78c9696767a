"""Turn what the caller hands to ``load`` into one read-only buffer of artifact bytes.

- A path to a raw artifact is memory-mapped (``mmap``, read-only): opening costs a few tens of
  microseconds whatever the size (~50 us in a fresh process, the first page's fault
  included), and pages are read from disk only when a mask touches them.  The zstandard
  magic is looked for in the mapping, not with a read of its own.
- Only a regular file is opened (non-blocking, checked with ``fstat``): a FIFO or a device
  would make ``load`` hang or read forever.
- A path to the ``.zst`` shipping form, or bytes starting with the zstandard magic, are
  inflated into memory (the name does not matter: the first four bytes decide).  The output
  is capped by the input: at most ``MAX_COMPRESSION_RATIO`` (1024) times the compressed size,
  at least ``MIN_INFLATION_CAP`` (64 MiB), never more than ``MAX_DECOMPRESSED_BYTES``; real
  artifacts compress 2.4-21x.  A content size declared in the frame is checked against the
  cap before anything is allocated and must be met exactly; the decoder's window is capped
  (``MAX_ZSTD_WINDOW``).  Inflation is fed in small pieces, so memory grows only with bytes
  that really come out of the decoder.  One complete frame, nothing after it.
- Bytes-like objects are used in place when they are 8-byte aligned (so that int64 views are
  aligned), else copied once into an aligned buffer.

Inflated and copied buffers are 64-byte aligned numpy arrays, like a mapped file, so every
section view is aligned for its dtype.

``populate`` maps a byte range of a memory-mapped file into the page tables now
(``madvise(MADV_POPULATE_READ)``, Linux 5.14+; elsewhere it does nothing): ``load`` uses it on
the sections that serving reads at random and that no load-time check reads (the state table,
dense rows, word values; not those of at most 64 KiB, which their checksum just read), so
that the first reads of a fresh load do not each take a page fault.  Measured: 18 us per MB
at load, where the faults cost ~1.4 us per cold ``advance`` on the 3.5 MB state table of
``[\\w ]{1,60}`` over Llama-3.  For a file that is not in the page cache, this is also where
it is read from disk: at load, not in the middle of serving.
"""

from __future__ import annotations

import mmap
import os
import stat
import sys

import numpy as np
import zstandard

from indexc_runtime.errors import ArtifactError
from indexc_runtime.format import (
    ALIGNMENT,
    MAX_COMPRESSION_RATIO,
    MAX_DECOMPRESSED_BYTES,
    MAX_ZSTD_WINDOW,
    MIN_INFLATION_CAP,
    ZSTD_MAGIC,
)

_FEED = 4096
_OPEN_FLAGS = getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)  # a FIFO must not block open()
_MADV_POPULATE_READ = getattr(mmap, "MADV_POPULATE_READ", 22) if sys.platform.startswith("linux") else None


def open_artifact_bytes(path_or_bytes) -> tuple[memoryview, str]:
    """(read-only byte buffer, a name for messages) for a path or a bytes-like object."""
    if isinstance(path_or_bytes, (bytes, bytearray, memoryview)):
        view = memoryview(path_or_bytes).cast("B")
        if bytes(view[:4]) == ZSTD_MAGIC:
            return _inflate(view, "<bytes>"), "<bytes>"
        return _aligned(view), "<bytes>"
    if not isinstance(path_or_bytes, (str, os.PathLike)):
        raise TypeError(f"load() takes a path or bytes, not {type(path_or_bytes).__name__}")
    name = os.fspath(path_or_bytes)
    try:
        descriptor = os.open(name, os.O_RDONLY | _OPEN_FLAGS)
    except OSError as exc:
        raise ArtifactError(f"cannot read the file: {exc.strerror or exc}", source=name) from None
    try:
        return _read_regular_file(descriptor, name), name
    except OSError as exc:
        raise ArtifactError(f"cannot read the file: {exc.strerror or exc}", source=name) from None
    finally:
        os.close(descriptor)


def _read_regular_file(descriptor: int, name: str) -> memoryview:
    """Map (and, for the .zst form, inflate) an open file; anything but a regular file is refused.

    The file is opened non-blocking and checked with ``fstat`` before a byte is read: a FIFO, a
    terminal or a device (``/dev/zero``) would block the reader or never end.
    """
    status = os.fstat(descriptor)
    if not stat.S_ISREG(status.st_mode):
        raise ArtifactError("cannot read the file: not a regular file (a directory, FIFO or device)", source=name)
    if status.st_size == 0:
        raise ArtifactError("the file is empty", source=name)
    view = memoryview(mmap.mmap(descriptor, 0, access=mmap.ACCESS_READ))
    if view[:4] == ZSTD_MAGIC:  # the shipping form: inflated from the mapping, which is then dropped
        return _inflate(view, name)
    return view


def inflation_cap(compressed_bytes: int) -> int:
    """The most bytes a zstandard form of ``compressed_bytes`` may inflate to (see ``format``)."""
    return min(MAX_DECOMPRESSED_BYTES, max(MIN_INFLATION_CAP, MAX_COMPRESSION_RATIO * compressed_bytes))


def _inflate(compressed: memoryview, name: str) -> memoryview:
    """Decompress exactly one complete zstandard frame, fed in small pieces, refusing more than the cap.

    The cap (``inflation_cap``) is set by the compressed size, so a small hostile file cannot
    ask for gigabytes; a content size declared in the frame header is checked against it
    before anything is allocated and must then be met exactly.  Feeding ``_FEED`` input bytes
    at a time bounds what one call can produce (a 4-byte RLE block inflates to at most
    128 KiB), so the cap is checked before memory runs away.  The frame must end exactly at
    the end of the input: a missing checksum or trailing bytes are damage.
    """
    cap = inflation_cap(compressed.nbytes)
    declared = _declared_size(compressed, name)
    if declared > cap:
        raise ArtifactError(f"the zstandard frame declares {declared:,} bytes, more than the {cap:,} allowed "
                            f"for a {compressed.nbytes:,}-byte file", source=name)
    limit = cap if declared < 0 else declared
    chunks: list[bytes] = []
    total = 0
    decoder = zstandard.ZstdDecompressor(max_window_size=MAX_ZSTD_WINDOW).decompressobj()
    try:
        for start in range(0, compressed.nbytes, _FEED):
            chunk = decoder.decompress(compressed[start : start + _FEED])
            total += len(chunk)
            if total > limit:
                raise ArtifactError(f"the zstandard form inflates to more than {limit:,} bytes "
                                    f"({'declared in its frame' if declared >= 0 else 'the cap for its size'})",
                                    source=name)
            chunks.append(chunk)
            if decoder.eof:
                break
    except zstandard.ZstdError as exc:
        raise ArtifactError(f"the zstandard form cannot be decompressed: {exc}", source=name) from None
    if not decoder.eof:
        raise ArtifactError("the zstandard form is truncated (its frame does not end)", source=name)
    if decoder.unused_data or start + _FEED < compressed.nbytes:
        raise ArtifactError("unexpected bytes after the zstandard frame", source=name)
    if 0 <= declared != total:
        raise ArtifactError(f"the zstandard frame declares {declared:,} bytes but holds {total:,}", source=name)
    buffer = _aligned_empty(total)
    position = 0
    for chunk in chunks:
        buffer[position : position + len(chunk)] = np.frombuffer(chunk, dtype=np.uint8)
        position += len(chunk)
    return memoryview(buffer).toreadonly()


def _declared_size(compressed: memoryview, name: str) -> int:
    """The content size the frame header declares, or -1 when it declares none."""
    try:
        return zstandard.frame_content_size(compressed)
    except zstandard.ZstdError as exc:
        raise ArtifactError(f"the zstandard frame header is invalid: {exc}", source=name) from None


def _aligned(view: memoryview) -> memoryview:
    if not view.nbytes or np.frombuffer(view, dtype=np.uint8).ctypes.data % 8 == 0:
        return view if view.readonly else view.toreadonly()
    buffer = _aligned_empty(view.nbytes)
    buffer[:] = np.frombuffer(view, dtype=np.uint8)
    return memoryview(buffer).toreadonly()


def _aligned_empty(size: int) -> np.ndarray:
    raw = np.empty(size + ALIGNMENT, dtype=np.uint8)
    start = -raw.ctypes.data % ALIGNMENT
    return raw[start : start + size]


def populate(buffer: memoryview, start: int, length: int) -> None:
    """Map ``buffer[start:start + length]`` in now if it is a file mapping (a hint: failures are ignored)."""
    mapped = buffer.obj
    if _MADV_POPULATE_READ is None or not isinstance(mapped, mmap.mmap) or length <= 0:
        return
    page_start = start - start % mmap.PAGESIZE
    try:
        mapped.madvise(_MADV_POPULATE_READ, page_start, length + start - page_start)
    except (OSError, ValueError):  # an older kernel (EINVAL) or an unusual mapping: stay lazy
        pass

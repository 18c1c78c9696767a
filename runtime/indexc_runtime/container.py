"""The byte container: prefix, header, aligned sections; zero-copy views and checksums.

``open_raw`` maps the file (or inflates the ``.zst`` form) once and does what every kind of
artifact needs before its header is believed: magic (a file of another kind or another
container version is named as such); header length (at most ``MAX_HEADER_BYTES``, inside the
file) and header CRC-32, so a flipped bit in the header is caught before a single field is
read; msgpack decoding, with limits on the length of any list or map (a crafted header cannot
make the decoder build millions of objects).  ``load`` reads ``index_kind`` from the decoded
header and hands the ``RawArtifact`` to the DFA or the grammar reader, which checks the header
(``header.parse_header`` or the grammar's) and calls ``Container.from_raw``: the layout, every
section inside the file, in offset order, not overlapping, the bytes between them (and after
the header) zero, and the file ending exactly where the last section ends.  With the
checksums this makes any single flipped bit or truncation detectable.  All of it is O(header)
and touches no section byte but the padding between them.  Fresh process, Llama-3 artifacts:
map ~50 us (three syscalls and the first page's fault), prefix and header CRC ~30 us, msgpack
50-70 us (~30 us warm: 16 section entries of 6 keys), layout 35-55 us.

Section views (``array``) are ``np.frombuffer`` over the mapped file: no copy, no allocation
proportional to the section; ``scalar_view`` turns one into a ``memoryview`` whose items are
plain Python ints (~35 ns a read, where indexing a numpy array costs ~60 ns and returns a numpy
scalar), which is what the matcher's per-token code indexes.  Section checksums
(``zlib.crc32``, about 4 GB/s here) are checked by ``verify_checksum``, once per section;
``Index`` decides which at load and which only on ``verify`` (see its design note).
The bound checks (``check_range``, ``check_below``) are one or two vectorised passes; a
section view takes its dtype from ``_DTYPES`` (a view by dtype name parses the name every
time) and ``largest`` calls the ``maximum`` ufunc directly.
"""

from __future__ import annotations

import sys
import zlib
from typing import NamedTuple

import msgpack
import numpy as np

from indexc_runtime.errors import ArtifactError
from indexc_runtime.format import (
    DTYPE_ITEMSIZE,
    MAGIC,
    MAGIC_FAMILY,
    MAX_HEADER_ARRAY,
    MAX_HEADER_BYTES,
    MAX_HEADER_MAP,
    PREFIX,
    align,
)
from indexc_runtime.header import Header, parse_header
from indexc_runtime.source import open_artifact_bytes, populate


_MAXIMUM = np.maximum.reduce
_LITTLE_ENDIAN_HOST = sys.byteorder == "little"
_ITEM_FORMATS = {"u1": "B", "<u2": "H", "<i4": "i", "<u4": "I", "<i8": "q"}  # struct formats, native order
# dtype objects made once: a view by name parses the string each time (~1 us of the ~20 views a load makes)
_DTYPES = {name: np.dtype(name) for name in DTYPE_ITEMSIZE}
_UNSIGNED = {np.dtype(f"{order}i{size}"): np.dtype(f"{order}u{size}") for order in "<>=" for size in (1, 2, 4, 8)}


class RawArtifact(NamedTuple):
    """An artifact opened once: its bytes and its decoded, not yet checked, header."""

    buffer: memoryview
    source: str
    header_end: int  # prefix + header bytes: the layout check starts here
    header: object  # msgpack-decoded; parse_header (or the grammar's) checks it


def open_raw(path_or_bytes) -> RawArtifact:
    """Map (or inflate) the artifact, check the prefix and the header CRC, decode the header.

    One open for both kinds: ``load`` reads ``index_kind`` from the decoded header.
    """
    buffer, source = open_artifact_bytes(path_or_bytes)
    header_bytes = _read_prefix(buffer, source)
    return RawArtifact(buffer, source, PREFIX.size + len(header_bytes), _decode_msgpack(header_bytes, source))


class Container:
    """A validated container over one read-only buffer."""

    def __init__(self, buffer: memoryview, source: str, header: Header, data_start: int):
        self.buffer = buffer
        self.source = source
        self.header = header
        self.data_start = data_start
        self._bytes = np.frombuffer(buffer, dtype=np.uint8)
        self._verified: set[str] = set()

    @classmethod
    def open(cls, path_or_bytes) -> "Container":
        """Open and check a DFA artifact (``load`` uses ``open_raw`` + ``from_raw`` to dispatch on the kind)."""
        raw = open_raw(path_or_bytes)
        return cls.from_raw(raw, parse_header(raw.header, raw.source))

    @classmethod
    def from_raw(cls, raw: "RawArtifact", header: Header) -> "Container":
        """The container over ``raw`` once its header is checked (``header``: DFA or grammar): the layout check."""
        data_start = align(raw.header_end)
        _check_layout(raw.buffer, raw.source, header, raw.header_end, data_start)
        return cls(raw.buffer, raw.source, header, data_start)

    @property
    def nbytes(self) -> int:
        return self.buffer.nbytes

    def array(self, name: str) -> np.ndarray:
        """Read-only view of a section with its declared dtype and shape (no copy; ~0.5 us)."""
        info = self.header.sections[name]
        start = self.data_start + info.offset
        flat = self._bytes[start : start + info.nbytes].view(_DTYPES[info.dtype])
        return flat if len(info.shape) == 1 else flat.reshape(info.shape)

    def items(self, name: str) -> memoryview:
        """A section as a flat memoryview whose items are Python ints (what per-token code indexes).

        Cast straight from the buffer on a little-endian host (sections are little-endian):
        no numpy view and no buffer export, ~2 us less a section in a fresh process than
        ``scalar_view(array(name))``, which a big-endian host uses (a byte-swapped copy).
        """
        if not _LITTLE_ENDIAN_HOST:
            return scalar_view(self.array(name))
        info = self.header.sections[name]
        start = self.data_start + info.offset
        return self.buffer[start : start + info.nbytes].cast(_ITEM_FORMATS[info.dtype])

    def prefetch(self, name: str) -> None:
        """Map a section's pages in now (see ``source.populate``), so first reads take no page fault."""
        info = self.header.sections[name]
        populate(self.buffer, self.data_start + info.offset, info.nbytes)

    def verify_checksum(self, name: str) -> None:
        """Check a section's CRC-32 (once; later calls are free)."""
        if name in self._verified:
            return
        info = self.header.sections[name]
        start = self.data_start + info.offset
        actual = zlib.crc32(self.buffer[start : start + info.nbytes])
        if actual != info.crc32:
            raise ArtifactError(f"checksum mismatch (crc32 {actual:08x}, header says {info.crc32:08x}): "
                                "the file is corrupted", source=self.source, section=name)
        self._verified.add(name)

    def check_below(self, name: str, values: np.ndarray, limit: int) -> None:
        """Every value of an integer section (or of an array derived from it) in ``[0, limit)``.

        One ``max`` pass: a signed array is viewed as unsigned, where a negative value is huge.
        """
        if not values.size:
            return
        dtype = values.dtype
        unsigned = values if dtype.kind == "u" else values.view(_UNSIGNED.get(dtype) or dtype.str.replace("i", "u"))
        if largest(unsigned) >= limit:
            raise self.error(f"values must lie in [0, {limit - 1}], found [{int(values.min())}, {int(values.max())}]",
                             name)

    def check_range(self, name: str, values: np.ndarray, low: int, high: int) -> None:
        """Every value in ``[low, high]``; vectorised (a ``min`` and a ``max``)."""
        if values.size == 0:
            return
        smallest, largest = int(values.min()), int(values.max())
        if smallest < low or largest > high:
            raise self.error(f"values must lie in [{low}, {high}], found [{smallest}, {largest}]", name)

    def error(self, message: str, section: str | None = None) -> ArtifactError:
        return ArtifactError(message, source=self.source, section=section)


def largest(values: np.ndarray) -> int:
    """The largest value of a non-empty array: the ufunc called directly, where ``ndarray.max``
    goes through numpy's Python-level wrapper (~10 us more on the first call of a process)."""
    return int(_MAXIMUM(values, axis=None))


def scalar_view(values: np.ndarray) -> memoryview:
    """A flat memoryview of ``values`` in native byte order: indexing it gives Python ints.

    No copy on a little-endian host (every section is little-endian); a big-endian host pays
    one byte-swapped copy, once per Index.
    """
    if not values.dtype.isnative:
        values = values.astype(values.dtype.newbyteorder("="))
    return memoryview(values if values.ndim == 1 else values.reshape(-1))


def _read_prefix(buffer: memoryview, source: str) -> memoryview:
    """The header bytes, after checking magic, length and CRC."""
    size = buffer.nbytes
    head = bytes(buffer[: PREFIX.size])
    if head[: len(MAGIC)] != MAGIC:
        if size >= len(MAGIC) and head.startswith(MAGIC_FAMILY):
            raise ArtifactError(f"container version {head[6:8].hex()} is not supported (this runtime reads "
                                f"{MAGIC[6:8].hex()})", source=source)
        if size >= len(MAGIC) or not MAGIC.startswith(head):
            raise ArtifactError(f"not an indexc artifact (starts with {head[:8]!r}, expected {MAGIC!r})",
                                source=source)
    if size < PREFIX.size:
        raise ArtifactError(f"truncated: {size} bytes, shorter than the {PREFIX.size}-byte prefix", source=source)
    _, header_length, header_crc = PREFIX.unpack(head)
    if header_length > MAX_HEADER_BYTES:
        raise ArtifactError(f"header length {header_length:,} exceeds the limit of {MAX_HEADER_BYTES:,} bytes",
                            source=source)
    if PREFIX.size + header_length > size:
        raise ArtifactError(f"truncated: the header needs {PREFIX.size + header_length:,} bytes, "
                            f"the file has {size:,}", source=source)
    header_bytes = buffer[PREFIX.size : PREFIX.size + header_length]
    if zlib.crc32(header_bytes) != header_crc:
        raise ArtifactError("header checksum mismatch: the header is corrupted", source=source)
    return header_bytes


def _decode_msgpack(header_bytes: memoryview, source: str) -> object:
    try:
        return msgpack.unpackb(header_bytes, raw=False, strict_map_key=True, use_list=True,
                               max_array_len=MAX_HEADER_ARRAY, max_map_len=MAX_HEADER_MAP)
    except Exception as exc:  # the decoder's exception types vary by version; any failure means "not msgpack"
        raise ArtifactError(f"the header is not valid msgpack: {exc}", source=source) from None


def _check_layout(buffer: memoryview, source: str, header: Header, header_end: int, data_start: int) -> None:
    """Sections inside the file, ordered, disjoint, separated by zero bytes only, nothing after.

    The writers pad to the next multiple of 64 and no further, so a gap is at most 63 bytes
    (4096 allowed); a zero gap is found with one ``bytes.count`` (~0.2 us, a third of ``any``).
    """
    size = buffer.nbytes
    position = header_end
    for info in header.sections.values():
        start = data_start + info.offset
        if start < position:
            raise ArtifactError(f"offset {info.offset} overlaps the previous section or the header",
                                source=source, section=info.name)
        if start + info.nbytes > size:
            raise ArtifactError(f"truncated: the section ends at byte {start + info.nbytes:,}, "
                                f"the file has {size:,}", source=source, section=info.name)
        if start - position > 4096:
            raise ArtifactError(f"{start - position:,} bytes of padding before the section", source=source,
                                section=info.name)
        if buffer[position:start].tobytes().count(0) != start - position:
            raise ArtifactError("nonzero padding before the section: the file is corrupted", source=source,
                                section=info.name)
        position = start + info.nbytes
    if position != size:
        raise ArtifactError(f"{size - position:,} unexpected bytes after the last section", source=source)

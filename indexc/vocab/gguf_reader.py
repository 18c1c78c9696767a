"""A GGUF file's metadata key-value pairs, read defensively; tensors are never touched.

Layout (GGUF v2 and v3, little-endian): ``"GGUF"``, ``uint32 version``, ``uint64
tensor_count``, ``uint64 kv_count``, then ``kv_count`` pairs of ``(string key, uint32 type,
value)``.  A string is ``uint64 length`` + UTF-8 bytes; an array is ``uint32 element type``,
``uint64 count``, then the elements.  The tensor infos and data that follow are not read.

Every file is untrusted: a GGUF is usually downloaded, several gigabytes, and memory-mapped
here so that only the metadata pages are read.  Every length and count is checked against the
bytes actually left in the file *before* anything is allocated or sliced (a count of 2**60
strings fails at once: each needs at least 8 bytes), keys are bounded to 65,535 bytes as the
specification says, arrays nest at most ``MAX_ARRAY_DEPTH`` deep, and every failure is a
``VocabularyError`` naming the file, the byte offset and the key being read.

Values of keys the caller does not ask for are skipped without being decoded; skipping an
array of strings still walks its lengths (0.16 us per string: 45 ms for Llama-3's 280,147
merges).  A GGUF holding Llama-3's tokens, types and merges loads in about 150 ms.

Not supported: GGUF v1 (32-bit counts, superseded in 2023) and big-endian files (rare, and
recognisable: their version reads as a byte-swapped 2 or 3); both are refused by name.
"""

from __future__ import annotations

import enum
import mmap
import os
import struct
from collections.abc import Collection
from typing import Any

import numpy as np

from indexc.errors import VocabularyError

GGUF_MAGIC = b"GGUF"
SUPPORTED_VERSIONS = (2, 3)
MAX_KEY_LENGTH = 65_535
MAX_ARRAY_DEPTH = 2
HEADER = struct.Struct("<4sIQQ")
U32 = struct.Struct("<I")
U64 = struct.Struct("<Q")


class GgufType(enum.IntEnum):
    UINT8 = 0
    INT8 = 1
    UINT16 = 2
    INT16 = 3
    UINT32 = 4
    INT32 = 5
    FLOAT32 = 6
    BOOL = 7
    STRING = 8
    ARRAY = 9
    UINT64 = 10
    INT64 = 11
    FLOAT64 = 12


NUMERIC_DTYPES: dict[GgufType, np.dtype] = {
    GgufType.UINT8: np.dtype("<u1"),
    GgufType.INT8: np.dtype("<i1"),
    GgufType.UINT16: np.dtype("<u2"),
    GgufType.INT16: np.dtype("<i2"),
    GgufType.UINT32: np.dtype("<u4"),
    GgufType.INT32: np.dtype("<i4"),
    GgufType.FLOAT32: np.dtype("<f4"),
    GgufType.BOOL: np.dtype("?"),
    GgufType.UINT64: np.dtype("<u8"),
    GgufType.INT64: np.dtype("<i8"),
    GgufType.FLOAT64: np.dtype("<f8"),
}


def read_gguf_metadata(path: str | os.PathLike, keys: Collection[str] | None = None) -> dict[str, Any]:
    """The metadata of a GGUF file: key -> value (``keys`` given: only those keys are decoded).

    Scalars become Python ``int``/``float``/``bool``/``str``, arrays of numbers numpy arrays,
    arrays of strings lists of ``str``, arrays of arrays lists.
    """
    source = os.fspath(path)
    try:
        with open(source, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size < HEADER.size:
                raise VocabularyError(f"truncated GGUF: {size} bytes, the header alone needs {HEADER.size}",
                                      source=source)
            with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as buffer:
                return _MetadataReader(buffer, source).read(keys)
    except OSError as exc:
        raise VocabularyError(f"cannot read GGUF file: {exc.strerror or exc}", source=source) from None


class _MetadataReader:
    """A bounds-checked cursor over the bytes of one GGUF file."""

    def __init__(self, buffer, source: str):
        self.buffer = buffer
        self.source = source
        self.pos = 0
        self.end = len(buffer)
        self.key = ""  # the key being read, for messages

    def read(self, keys: Collection[str] | None) -> dict[str, Any]:
        kv_count = self._header()
        values: dict[str, Any] = {}
        for _ in range(kv_count):
            self.key = ""
            self.key = self._key()
            value_type = self._type("value type")
            if keys is None or self.key in keys:
                values[self.key] = self._value(value_type, depth=0)
            else:
                self._skip(value_type, depth=0)
        return values

    def _header(self) -> int:
        magic, version, _tensor_count, kv_count = HEADER.unpack_from(self.buffer, 0)
        if magic != GGUF_MAGIC:
            raise self._error(f"not a GGUF file (magic {magic!r})", position=0)
        if version not in SUPPORTED_VERSIONS:
            swapped = int.from_bytes(version.to_bytes(4, "little"), "big")
            detail = "a big-endian file" if swapped in SUPPORTED_VERSIONS else f"version {version}"
            raise self._error(f"unsupported GGUF ({detail}); versions 2 and 3 little-endian are read",
                              position=4)
        self.pos = HEADER.size
        # The smallest pair: an empty key (8), its type (4) and a one-byte value.
        self._check_count(kv_count, 13, "metadata pairs")
        return kv_count

    def _key(self) -> str:
        start = self.pos
        length = self._u64("key length")
        if length > MAX_KEY_LENGTH:
            raise self._error(f"key length {length} is larger than {MAX_KEY_LENGTH}", position=start)
        data = self._take(length, "key")
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            raise self._error("key is not UTF-8", position=start) from None

    def _value(self, value_type: GgufType, depth: int) -> Any:
        if value_type == GgufType.STRING:
            return self._string("string value")
        if value_type == GgufType.ARRAY:
            return self._array(depth)
        dtype = NUMERIC_DTYPES[value_type]
        return np.frombuffer(self._take(dtype.itemsize, "value"), dtype=dtype)[0].item()

    def _array(self, depth: int) -> Any:
        element_type, count = self._array_header(depth)
        if element_type == GgufType.STRING:
            return self._strings(count)
        if element_type == GgufType.ARRAY:
            return [self._array(depth + 1) for _ in range(count)]
        dtype = NUMERIC_DTYPES[element_type]
        return np.frombuffer(self._take(count * dtype.itemsize, "array"), dtype=dtype).copy()

    def _skip(self, value_type: GgufType, depth: int) -> None:
        if value_type == GgufType.STRING:
            self._take(self._u64("string length"), "string value", copy=False)
        elif value_type == GgufType.ARRAY:
            element_type, count = self._array_header(depth)
            if element_type == GgufType.STRING:
                self._walk_strings(count)
            elif element_type == GgufType.ARRAY:
                for _ in range(count):
                    self._skip(GgufType.ARRAY, depth + 1)
            else:
                self._take(count * NUMERIC_DTYPES[element_type].itemsize, "array", copy=False)
        else:
            self._take(NUMERIC_DTYPES[value_type].itemsize, "value", copy=False)

    def _array_header(self, depth: int) -> tuple[GgufType, int]:
        if depth >= MAX_ARRAY_DEPTH:
            raise self._error(f"arrays nested more than {MAX_ARRAY_DEPTH} deep")
        element_type = self._type("array element type")
        count = self._u64("array length")
        minimum = {GgufType.STRING: 8, GgufType.ARRAY: 12}.get(element_type)
        self._check_count(count, minimum or NUMERIC_DTYPES[element_type].itemsize, "array elements")
        return element_type, count

    def _strings(self, count: int) -> list[str]:
        start = self.pos
        raw = self._walk_strings(count, keep=True)
        try:
            return [item.decode("utf-8") for item in raw]
        except UnicodeDecodeError:
            index = next(i for i, item in enumerate(raw) if not _is_utf8(item))
            raise self._error(f"string {index} of the array is not UTF-8", position=start) from None

    def _walk_strings(self, count: int, keep: bool = False) -> list[bytes]:
        """Step over ``count`` strings (the hot loop of GGUF reading); their bytes if ``keep``."""
        buffer, pos, end, unpack = self.buffer, self.pos, self.end, U64.unpack_from
        kept: list[bytes] = []
        for index in range(count):
            if end - pos < 8:
                self.pos = pos
                raise self._error(f"truncated: string {index} of {count} has no length")
            (length,) = unpack(buffer, pos)
            pos += 8
            if length > end - pos:
                raise self._error(f"string {index} of {count} claims {length} bytes, "
                                  f"{end - pos} are left", position=pos - 8)
            if keep:
                kept.append(buffer[pos:pos + length])
            pos += length
        self.pos = pos
        return kept

    def _string(self, what: str) -> str:
        start = self.pos
        data = self._take(self._u64(f"{what} length"), what)
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            raise self._error(f"{what} is not UTF-8", position=start) from None

    def _type(self, what: str) -> GgufType:
        start = self.pos
        code = self._u32(what)
        try:
            return GgufType(code)
        except ValueError:
            raise self._error(f"unknown {what} {code}", position=start) from None

    def _u32(self, what: str) -> int:
        return U32.unpack(self._take(4, what))[0]

    def _u64(self, what: str) -> int:
        return U64.unpack(self._take(8, what))[0]

    def _take(self, length: int, what: str, *, copy: bool = True) -> bytes:
        if length > self.end - self.pos:
            raise self._error(f"truncated: {what} needs {length} bytes, {self.end - self.pos} are left")
        start = self.pos
        self.pos += length
        return self.buffer[start:self.pos] if copy else b""

    def _check_count(self, count: int, min_bytes_each: int, what: str) -> None:
        if count * min_bytes_each > self.end - self.pos:
            raise self._error(f"{count} {what} cannot fit in the {self.end - self.pos} bytes left")

    def _error(self, message: str, *, position: int | None = None) -> VocabularyError:
        where = f"key {self.key!r}: " if self.key else ""
        return VocabularyError(f"{where}{message}", source=self.source,
                               position=self.pos if position is None else position)


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True

"""Header + section arrays -> the container's bytes: prefix, msgpack header, aligned sections.

Section offsets in the header count from the start of the *data area* (the first multiple of
64 after the header), not from the start of the file: the header's own length then never
feeds back into the offsets it contains, so the header is encoded once, with no fixed-point
iteration.  Every section starts at a multiple of 64 (a cache line; more than any dtype
needs), with zero bytes in between and nothing after the last one.  The checksums are
``zlib.crc32`` of each section's bytes and of the header's bytes.

``ContainerPlan.write_to`` streams the pieces to a file without joining them, so writing needs
no second copy of a large artifact in memory.
"""

from __future__ import annotations

import io
import zlib
from dataclasses import dataclass
from typing import BinaryIO

import msgpack
import numpy as np

from indexc.artifact.header import canonical
from indexc_runtime.format import MAGIC, MAX_HEADER_BYTES, PREFIX, SECTIONS, align


@dataclass(frozen=True)
class ContainerPlan:
    prefix: bytes
    header: bytes
    data_start: int
    sections: tuple[tuple[int, np.ndarray], ...]  # (offset in the data area, array), in file order

    @property
    def size(self) -> int:
        offset, array = self.sections[-1]
        return self.data_start + offset + array.nbytes

    def write_to(self, handle: BinaryIO) -> None:
        handle.write(self.prefix)
        handle.write(self.header)
        position = PREFIX.size + len(self.header)
        for offset, array in self.sections:
            start = self.data_start + offset
            handle.write(bytes(start - position))
            handle.write(_raw_bytes(array))
            position = start + array.nbytes

    def to_bytes(self) -> bytes:
        buffer = io.BytesIO()
        self.write_to(buffer)
        return buffer.getvalue()


def plan_container(fields: dict, arrays: dict[str, np.ndarray], specs=SECTIONS) -> ContainerPlan:
    """Lay out ``arrays`` (one per entry of ``specs``, the regex ``SECTIONS`` unless a grammar's
    are given; file dtypes) after a header of ``fields``."""
    entries, placed, offset = [], [], 0
    for spec in specs:
        array = arrays[spec.name]
        offset = align(offset)
        entries.append({
            "name": spec.name,
            "dtype": _dtype_name(array, spec.dtypes, spec.name),
            "shape": list(array.shape),
            "offset": offset,
            "nbytes": array.nbytes,
            "crc32": zlib.crc32(_raw_bytes(array)),
        })
        placed.append((offset, array))
        offset += array.nbytes
    header = msgpack.packb(canonical({**fields, "sections": entries}, "header"), use_bin_type=True)
    if len(header) > MAX_HEADER_BYTES:
        raise ValueError(f"the header would take {len(header):,} bytes, more than the format's limit of "
                         f"{MAX_HEADER_BYTES:,} (is the constraint source or the stats map that large?)")
    prefix = PREFIX.pack(MAGIC, len(header), zlib.crc32(header))
    return ContainerPlan(prefix, header, align(PREFIX.size + len(header)), tuple(placed))


def _dtype_name(array: np.ndarray, allowed: tuple[str, ...], name: str) -> str:
    """The format's name of the array's dtype, which must be one the section allows."""
    found = array.dtype.str.lstrip("|")
    if found not in allowed:
        raise ValueError(f"section {name!r}: dtype {found!r} is not one of {allowed}")
    return found


def _raw_bytes(array: np.ndarray) -> np.ndarray:
    """The array's bytes as a flat uint8 view (no copy; works for empty arrays too)."""
    return np.ascontiguousarray(array).reshape(-1).view(np.uint8)

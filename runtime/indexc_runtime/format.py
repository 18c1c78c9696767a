"""The artifact file format, as data: one source of truth for the writer and the reader.

The compiler (``indexc.artifact``) imports this module to write files and the runtime uses it
to read them, so the two ends cannot drift apart.  ``docs/artifact-format.md`` explains every
value here in prose; this module only names them.

Container (byte layout)::

    offset 0   magic            8 bytes  b"INDEXC\\x00\\x01" (the last two bytes: container version 1)
    offset 8   header_length    uint32 little-endian
    offset 12  header_crc32     uint32 little-endian, zlib.crc32 of the header bytes
    offset 16  header           msgpack map, header_length bytes
               zero padding     up to the next multiple of ALIGNMENT: the *data area* starts here
               sections         each at data_start + offset (offset a multiple of ALIGNMENT),
                                zero padding between them; the file ends where the last ends

Every section is a C-order array of a little-endian dtype, one of those its spec allows.
Shapes are written with symbolic dimensions below: ``n_states``, ``n_classes`` and ``n_masks``
come from the header, ``mask_words`` is ``ceil(vocab.size / 32)``, ``n_token_rows`` is
``vocab.size`` when the header's ``token_class_rows`` is ``"token_id"``, ``name+1`` is one
more than ``name``, and any other name is bound by the first section (in this order) that uses it.

Format versions: 3 is written (``SECTIONS``); 2 and 1 are still read (``SECTIONS_V2``,
``SECTIONS_V1``).  What changed and why is the versioning section of the doc: in version 2 the
state table stores ``next + 1`` in the narrowest unsigned dtype (one ``max`` checks it), word
indices are int64 (numpy scatters them without a conversion), and the token class rows may be
indexed by token id; version 3 adds the ``"shared"`` row layout (tokens with the same class
sequence share one row, found through ``token_row_of_id``).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

MAGIC = b"INDEXC\x00\x01"
MAGIC_FAMILY = MAGIC[:6]  # a file starting with this is an indexc container of some version
PREFIX = struct.Struct("<8sII")  # magic, header length, header crc32
ALIGNMENT = 64  # a cache line, and more than any dtype needs
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"

FORMAT_VERSION = 3
SUPPORTED_FORMAT_VERSIONS = frozenset({1, 2, 3})
INDEX_KIND = "dfa"  # a future grammar artifact (lexer tables + Earley rules) gets another kind
BYTE_ORDER = "little"

# Limits that keep a hostile or corrupted file from driving allocations or loops.
MAX_HEADER_BYTES = 4 << 20  # decoded, a header can take ~12x its size in Python objects
MAX_HEADER_ARRAY = 1 << 16  # entries of any one list in the header (eos ids, section shapes...)
MAX_HEADER_MAP = 1 << 12  # keys of any one map in the header
MAX_SECTIONS = 96
MAX_VOCAB_SIZE = 1 << 24  # 16.7 M ids: 60x the largest real vocabulary; bounds mask buffers
MAX_DECOMPRESSED_BYTES = 4 << 30  # the .zst shipping form is inflated into memory: never more than this
# ... and never more than MAX_COMPRESSION_RATIO x its compressed size (at least MIN_INFLATION_CAP), so a
# 100 KB zstd bomb cannot ask for gigabytes.  Real artifacts compress 2.4-21x (levels 3 and 19, Llama-3).
MAX_COMPRESSION_RATIO = 1024
MIN_INFLATION_CAP = 64 << 20
MAX_ZSTD_WINDOW = 1 << 25  # the writer's frames use <= 8 MiB windows (level 19); zstd's own default cap is 128 MiB
MAX_HEADER_DEPTH = 8  # nesting of lists and maps in the header: the known keys use 3

# Mask storage forms (``mask_form`` values).
MASK_DENSE = 0  # one row of ``dense_masks``
MASK_SPARSE = 1  # the nonzero words, as (index, value) pairs; every other word is 0
MASK_COMPLEMENT = 2  # the words that are not all-ones, as pairs; every other word is 0xFFFFFFFF
MASK_FORM_NAMES = ("dense", "sparse", "complement")

# How the rows of token_class_offsets are numbered (header key ``token_class_rows``, version 2).
TOKEN_ROWS_LIVE = "live_tokens"  # row k is token live_tokens[k]: few live tokens, found by bisection
TOKEN_ROWS_BY_ID = "token_id"  # row t is token t (an empty row: not live); live_tokens is empty
TOKEN_ROWS_SHARED = "shared"  # (version 3) row token_row_of_id[t]; row 0 is empty (not live); live_tokens is empty

DTYPE_ITEMSIZE = {"u1": 1, "<u2": 2, "<i4": 4, "<u4": 4, "<i8": 8}
STATE_DTYPES = ("u1", "<u2", "<u4")  # class_transitions (version 2): the narrowest that holds n_states


@dataclass(frozen=True)
class SectionSpec:
    name: str
    dtypes: tuple[str, ...]  # the dtypes a file may use (a writer picks as the doc says)
    shape: tuple[int | str, ...]
    meaning: str


SECTIONS: tuple[SectionSpec, ...] = (
    SectionSpec("byte_classes", ("u1",), (256,), "class id of each byte value"),
    SectionSpec("class_transitions", STATE_DTYPES, ("n_states", "n_classes"),
                "1 + next state after a byte of class c in state s; 0: the match dies"),
    SectionSpec("accepting", ("u1",), ("n_states",), "1 where the state accepts (eos allowed), else 0"),
    SectionSpec("state_mask", ("<i4",), ("n_states",), "mask id of each state"),
    SectionSpec("mask_form", ("u1",), ("n_masks",), "0 dense, 1 sparse, 2 complement"),
    SectionSpec("mask_dense_row", ("<i4",), ("n_masks",), "row of dense_masks for a dense mask, else -1"),
    SectionSpec("mask_word_offsets", ("<i8",), ("n_masks+1",),
                "mask m's (index, value) pairs are [offsets[m], offsets[m+1]) of the word lists"),
    SectionSpec("forced_token", ("<i4",), ("n_masks",), "the mask's only token if it has exactly one, else -1"),
    SectionSpec("dense_masks", ("<u4",), ("n_dense", "mask_words"), "bitset rows: bit i of word w is id 32*w+i"),
    SectionSpec("mask_word_index", ("<i8",), ("n_words",), "word indices, strictly increasing within a mask"),
    SectionSpec("mask_word_value", ("<u4",), ("n_words",), "the word at that index"),
    SectionSpec("live_tokens", ("<i4",), ("n_live",),
                "sorted ids of the text tokens found in some mask (empty when rows are token ids)"),
    SectionSpec("token_class_offsets", ("<i4",), ("n_token_rows+1",),
                "row k's byte classes are token_class_data[offsets[k]:offsets[k+1]]"),
    SectionSpec("token_class_data", ("u1",), ("n_class_bytes",), "byte classes of live tokens, concatenated"),
    SectionSpec("special_ids", ("<i4",), ("n_special",), "sorted ids of special (control) tokens"),
    SectionSpec("token_row_of_id", ("<u2", "<i4"), ("n_row_ids",),
                "row of token t when token_class_rows is 'shared' (row 0 is empty: not live), else empty"),
)
SECTIONS_V2: tuple[SectionSpec, ...] = tuple(spec for spec in SECTIONS if spec.name != "token_row_of_id")

_V1_CHANGES = {
    "class_transitions": SectionSpec("class_transitions", ("<i4",), ("n_states", "n_classes"),
                                     "next state after a byte of class c in state s; -1: the match dies"),
    "mask_word_index": SectionSpec("mask_word_index", ("<i4",), ("n_words",),
                                   "word indices, strictly increasing within a mask"),
    "token_class_offsets": SectionSpec("token_class_offsets", ("<i4",), ("n_live+1",),
                                       "live token k's byte classes are token_class_data[offsets[k]:offsets[k+1]]"),
}
SECTIONS_V1: tuple[SectionSpec, ...] = tuple(_V1_CHANGES.get(spec.name, spec) for spec in SECTIONS_V2)
SECTIONS_BY_VERSION = {1: SECTIONS_V1, 2: SECTIONS_V2, 3: SECTIONS}
SECTION_NAMES = tuple(spec.name for spec in SECTIONS)


def mask_words(vocab_size: int) -> int:
    """Number of 32-bit words in one mask row (the llguidance / xgrammar bitmask width)."""
    return (vocab_size + 31) // 32


def state_dtype(n_states: int) -> str:
    """The dtype a writer uses for ``class_transitions``: the narrowest holding 0..n_states."""
    return "u1" if n_states < 1 << 8 else "<u2" if n_states < 1 << 16 else "<u4"


def align(offset: int) -> int:
    return -(-offset // ALIGNMENT) * ALIGNMENT

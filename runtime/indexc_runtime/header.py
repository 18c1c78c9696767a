"""Check the decoded msgpack header and turn it into typed fields.

The header is untrusted input: every key the runtime relies on is checked for type and range
here, before any section is looked at, and every section entry is checked against the format's
section table of its format version (``format.SECTIONS_BY_VERSION``): a dtype that spec
allows, a shape of the right rank whose symbolic dimensions agree with the header and with
each other, ``nbytes`` equal to the shape's product times the item size (computed with Python
integers: no overflow), an aligned offset.  Whether the sections fit in the file is
``container``'s job; what is *inside* them is checked by the tables that use them, at load.

Version 2 adds one required key, ``token_class_rows`` (``format.TOKEN_ROWS_*``): with
``"token_id"`` the token class offsets have ``vocab.size + 1`` entries and ``live_tokens`` is
empty; with ``"live_tokens"`` (and always in version 1) there is one row per live token.
Version 3 adds the value ``"shared"``: ``token_row_of_id`` (``vocab.size`` entries) names each
token's row, rows are the distinct class sequences, and ``live_tokens`` is empty.

Every value is inside the JSON data model (maps with string keys, lists, strings, numbers,
booleans, nil) and nested at most ``MAX_HEADER_DEPTH`` deep, and the informative keys
(``compiler_version``, ``constraint``, ``options``, ``stats``) have their documented types
when present: tools print and copy the header, and a bytes value or a list nested a
thousand deep would break them (``Index.header``'s ``copy.deepcopy`` overflowed the stack: found
in the audit, kept in the fuzz corpus).  ``check_data_model`` checks that; serving never reads
those keys, so ``load`` does not run it: ``Index.header`` (before it copies the header) and
``Index.verify`` (``load(..., verify=True)``, what ``indexc inspect`` runs) do.  A section
entry is part of what serving reads, so its data model is checked here, at load.

Cost (email, Llama-3): ~110 us in a fresh process, ~40 us warm (it was ~270 and ~120: the
data-model walk moved out, each spec's symbolic shape is split once at import in
``_spec_table``, an entry's six fields come out with one ``itemgetter`` and their types are
compared as one tuple, and a section table already in file order is not sorted again).

Compatibility: keys this reader does not know are kept in ``Header.raw`` and otherwise
ignored, and so are sections with unknown names, so a writer may add both without a new
format version.  A reader refuses any ``format_version`` it does not list as supported.
"""

from __future__ import annotations

from operator import itemgetter
from typing import NamedTuple

from indexc_runtime.errors import ArtifactError
from indexc_runtime.format import (
    ALIGNMENT,
    BYTE_ORDER,
    DTYPE_ITEMSIZE,
    INDEX_KIND,
    MAX_HEADER_DEPTH,
    MAX_SECTIONS,
    MAX_VOCAB_SIZE,
    SECTIONS_BY_VERSION,
    SUPPORTED_FORMAT_VERSIONS,
    TOKEN_ROWS_BY_ID,
    TOKEN_ROWS_LIVE,
    TOKEN_ROWS_SHARED,
    mask_words,
)

_INT32_MAX = 2**31 - 1
_MAX_DIMENSION = 2**48  # far beyond any file; keeps products of dimensions small integers


class SectionInfo(NamedTuple):  # a tuple: built 15 times per load, 0.6 us each where a frozen dataclass takes 1.5
    name: str
    dtype: str
    shape: tuple[int, ...]
    offset: int  # from the start of the data area
    nbytes: int
    crc32: int


class Header(NamedTuple):  # a tuple: made once per load, ~1 us where a frozen dataclass of 12 fields takes ~4
    raw: dict
    format_version: int
    vocab_size: int
    fingerprint: str
    eos_ids: tuple[int, ...]
    n_states: int
    n_classes: int
    n_masks: int
    start_state: int
    token_rows: str  # format.TOKEN_ROWS_LIVE, TOKEN_ROWS_BY_ID or TOKEN_ROWS_SHARED
    sections: dict[str, SectionInfo]  # in file order
    dims: dict[str, int]  # every symbolic dimension of the version's sections, bound


def parse_header(raw: object, source: str) -> Header:
    """Typed header fields; ``ArtifactError`` naming the key for anything missing or out of range."""
    check = _Checker(source)
    top = check.mapping(raw, "header")
    version = check.integer(top, "format_version", 0, _INT32_MAX)
    if version not in SUPPORTED_FORMAT_VERSIONS:
        raise ArtifactError(
            f"format_version {version} is not supported by this runtime "
            f"(it reads {sorted(SUPPORTED_FORMAT_VERSIONS)}); upgrade indexc_runtime or recompile",
            source=source,
        )
    if check.string(top, "index_kind") != INDEX_KIND:
        raise ArtifactError(f"index_kind {top['index_kind']!r} is not {INDEX_KIND!r}", source=source)
    if check.string(top, "byte_order") != BYTE_ORDER:
        raise ArtifactError(f"byte_order {top['byte_order']!r} is not {BYTE_ORDER!r}", source=source)
    if check.integer(top, "alignment", 1, 1 << 20) != ALIGNMENT:
        raise ArtifactError(f"alignment {top['alignment']} is not {ALIGNMENT}", source=source)
    vocab = check.mapping(top.get("vocab"), "vocab")
    vocab_size = check.integer(vocab, "size", 1, MAX_VOCAB_SIZE, where="vocab.")
    fingerprint = check.string(vocab, "fingerprint", where="vocab.")
    eos_ids = check.integers(vocab, "eos_ids", 0, vocab_size - 1, where="vocab.")
    n_states = check.integer(top, "n_states", 1, _INT32_MAX)
    n_classes = check.integer(top, "n_classes", 1, 256)
    n_masks = check.integer(top, "n_masks", 1, _INT32_MAX)
    start_state = check.integer(top, "start_state", 0, n_states - 1)
    dims = {"n_states": n_states, "n_classes": n_classes, "n_masks": n_masks, "mask_words": mask_words(vocab_size)}
    token_rows = _token_rows(top, version, check)
    if token_rows == TOKEN_ROWS_BY_ID:
        dims.update(n_live=0, n_token_rows=vocab_size, n_row_ids=0)
    elif token_rows == TOKEN_ROWS_SHARED:
        dims.update(n_live=0, n_row_ids=vocab_size)
    else:
        dims.update(n_row_ids=0)
    sections = parse_sections(top.get("sections"), SECTIONS_BY_VERSION[version], dims, check)
    if version > 1 and token_rows == TOKEN_ROWS_LIVE and dims["n_token_rows"] != dims["n_live"]:
        raise ArtifactError(f"{dims['n_token_rows'] + 1} offsets for {dims['n_live']} live tokens",
                            source=source, section="token_class_offsets")
    return Header(top, version, vocab_size, fingerprint, eos_ids, n_states, n_classes, n_masks,
                  start_state, token_rows, sections, dims)


def check_data_model(raw: dict, source: str) -> None:
    """The informative keys' types, and every value outside ``sections`` inside the JSON data model.

    Tools print the header (``indexc inspect --json``) and copy it (``Index.header``): a bytes
    value, a non-string key or a list nested a thousand deep would break them far from here.
    Serving never reads these keys, so ``load`` leaves this to ``Index.header`` and
    ``Index.verify`` (``load(..., verify=True)``, what ``indexc inspect`` runs): 20-25 us warm,
    ~45 us in a fresh process, a twentieth of the whole load.  ``sections`` is checked entry
    by entry in ``_parse_section_entry``, at load.
    """
    check = _Checker(source)
    for key, kind in _INFORMATIVE_TYPES.items():
        if key in raw and type(raw[key]) is not kind:
            raise check.fail(f"{key} must be a {_TYPE_NAMES[kind]}, found {type(raw[key]).__name__}")
    for key, value in raw.items():
        if type(key) is not str:
            raise check.fail(f"keys must be strings, found {type(key).__name__}")
        if key != "sections":
            _check_nesting(value, key, 2, check)


def _check_nesting(root: object, where: str, depth: int, check: "_Checker") -> None:
    """``root`` (at nesting ``depth``) holds only JSON-like values, at most ``MAX_HEADER_DEPTH`` deep (no recursion)."""
    stack = [(root, depth)]
    while stack:
        value, depth = stack.pop()
        kind = type(value)
        if kind is dict or kind is list:
            if depth > MAX_HEADER_DEPTH:
                raise check.fail(f"{where} nests lists and maps more than {MAX_HEADER_DEPTH} deep")
            if kind is dict and not all(type(key) is str for key in value):
                raise check.fail(f"{where}: map keys must be strings")
            stack.extend((child, depth + 1) for child in (value.values() if kind is dict else value))
        elif kind not in _SCALAR_TYPES:
            raise check.fail(f"{where} holds a {kind.__name__} value (only maps, lists, strings, numbers, "
                             "booleans and nil are allowed)")


_SCALAR_TYPES = frozenset({str, int, float, bool, type(None)})
_INFORMATIVE_TYPES = {"compiler_version": str, "constraint": dict, "options": dict, "stats": dict}
_TYPE_NAMES = {str: "string", dict: "map"}


def _token_rows(top: dict, version: int, check: "_Checker") -> str:
    if version == 1:
        return TOKEN_ROWS_LIVE
    rows = check.string(top, "token_class_rows")
    allowed = (TOKEN_ROWS_LIVE, TOKEN_ROWS_BY_ID) + ((TOKEN_ROWS_SHARED,) if version >= 3 else ())
    if rows not in allowed:
        raise check.fail(f"token_class_rows must be one of {list(allowed)} in format version {version}, found {rows!r:.40}")
    return rows


def parse_sections(raw: object, specs: tuple, dims: dict[str, int], check: "_Checker") -> dict[str, SectionInfo]:
    """The header's ``sections`` list against ``specs`` (every one required, dtypes and shapes
    bound into ``dims``), in file order; shared by the regex and grammar headers."""
    if type(raw) is not list or len(raw) > MAX_SECTIONS:
        raise ArtifactError(f"header: 'sections' must be a list of at most {MAX_SECTIONS} entries", source=check.source)
    found = {}
    for position, entry in enumerate(raw):
        info = _parse_section_entry(entry, position, check)
        if info.name in found:
            raise ArtifactError("the section appears twice", source=check.source, section=info.name)
        found[info.name] = info
    for name, dtypes, symbols in _spec_table(specs):
        info = found.get(name)
        if info is None:
            raise ArtifactError("required section is missing", source=check.source, section=name)
        if info.dtype not in dtypes:
            expected = " or ".join(repr(d) for d in dtypes)
            raise ArtifactError(f"dtype {info.dtype!r}, expected {expected}", source=check.source, section=name)
        _bind_shape(symbols, info, dims, check.source)
    ends = [(info.offset, info.nbytes) for info in found.values()]
    if ends == sorted(ends):  # as every writer lays them out: no re-sorting
        return found
    return dict(sorted(found.items(), key=lambda item: (item[1].offset, item[1].nbytes)))


def _parse_section_entry(entry: object, position: int, check: "_Checker") -> SectionInfo:
    """One entry of ``sections``; the happy path in a few type tests (~1 us), the messages in ``_explain_bad_entry``."""
    if type(entry) is not dict or len(entry) != 6:
        check.mapping(entry, f"sections[{position}]")
        _check_nesting(entry, f"sections[{position}]", 3, check)
    try:
        fields = _ENTRY_FIELDS(entry)
    except KeyError:
        _explain_bad_entry(entry, position, check)
    name, dtype, shape, offset, nbytes, crc = fields
    if tuple(map(type, fields)) != _ENTRY_TYPES or not (len(shape) <= 8 and 0 <= offset <= 2**62
                                                        and 0 <= nbytes <= 2**62 and 0 <= crc < 2**32):
        _explain_bad_entry(entry, position, check)
    itemsize = DTYPE_ITEMSIZE.get(dtype)
    if itemsize is None:
        raise ArtifactError(f"unknown dtype {dtype!r}", source=check.source, section=name)
    expected = itemsize
    for dim in shape:
        if type(dim) is not int or not 0 <= dim <= _MAX_DIMENSION:
            _explain_bad_entry(entry, position, check)
        expected *= dim
    if offset % ALIGNMENT:
        raise ArtifactError(f"offset {offset} is not a multiple of {ALIGNMENT}", source=check.source, section=name)
    if nbytes != expected:
        raise ArtifactError(f"nbytes {nbytes} does not match shape {list(shape)} of {dtype}",
                            source=check.source, section=name)
    return SectionInfo(name, dtype, tuple(shape), offset, nbytes, crc)


_ENTRY_FIELDS = itemgetter(*SectionInfo._fields)
_ENTRY_TYPES = (str, str, list, int, int, int)  # exact types: a bool is not an offset


def _explain_bad_entry(entry: dict, position: int, check: "_Checker") -> None:
    """Raise the error naming the first bad key of a section entry (the slow path of the check above)."""
    where = f"sections[{position}]."
    check.string(entry, "name", where=where)
    check.string(entry, "dtype", where=where)
    check.integers(entry, "shape", 0, _MAX_DIMENSION, where=where, max_length=8)
    check.integer(entry, "offset", 0, 2**62, where=where)
    check.integer(entry, "nbytes", 0, 2**62, where=where)
    check.integer(entry, "crc32", 0, 2**32 - 1, where=where)
    raise check.fail(f"sections[{position}] is malformed")  # not reached: one check above fails


def _bind_shape(symbols: tuple, info: SectionInfo, dims: dict[str, int], source: str) -> None:
    """Check ``info.shape`` against the spec's dimensions, binding names seen for the first time.

    ``symbols``: one ``(name, extra, symbol)`` per dimension (``_spec_table``): the dimension is
    ``dims[name] + extra``, or ``extra`` itself when ``name`` is None.
    """
    shape = info.shape
    if len(symbols) != len(shape):
        raise ArtifactError(f"shape {list(shape)} has rank {len(shape)}, expected {len(symbols)}",
                            source=source, section=info.name)
    for (name, extra, symbol), actual in zip(symbols, shape):
        if name is None:
            expected = extra
        else:
            bound = dims.get(name)
            if bound is None:
                if actual < extra:
                    raise ArtifactError(f"dimension {symbol} is {actual}", source=source, section=info.name)
                bound = dims[name] = actual - extra
            expected = bound + extra
        if actual != expected:
            raise ArtifactError(f"shape {list(shape)}: dimension {symbol} should be {expected}",
                                source=source, section=info.name)


def _spec_table(specs: tuple) -> tuple:
    """``specs`` as (name, dtypes, dimensions) rows with each symbol split once (``"n_masks+1"``
    -> ``("n_masks", 1, "n_masks+1")``, ``256`` -> ``(None, 256, 256)``), cached per spec tuple."""
    table = _SPEC_TABLES.get(id(specs))
    if table is None or table[0] is not specs:
        rows = tuple((spec.name, spec.dtypes, tuple(_split_symbol(symbol) for symbol in spec.shape)) for spec in specs)
        table = _SPEC_TABLES[id(specs)] = (specs, rows)
    return table[1]


def _split_symbol(symbol: int | str) -> tuple[str | None, int, int | str]:
    if isinstance(symbol, int):
        return None, symbol, symbol
    return (symbol[:-2], 1, symbol) if symbol.endswith("+1") else (symbol, 0, symbol)


_SPEC_TABLES: dict[int, tuple] = {}
for _specs in SECTIONS_BY_VERSION.values():  # at import, so that no load splits a symbol
    _spec_table(_specs)


class _Checker:
    """Typed access to header maps; every failure names the key."""

    def __init__(self, source: str):
        self.source = source

    def fail(self, message: str) -> ArtifactError:
        return ArtifactError(f"header: {message}", source=self.source)

    def mapping(self, value: object, what: str) -> dict:
        if not isinstance(value, dict):
            raise self.fail(f"{what} must be a map, found {type(value).__name__}")
        return value

    def integer(self, table: dict, key: str, low: int, high: int, *, where: str = "") -> int:
        value = table.get(key)
        if type(value) is not int or not low <= value <= high:
            raise self.fail(f"{where}{key} must be an integer in [{low}, {high}], found {value!r:.80}")
        return value

    def string(self, table: dict, key: str, *, where: str = "") -> str:
        value = table.get(key)
        if type(value) is not str:
            raise self.fail(f"{where}{key} must be a string, found {type(value).__name__}")
        return value

    def integers(self, table: dict, key: str, low: int, high: int, *, where: str = "",
                 max_length: int = 1 << 16) -> tuple[int, ...]:
        value = table.get(key)
        if not isinstance(value, list) or len(value) > max_length:
            raise self.fail(f"{where}{key} must be a list of at most {max_length} integers")
        if not all(type(item) is int and low <= item <= high for item in value):
            raise self.fail(f"{where}{key} must hold integers in [{low}, {high}], found {value!r:.80}")
        return tuple(value)

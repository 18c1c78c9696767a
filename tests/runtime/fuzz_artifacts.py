"""Artifact fuzzing: seeds, structure-aware mutations, and the one property every input must meet.

The property (``exercise``): loading any bytes and then serving from them (fill, advance on
allowed and random tokens, rollback, forced tokens, per-state masks, verify, the header as
JSON) either works or raises ``ArtifactError``; a matcher may also refuse a token with
``TokenNotAllowed``.  Any other exception, a bit set past the vocabulary, or a token id out of
range is a bug.

Blind byte flips stop at the checksums, so most mutations here rewrite the file *and* fix the
checksums afterwards, to reach the checks behind them: header fields set to hostile values
(negative, huge, wrong type, another artifact's), section values rewritten, sections swapped,
two files spliced.  The same module drives the hypothesis test (bounded, in CI), ``make fuzz``
(many more examples) and the atheris harness (``fuzz/fuzz_loader.py``), which feeds raw bytes
through ``fix_checksums``.

Seeds: the golden files of every format version (``tests/data/golden``) and artifacts freshly
compiled from the bundled GPT-2 tokenizer (``compile_seeds``), which exercise the layouts the
golden files lack (rows by token id, the 50k-id vocabulary, the zstandard form of a real file).
"""

from __future__ import annotations

import json
import random
import struct
import zlib
from pathlib import Path

import msgpack
import numpy as np

import indexc_runtime
from indexc_runtime import ArtifactError, TokenNotAllowed

DATA = Path(__file__).resolve().parents[1] / "data"
GOLDEN = DATA / "golden"
CORPUS = DATA / "fuzz_corpus"
PREFIX = struct.Struct("<8sII")

# Compiled seeds: (file name, regex), over the bundled GPT-2 vocabulary.
SEED_REGEXES = (
    ("number.idx", r"-?[0-9]{1,4}(\.[0-9]{1,3})?"),  # few live tokens: rows by live token, sparse masks
    ("text.idx", r"[^\"]{0,6}\""),  # most tokens live: rows by token id, complement masks
    ("words.idx", r"(cat|dog|bird)s?( and (cat|dog|bird)s?){0,2}"),  # a literal-heavy DFA
    ("number.idx.zst", r"-?[0-9]{1,4}(\.[0-9]{1,3})?"),
)

# Values a hostile header might hold: bounds, off-by-ones, wrong types, nesting.
HOSTILE_INTEGERS = (0, 1, -1, 2, 63, 64, 255, 256, 2**16, 2**24, 2**24 + 1, 2**31 - 1, 2**31, 2**32 - 1, 2**32,
                    2**48, 2**62, 2**63 - 1, -(2**63), 2**64 - 1)
HOSTILE_OTHERS = (None, True, False, 1.5, float("nan"), "", "x", "u1", "<u2", "<i4", "<i8", ">i4", "|b1", "O",
                  "token_id", "live_tokens", [], [0], [1, 2], [[]], {}, {"a": 1}, b"\x00")


def golden_seeds() -> dict[str, bytes]:
    """The committed golden artifacts (raw and zstandard), by file name."""
    return {path.name: path.read_bytes() for path in sorted(GOLDEN.glob("format-v*-small.idx*"))}


def compile_seeds(directory: Path) -> dict[str, bytes]:
    """Compile (once per directory) the ``SEED_REGEXES`` artifacts over GPT-2; by file name."""
    directory.mkdir(parents=True, exist_ok=True)
    missing = [(name, regex) for name, regex in SEED_REGEXES if not (directory / name).is_file()]
    if missing:
        from indexc.masks import MaskOptions
        from indexc.pipeline import CompileOptions, compile_regex, write
        from indexc.trie.cache import load_vocabulary_and_trie

        vocab, trie, _ = load_vocabulary_and_trie(DATA / "tokenizers" / "gpt2.json.zst")
        for name, regex in missing:
            result = compile_regex(regex, vocab, trie, CompileOptions(MaskOptions(jobs=1)), source=name)
            write(result, vocab, str(directory / name), compress=name.endswith(".zst"))
    return {name: (directory / name).read_bytes() for name, _ in SEED_REGEXES}


def corpus_inputs() -> dict[str, bytes]:
    """The inputs that found bugs (``tests/data/fuzz_corpus/*.bin``), replayed by the tests."""
    return {path.name: path.read_bytes() for path in sorted(CORPUS.glob("*.bin"))}


# -- the property ----------------------------------------------------------------------------

def exercise(data: bytes, rng: random.Random, *, steps: int = 12) -> str:
    """Load and serve ``data``; "refused" (ArtifactError) or "served".  Anything else propagates."""
    try:
        index = indexc_runtime.load(data, verify=rng.random() < 0.3)
        _serve(index, rng, steps)
        index.verify()
    except ArtifactError as error:
        assert str(error), "an ArtifactError says what is wrong"
        return "refused"
    return "served"


def _serve(index: indexc_runtime.Index, rng: random.Random, steps: int) -> None:
    json.dumps(index.header)  # tools print it
    index.mask_form_counts()
    _ = index.n_live_tokens, index.sections
    for state in rng.sample(range(index.n_states), min(index.n_states, 4)):
        _check_ids(index.state_token_ids(state), index.vocab_size)
    _check_ids(index.mask_token_ids(rng.randrange(index.n_masks)), index.vocab_size)
    out = np.zeros((2, index.mask_words), dtype=np.int32)
    matcher = index.matcher()
    accepted = 0
    for _ in range(steps):
        matcher.fill_bitmask(out, row=1)
        _check_tail(out[1], index.vocab_size)
        allowed = matcher.allowed_token_ids()
        _check_ids(allowed, index.vocab_size)
        forced = matcher.forced_tokens()
        assert all(0 <= token < index.vocab_size for token in forced)
        matcher.is_accepting()
        token = int(rng.choice(allowed)) if allowed.size and rng.random() < 0.8 else rng.randrange(-2, index.vocab_size + 2)
        try:
            matcher.advance(token)
            accepted += 1
        except TokenNotAllowed:
            pass
        if accepted and rng.random() < 0.15:
            back = rng.randint(1, accepted)
            matcher.rollback(back)
            accepted -= back


def _check_ids(ids: np.ndarray, vocab_size: int) -> None:
    assert ids.size == 0 or (int(ids.min()) >= 0 and int(ids.max()) < vocab_size), "token id out of range"


def _check_tail(row: np.ndarray, vocab_size: int) -> None:
    used = vocab_size % 32
    if used:
        tail = int(row[-1]) & 0xFFFFFFFF
        assert tail >> used == 0, "a bitmask bit is set past the vocabulary"


# -- mutations -------------------------------------------------------------------------------

def mutate(data: bytes, rng: random.Random, others: list[bytes]) -> bytes:
    """One to three mutations, most of them with the checksums fixed afterwards."""
    for _ in range(rng.randint(1, 3)):
        mutation = rng.choice(MUTATIONS)
        data = mutation(data, rng, others)
    return data


def flip_bits(data: bytes, rng: random.Random, others: list[bytes]) -> bytes:
    damaged = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        if damaged:
            damaged[rng.randrange(len(damaged))] ^= 1 << rng.randrange(8)
    return bytes(damaged)


def truncate_or_extend(data: bytes, rng: random.Random, others: list[bytes]) -> bytes:
    if rng.random() < 0.7:
        return data[: rng.randrange(len(data) + 1)]
    return data + bytes(rng.randrange(256) for _ in range(rng.randint(1, 130)))


def splice_files(data: bytes, rng: random.Random, others: list[bytes]) -> bytes:
    """The head of one file on the tail of another (cut at the same offset)."""
    other = rng.choice(others)
    cut = rng.randrange(min(len(data), len(other)) + 1)
    return data[:cut] + other[cut:]


def rewrite_header_field(data: bytes, rng: random.Random, others: list[bytes]) -> bytes:
    parts = _split(data)
    if parts is None:
        return data
    header, body = parts
    holder, key = _random_place(header, rng)
    if rng.random() < 0.15:
        holder.pop(key, None)
    else:
        holder[key] = _hostile_value(holder.get(key), rng)
    return _join(header, body, fix_sections=rng.random() < 0.9)


def transplant_header(data: bytes, rng: random.Random, others: list[bytes]) -> bytes:
    """Another artifact's value for one top-level key or one section entry (dimensions that disagree)."""
    parts, donor = _split(data), _split(rng.choice(others))
    if parts is None or donor is None or not isinstance(donor[0], dict):
        return data
    header, body = parts
    if rng.random() < 0.5 and isinstance(header.get("sections"), list) and isinstance(donor[0].get("sections"), list):
        if header["sections"] and donor[0]["sections"]:
            header["sections"][rng.randrange(len(header["sections"]))] = rng.choice(donor[0]["sections"])
    elif donor[0]:
        key = rng.choice(sorted(donor[0], key=str))
        header[key] = donor[0][key]
    return _join(header, body, fix_sections=True)


def rewrite_section_values(data: bytes, rng: random.Random, others: list[bytes]) -> bytes:
    """Set a few elements of one section to boundary values, checksum fixed."""
    parts = _split(data)
    if parts is None:
        return data
    header, body = parts
    entry = _random_section(header, rng)
    if entry is None:
        return data
    array = _section_array(entry, body)
    if array is None or not array.size:
        return data
    info = np.iinfo(array.dtype)
    vocab = header.get("vocab") if isinstance(header.get("vocab"), dict) else {}
    dims = [v for v in (header.get("n_states"), header.get("n_masks"), header.get("n_classes"), vocab.get("size"))
            if type(v) is int and abs(v) < 1 << 62]
    for _ in range(rng.randint(1, 3)):
        value = rng.choice([0, 1, -1, info.max, info.min, *(d + delta for d in dims for delta in (-1, 0, 1))])
        array[rng.randrange(array.size)] = min(max(value, info.min), info.max)
    if rng.random() < 0.2 and array.size > 1:  # break monotone orders (offsets, sorted ids)
        array[:] = array[::-1]
    start = entry["offset"]
    body = body[:start] + array.tobytes() + body[start + array.nbytes :]
    return _join(header, body, fix_sections=True)


def swap_sections(data: bytes, rng: random.Random, others: list[bytes]) -> bytes:
    """Swap the bytes of two sections of equal size, or point one section's entry at another's bytes."""
    parts = _split(data)
    if parts is None:
        return data
    header, body = parts
    first, second = _random_section(header, rng), _random_section(header, rng)
    if first is None or second is None or first is second:
        return data
    if first.get("nbytes") == second.get("nbytes") and _section_array(first, body) is not None \
            and _section_array(second, body) is not None:
        a, b, n = first["offset"], second["offset"], first["nbytes"]
        swapped = bytearray(body)
        swapped[a : a + n], swapped[b : b + n] = body[b : b + n], body[a : a + n]
        body = bytes(swapped)
    else:
        first.update({key: second.get(key) for key in ("offset", "nbytes", "shape", "dtype")})
    return _join(header, body, fix_sections=True)


MUTATIONS = (flip_bits, truncate_or_extend, splice_files, rewrite_header_field, rewrite_header_field,
             transplant_header, rewrite_section_values, rewrite_section_values, swap_sections)


# -- container surgery (from the format description; tolerant of damaged input) -------------

def fix_checksums(data: bytes) -> bytes:
    """The same bytes with the header CRC and every section CRC made right (atheris inputs)."""
    parts = _split(data)
    return data if parts is None else _join(*parts, fix_sections=True)


def _split(data: bytes) -> tuple[dict, bytes] | None:
    """(header, data area) of a raw container, or None when it cannot be read as one."""
    if len(data) < PREFIX.size or data[:6] != b"INDEXC":
        return None
    _, length, _ = PREFIX.unpack_from(data)
    if PREFIX.size + length > len(data):
        return None
    try:
        header = msgpack.unpackb(data[PREFIX.size : PREFIX.size + length], raw=False, strict_map_key=False)
    except Exception:  # any undecodable header: leave the input as it is
        return None
    if not isinstance(header, dict):
        return None
    return header, data[-(-(PREFIX.size + length) // 64) * 64 :]


def _join(header: dict, body: bytes, *, fix_sections: bool) -> bytes:
    if fix_sections and isinstance(header.get("sections"), list):
        for entry in header["sections"]:
            if isinstance(entry, dict) and _int(entry.get("offset")) and _int(entry.get("nbytes")):
                entry["crc32"] = zlib.crc32(body[entry["offset"] : entry["offset"] + entry["nbytes"]])
    try:
        packed = msgpack.packb(header, use_bin_type=True)
    except (OverflowError, TypeError, ValueError):
        return PREFIX.pack(b"INDEXC\x00\x01", 0, 0)
    head = PREFIX.pack(b"INDEXC\x00\x01", len(packed), zlib.crc32(packed)) + packed
    return head + bytes(-len(head) % 64) + body


def _int(value: object) -> bool:
    return type(value) is int and 0 <= value <= 1 << 40


def _random_section(header: dict, rng: random.Random) -> dict | None:
    sections = header.get("sections")
    if not isinstance(sections, list) or not sections:
        return None
    entry = rng.choice(sections)
    return entry if isinstance(entry, dict) else None


def _section_array(entry: dict, body: bytes) -> np.ndarray | None:
    """A writable copy of a section's elements (flat), or None for a damaged entry."""
    dtype, offset, nbytes = entry.get("dtype"), entry.get("offset"), entry.get("nbytes")
    if dtype not in ("u1", "<u2", "<i4", "<u4", "<i8") or not _int(offset) or not _int(nbytes):
        return None
    if offset + nbytes > len(body) or nbytes % np.dtype(dtype).itemsize:
        return None
    return np.frombuffer(body[offset : offset + nbytes], dtype=dtype).copy()


def _random_place(header: dict, rng: random.Random) -> tuple[dict, str]:
    """A map and one of its keys (or a new key): top level, ``vocab``, or a section entry."""
    choice = rng.random()
    holder = header
    if choice < 0.4 and isinstance(header.get("sections"), list) and header["sections"]:
        entry = rng.choice(header["sections"])
        holder = entry if isinstance(entry, dict) else header
    elif choice < 0.55 and isinstance(header.get("vocab"), dict):
        holder = header["vocab"]
    keys = sorted((k for k in holder if isinstance(k, str)), key=str) + ["unknown_key"]
    return holder, rng.choice(keys)


def _hostile_value(current: object, rng: random.Random) -> object:
    if type(current) is int and rng.random() < 0.5:
        return current + rng.choice((-1, 1, -current - 1, current))
    if isinstance(current, list) and current and rng.random() < 0.5:
        changed = list(current)
        changed[rng.randrange(len(changed))] = rng.choice(HOSTILE_INTEGERS)
        return changed
    return rng.choice(HOSTILE_INTEGERS + HOSTILE_OTHERS)

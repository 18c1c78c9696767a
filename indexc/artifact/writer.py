"""``write_artifact``: a MaskTable and where it came from -> one artifact file, atomically.

Steps: arrays of every section (``sections``) -> header and aligned layout (``layout``) ->
bytes on disk (``atomic``).  Before the new file replaces anything it is read back by the
runtime with ``verify=True`` (every checksum, every bound): the compiler never ships a file
the runtime would refuse.  That self-check costs about as much as hashing the file once.

The shipping form (``compress=True``, or a path ending in ``.zst``) is the whole container
compressed as one zstandard frame (with content size and checksum; level chosen by size, see
below); the runtime recognises it by its magic number and inflates it into memory.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import numpy as np
import zstandard

import indexc_runtime
from indexc.artifact.atomic import write_atomically
from indexc.artifact.header import header_fields
from indexc.artifact.layout import plan_container
from indexc.artifact.sections import table_sections
from indexc.masks.table import MaskTable

# zstd level by raw size.  Measured: a 36 KB gpt2 regex artifact shrinks 6.4x at level 19 (3 ms)
# vs 4.4x at 3; a 1.9 MB llama3 one 5.7x at 19 but in 1.2 s, 2.4x at 3 in 13 ms (levels 6-15
# gain <10% over 3 there).  Strong for small files, fast for big ones, so writing the shipping
# form never dominates a compile.  A pure function of the bytes: output stays reproducible.
STRONG_LEVEL_MAX_BYTES = 256 << 10
STRONG_LEVEL, FAST_LEVEL = 19, 3


@dataclass(frozen=True)
class VocabInfo:
    """What the artifact records about the vocabulary (``Vocabulary`` provides the same fields)."""

    size: int
    fingerprint: str
    eos_ids: tuple[int, ...]
    special_ids: tuple[int, ...] = ()


@dataclass(frozen=True)
class ArtifactSummary:
    path: Path
    bytes: int  # on disk (compressed size for the shipping form)
    raw_bytes: int  # the uncompressed container
    compressed: bool
    header_bytes: int
    section_bytes: dict[str, int] = field(default_factory=dict)
    mask_forms: dict[str, int] = field(default_factory=dict)
    stage_ms: dict[str, float] = field(default_factory=dict)  # compile work done by the writer (a warm-up walk)


def write_artifact(
    table: MaskTable,
    path,
    *,
    vocab_info,
    constraint: dict,
    options: dict,
    stats: dict,
    compress: bool = False,
    durable: bool = False,
    token_layout: str | None = None,
) -> ArtifactSummary:
    """Write ``table`` to ``path`` (atomically) and say what was written.

    ``vocab_info``: anything with ``size``, ``fingerprint``, ``eos_ids`` and optionally
    ``special_ids`` (a ``Vocabulary`` or a ``VocabInfo``).  ``constraint``: ``kind``,
    ``source`` and (checked, or added) ``sha256``.  ``options`` and ``stats`` are recorded as
    given and must be plain data.  ``durable``: fsync the file and its directory (survives a
power loss; see ``atomic``).  ``token_layout``: pin the token rows' layout (``token_rows``;
default: the smallest).  Raises ``OutputError`` when the file cannot be written and
    ``ValueError`` for a table or metadata that cannot be encoded.
    """
    path = Path(path)
    if not isinstance(table, MaskTable):  # a GrammarTable: the grammar path's own sections
        from indexc.artifact.grammar_writer import write_grammar_artifact

        return write_grammar_artifact(table, path, vocab_info=vocab_info, constraint=constraint, options=options,
                                      stats=stats, compress=compress)
    vocab = vocab_fields(vocab_info)
    special_ids = np.asarray(getattr(vocab_info, "special_ids", ()), dtype=np.int64)
    arrays, masks, token_rows = table_sections(table, vocab["size"], special_ids, token_layout)
    fields = header_fields(vocab=vocab, constraint=constraint, options=options, stats=stats,
                           n_states=table.n_states, n_classes=table.n_classes, n_masks=len(table.masks),
                           token_class_rows=token_rows)
    plan = plan_container(fields, arrays)
    compressed, size = write_container(plan, path, compress, durable=durable)
    return ArtifactSummary(
        path=path,
        bytes=size,
        raw_bytes=plan.size,
        compressed=compressed,
        header_bytes=len(plan.header),
        section_bytes={name: int(array.nbytes) for name, array in arrays.items()},
        mask_forms=masks.form_counts(),
    )


def write_container(plan, path: Path, compress: bool, *, durable: bool = False,
                    computed: dict | None = None) -> tuple[bool, int]:
    """Write a planned container, raw or as the zstandard shipping form; (compressed?, bytes on disk).
    ``computed``: what a grammar artifact's writer computed of the file (``GrammarIndex.verify``'s
    keyword arguments: warm-up rows, item bounds, lexeme paths), for the self-check (``_self_check``)."""
    compressed = compress or path.name.endswith(".zst")
    check = partial(_self_check, computed=computed)
    if compressed:
        payload = shipping_form(plan.to_bytes())
        return True, write_atomically(path, lambda handle: handle.write(payload), check, durable=durable)
    return False, write_atomically(path, plan.write_to, check, durable=durable)


def shipping_form(raw: bytes) -> bytes:
    """A container's bytes as the shipping form: one zstandard frame with its content size and
    checksum, at the level its size calls for (``STRONG_LEVEL_MAX_BYTES``)."""
    level = STRONG_LEVEL if len(raw) <= STRONG_LEVEL_MAX_BYTES else FAST_LEVEL
    return zstandard.ZstdCompressor(level=level, write_checksum=True).compress(raw)


def vocab_fields(vocab_info) -> dict:
    size = int(vocab_info.size)
    eos_ids = sorted({int(i) for i in vocab_info.eos_ids})
    if not all(0 <= i < size for i in eos_ids):
        raise ValueError(f"eos ids {eos_ids} must lie in [0, {size})")
    fingerprint = vocab_info.fingerprint
    if not isinstance(fingerprint, str) or not fingerprint:
        raise ValueError("the vocabulary fingerprint must be a non-empty string")
    return {"size": size, "fingerprint": fingerprint, "eos_ids": eos_ids}


def _self_check(artifact: Path, computed: dict | None = None) -> None:
    """Read the new artifact back as the runtime will, every check of ``verify`` made; a refusal
    here is a compiler bug.  ``computed``: what a grammar's writer computed (the rows its warm-up
    walk gave its stored configurations, its item bounds and lexeme paths), compared with the
    stored ones instead of computing them again (``GrammarIndex.verify``)."""
    try:
        if computed is None:
            indexc_runtime.load(artifact, verify=True)
        else:
            indexc_runtime.load(artifact).verify(**computed)
    except indexc_runtime.ArtifactError as exc:
        raise ValueError(f"internal error: the writer produced an artifact the runtime refuses: {exc}") from exc


"""``indexc inspect``: what an artifact holds, read through the runtime (fully verified).

Shows the header (format, compiler, vocabulary, constraint, options, statistics), the size of
every section, the state and mask counts, and how the unique masks are stored (forms
histogram with bytes per form, masks holding a single token, tokens per mask).  ``--json``
prints the same as one JSON object.  A damaged file is an error (exit 2) naming the section.

Cost: one full verification (CRC-32 of every section) and one unpacking of every unique mask
(vocabulary / 8 bytes each): milliseconds for regex artifacts.
"""

from __future__ import annotations

import argparse
import os

import numpy as np

from indexc.cli.common import print_json
from indexc.errors import IndexcError

ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
SOURCE_PREVIEW = 100


def register(subparsers) -> None:
    p = subparsers.add_parser("inspect", help="show an artifact's header, sections and mask statistics",
                              description="Describe an index artifact: header, section sizes, states and masks.")
    p.add_argument("artifact", metavar="ARTIFACT", help="an artifact file (.idx or the .zst shipping form)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import indexc_runtime

    try:
        index = indexc_runtime.load(args.artifact, verify=True)
    except indexc_runtime.ArtifactError as exc:
        raise IndexcError(exc.message if exc.section is None else f"section {exc.section!r}: {exc.message}",
                          source=args.artifact) from None
    report = describe(index, args.artifact)
    if args.json:
        print_json(report)
    else:
        print("\n".join(render(report)))
    return 0


def describe(index, path: str) -> dict:
    """Everything ``inspect`` shows, as plain data."""
    header = index.header
    with open(path, "rb") as handle:
        compressed = handle.read(4) == ZSTD_MAGIC
    return {
        "path": str(path),
        "bytes": os.path.getsize(path),
        "raw_bytes": index.nbytes,
        "compressed": compressed,
        "header": {key: value for key, value in header.items() if key != "sections"},
        "sections": [{"name": s.name, "dtype": s.dtype, "shape": list(s.shape), "bytes": s.nbytes}
                     for s in index.sections],
        "states": {"count": index.n_states, "accepting": int(index.section("accepting").sum()),
                   "classes": index.n_classes, "start": index.start_state},
        "masks": _mask_statistics(index),
        "live_tokens": index.n_live_tokens,
        "special_tokens": int(index.special_token_ids.size),
        "stored_memo": _stored_memo(index),
    }


def _stored_memo(index) -> dict | None:
    """A format 7 grammar artifact's parser memo computed ahead of time: its counts, and how many
    of the masks (the last ones) and bytes are its own; None for other artifacts."""
    names = {s.name for s in index.sections}
    if "memo_config_mask" not in names:
        return None
    mask_ids = index.section("memo_config_mask")
    first = int(mask_ids.min()) if mask_ids.size else index.n_masks
    memo_bytes = sum(s.nbytes for s in index.sections if s.name.startswith("memo_"))
    return {"configurations": int(mask_ids.size), "sets": int(index.section("memo_set_accepting").size),
            "masks": index.n_masks - first, "first_mask": first, "section_bytes": memo_bytes}


def _mask_statistics(index) -> dict:
    forms = index.section("mask_form")
    word_counts = np.diff(index.section("mask_word_offsets"))
    names = list(index.mask_form_counts())
    pair_bytes = index.section("mask_word_index").itemsize + index.section("mask_word_value").itemsize  # 12 (v2), 8 (v1)
    histogram = {}
    for code, name in enumerate(names):
        chosen = forms == code
        stored = int(chosen.sum()) * index.mask_words * 4 if name == "dense" else int(word_counts[chosen].sum()) * pair_bytes
        histogram[name] = {"count": int(chosen.sum()), "bytes": stored}
    sizes = np.array([index.mask_token_ids(m).size for m in range(index.n_masks)])
    return {
        "count": index.n_masks,
        "forms": histogram,
        "forcing_one_token": int((index.section("forced_token") >= 0).sum()),
        "tokens_per_mask": {"min": int(sizes.min()), "median": float(np.median(sizes)), "max": int(sizes.max())},
    }


def render(report: dict) -> list[str]:
    """The human-readable form of ``describe``'s report."""
    header, states, masks = report["header"], report["states"], report["masks"]
    vocab, constraint = header["vocab"], header.get("constraint", {})  # informative keys may be absent
    size = f"{report['bytes']:,} bytes" + (f", zstd of {report['raw_bytes']:,}" if report["compressed"] else "")
    source = str(constraint.get("source", ""))
    preview = source if len(source) <= SOURCE_PREVIEW else source[:SOURCE_PREVIEW] + "..."
    forms = ", ".join(f"{name} {f['count']} ({f['bytes']:,} B)" for name, f in masks["forms"].items())
    per_mask = masks["tokens_per_mask"]
    lines = [
        f"artifact    {report['path']} ({size})",
        f"format      version {header['format_version']}, {header['index_kind']} index, "
        f"written by indexc {header.get('compiler_version', '(unknown)')}",
        f"vocabulary  {vocab['size']:,} ids, fingerprint {vocab['fingerprint']}, eos {vocab['eos_ids']}, "
        f"{report['special_tokens']} special",
        f"constraint  {constraint.get('kind')} (sha256 {str(constraint.get('sha256'))[:16]}...): {preview}",
        f"path        {constraint.get('path', '(not recorded)')}"
        + (f" ({constraint['reason']})" if constraint.get("reason") else ""),
        f"options     {_pairs(header.get('options', {}))}",
        f"states      {states['count']:,} ({states['accepting']:,} accepting), {states['classes']} byte classes, "
        f"start {states['start']}",
        f"masks       {masks['count']:,} unique: {forms}; {masks['forcing_one_token']} hold a single token",
        f"            tokens per mask: min {per_mask['min']:,}, median {per_mask['median']:g}, max {per_mask['max']:,}",
        f"live tokens {report['live_tokens']:,}",
        f"stats       {_pairs(header.get('stats', {}))}",
    ]
    memo = report.get("stored_memo")
    if memo is not None:
        lines.append(f"memo        {memo['configurations']:,} configurations, {memo['sets']:,} Earley sets, "
                     f"{memo['masks']:,} masks (ids {memo['first_mask']:,} on), {memo['section_bytes']:,} bytes of "
                     "memo sections: merged into each parser memo at its first step (format 7)")
    width = max([22, *(len(section["name"]) for section in report["sections"])])  # format 7's memo_* names are longer
    lines.append(f"sections    {'name':{width}s} dtype  shape                bytes")
    for section in report["sections"]:
        shape = "x".join(str(d) for d in section["shape"])
        lines.append(f"            {section['name']:{width}s} {section['dtype']:6s} {shape:16s} {section['bytes']:>9,}")
    return lines


def _pairs(mapping: dict) -> str:
    return " ".join(f"{key}={value}" for key, value in mapping.items()) or "-"

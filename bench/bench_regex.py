"""Regex benchmark: indexc against outlines-core, llguidance and xgrammar on one tokenizer.

For every regex of ``bench/data/regex_examples.json`` and every engine, one fresh process
(``bench.measure``) loads the tokenizer, compiles the regex (time, peak memory growth,
serialized size, states) and walks the tokenizer's own tokenization of the regex's valid
example (HF ``tokenizers``, no special tokens added), timing each mask and each advance and
checking that the example is accepted (every token allowed, then an EOS id).  The result is a
markdown table on stdout and a JSON file under ``bench/results/`` (not versioned).

Defaults: the Llama-3 tokenizer of ``../shared/tokenizers/llama3.json`` when it exists, else
the copy bundled with the tests; EOS ids from the tokenizer_config.json found beside it
(``<stem>.tokenizer_config.json`` or ``configs/<stem>.tokenizer_config.json``), else
llguidance's guess; one thread or process per engine (``--jobs``), as the machine has 2 cores.

An engine whose package is missing is listed as "not installed".  The example is walked at
least ten times on the same compiled constraint, and until 400 steady masks were timed or 10 s
passed (``bench.measure``): the first walk, in a fresh process, is reported apart (its median
and slowest mask: lazy engines build their state there); mask and advance percentiles
(nearest-rank) are over the other walks, the steady state of a server.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path


REPO = Path(__file__).resolve().parents[1]
if __package__ in (None, ""):  # run as a script: make ``bench`` and ``tests`` importable
    sys.path.insert(0, str(REPO))

from bench.engines import ENGINE_MODULES, unavailable_reason  # noqa: E402
from bench.engines.common import format_size, percentile_text  # noqa: E402

EXAMPLES = REPO / "bench" / "data" / "regex_examples.json"
SHARED_LLAMA3 = REPO.parent / "shared" / "tokenizers" / "llama3.json"
BUNDLED_LLAMA3 = REPO / "tests" / "data" / "tokenizers" / "llama3.json.zst"
RESULTS_DIR = REPO / "bench" / "results"


@dataclass
class Cell:
    regex: str
    engine: str
    result: dict


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tokenizer", default=str(SHARED_LLAMA3 if SHARED_LLAMA3.exists() else BUNDLED_LLAMA3))
    p.add_argument("--eos", help="EOS ids, comma-separated (default: from tokenizer_config.json)")
    p.add_argument("--engines", default=",".join(ENGINE_MODULES), help="comma-separated subset")
    p.add_argument("--regexes", help="comma-separated names (default: all)")
    p.add_argument("--jobs", type=int, default=1, help="indexc worker processes (xgrammar: always 1 thread)")
    p.add_argument("--timeout", type=float, default=600.0, help="seconds per engine and regex")
    p.add_argument("--repeats", type=int, default=1,
                   help="compile each cell this many times, each in a fresh process, and report the median "
                        "(the later passes compile only, round-robin over the cells)")
    p.add_argument("--json-out", help="results file (default: bench/results/regex-<tokenizer>.json)")
    return p.parse_args(argv)


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    entries = _selected_entries(args.regexes)
    eos_ids = [int(i) for i in args.eos.split(",")] if args.eos else resolve_eos_ids(args.tokenizer)
    tokenized = tokenize_examples(args.tokenizer, [e["example"] for e in entries])
    engines, notes = available_engines(args, eos_ids)
    cells = []
    for entry, token_ids in zip(entries, tokenized):
        for engine in engines:
            _progress(f"{entry['name']} / {engine} ...")
            job = {"engine": engine, "regex": entry["regex"], "tokenizer": args.tokenizer,
                   "eos_ids": eos_ids, "token_ids": token_ids, "jobs": args.jobs}
            cells.append(Cell(entry["name"], engine, run_job(job, args.timeout)))
    _repeat_compiles(cells, entries, args, eos_ids)
    print(render_table(cells))
    print(render_notes(args.tokenizer, eos_ids, notes))
    _save(args, eos_ids, cells, notes)
    return 0


def _repeat_compiles(cells: list["Cell"], entries: list[dict], args: argparse.Namespace, eos_ids: list[int]) -> None:
    """``--repeats``: more compiles of every cell, each in a fresh process, round-robin over the
    cells (a burst of load on the shared host then hits every engine alike, not one cell's
    runs); a cell's ``compile_ms`` becomes the median of its runs, all kept in
    ``compile_ms_runs``.  One compile varied by +-30% between minutes here, the geometric mean
    of the speed-ups over the regexes by +-10%."""
    regex_of = {entry["name"]: entry["regex"] for entry in entries}
    runs = {id(cell): [cell.result["compile_ms"]] for cell in cells if "error" not in cell.result}
    for repeat in range(1, args.repeats):
        for cell in cells:
            if id(cell) not in runs:
                continue
            _progress(f"{cell.regex} / {cell.engine}: compile {repeat + 1} of {args.repeats} ...")
            job = {"engine": cell.engine, "regex": regex_of[cell.regex], "tokenizer": args.tokenizer,
                   "eos_ids": eos_ids, "token_ids": None, "jobs": args.jobs}
            result = run_job(job, args.timeout)
            if "error" not in result:
                runs[id(cell)].append(result["compile_ms"])
    for cell in cells:
        if id(cell) in runs and len(runs[id(cell)]) > 1:
            cell.result["compile_ms_runs"] = runs[id(cell)]
            cell.result["compile_ms"] = statistics.median(runs[id(cell)])


def resolve_eos_ids(tokenizer_path: str) -> list[int]:
    """EOS from the tokenizer_config.json beside the tokenizer, else llguidance's guess."""
    from tokenizers import Tokenizer

    from tests.reference.llguidance_oracle import LlgOracle
    from tests.reference.tokenizer_source import tokenizer_json_text

    config = _find_tokenizer_config(Path(tokenizer_path))
    if config is not None:
        eos = json.loads(config.read_text(encoding="utf-8")).get("eos_token")
        eos = eos.get("content") if isinstance(eos, dict) else eos
        token_id = Tokenizer.from_str(tokenizer_json_text(tokenizer_path)).token_to_id(eos) if eos else None
        if token_id is not None:
            return [int(token_id)]
    return LlgOracle(tokenizer_path).eos_ids.tolist()


def _find_tokenizer_config(path: Path) -> Path | None:
    stem = path.name.removesuffix(".zst").removesuffix(".json")
    for candidate in (path.parent / f"{stem}.tokenizer_config.json",
                      path.parent / "configs" / f"{stem}.tokenizer_config.json",
                      path.parent / "tokenizer_config.json"):
        if candidate.is_file():
            return candidate
    return None


def tokenize_examples(tokenizer_path: str, texts: list[str]) -> list[list[int]]:
    """The tokenizer's own tokenization (HF ``tokenizers``), without added special tokens."""
    from tokenizers import Tokenizer

    from tests.reference.tokenizer_source import tokenizer_json_text

    tokenizer = Tokenizer.from_str(tokenizer_json_text(tokenizer_path))
    return [tokenizer.encode(text, add_special_tokens=False).ids for text in texts]


def available_engines(args: argparse.Namespace, eos_ids: list[int]) -> tuple[list[str], dict]:
    """Engines to run, and a note per engine left out."""
    engines, notes = [], {}
    for name in args.engines.split(","):
        reason = unavailable_reason(name)
        if reason is None:
            engines.append(name)
        else:
            notes[name] = reason
    return engines, notes


def run_job(job: dict, timeout: float) -> dict:
    """Run ``bench.measure`` on one job in a fresh interpreter; its JSON result or an error."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump(job, handle)
    try:
        done = subprocess.run([sys.executable, "-m", "bench.measure", handle.name], cwd=REPO,
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"timeout after {timeout:.0f} s"}
    finally:
        os.unlink(handle.name)
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        last = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
        return {"error": last}
    return json.loads(lines[-1])


COLUMNS = ["regex", "engine", "compile ms", "peak MB", "peak MB w/ walk", "size", "states",
           "mask p50 µs", "mask p99 µs", "advance p50 µs", "first walk: mask p50 / max µs",
           "first walk: advance p50 µs", "valid example accepted"]


def render_table(cells: list[Cell]) -> str:
    rows = ["| " + " | ".join(COLUMNS) + " |", "|" + "|".join("---" for _ in COLUMNS) + "|"]
    for cell in cells:
        rows.append("| " + " | ".join([cell.regex, cell.engine, *_row(cell.result)]) + " |")
    return "\n".join(rows)


def _row(result: dict) -> list[str]:
    if "error" in result:
        return ["error: " + result["error"].replace("|", "\\|")[:120]] + [""] * (len(COLUMNS) - 3)
    peak = result["peak_kib"]
    mask, advance = result.get("mask_us") or [], result.get("advance_us") or []
    first_mask, first_advance = result.get("first_mask_us") or [], result.get("first_advance_us") or []
    accepted = "yes" if result.get("accepted") else f"no: {result.get('failure', '')}"
    walk_peak = result.get("walk_peak_kib")
    size = format_size(result["serialized_bytes"])
    shipping = (result.get("extra") or {}).get("shipping_bytes")
    if shipping is not None:
        size += f" (.zst {format_size(shipping)})"
    return [f"{result['compile_ms']:,.1f}", f"{peak / 1024:,.1f}",
            f"{walk_peak / 1024:,.1f}" if walk_peak is not None else "—", size,
            f"{result['states']:,}" if result.get("states") is not None else "—",
            percentile_text(mask, 50), percentile_text(mask, 99), percentile_text(advance, 50),
            f"{percentile_text(first_mask, 50)} / {percentile_text(first_mask, 100)}", percentile_text(first_advance, 50), accepted]


def render_notes(tokenizer: str, eos_ids: list[int], notes: dict) -> str:
    lines = ["", f"Tokenizer: `{tokenizer}`; EOS ids {eos_ids}."]
    lines += [f"- {name}: {reason}" for name, reason in notes.items()]
    lines.append("- Compile excludes loading the tokenizer (every engine caches it per tokenizer); "
                 "llguidance builds its lexer lazily, so its work shows in the first masks and in "
                 "\"peak MB w/ walk\" (growth from before the compile to the end of the walk; for indexc, "
                 "the runtime's load and walk only).")
    return "\n".join(lines)


def _selected_entries(names: str | None) -> list[dict]:
    entries = json.loads(EXAMPLES.read_text(encoding="utf-8"))["regexes"]
    if names is None:
        return entries
    wanted = names.split(",")
    unknown = set(wanted) - {e["name"] for e in entries}
    if unknown:
        raise SystemExit(f"{EXAMPLES}: no regex named {', '.join(sorted(unknown))}")
    return [e for e in entries if e["name"] in wanted]


def _save(args: argparse.Namespace, eos_ids: list[int], cells: list[Cell], notes: dict,
) -> None:
    path = Path(args.json_out) if args.json_out else RESULTS_DIR / f"regex-{Path(args.tokenizer).name.split('.')[0]}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = {"tokenizer": args.tokenizer, "eos_ids": eos_ids, "notes": notes,
               "cells": [{"regex": c.regex, "engine": c.engine, **c.result} for c in cells]}
    path.write_text(json.dumps(payload, indent=1), encoding="utf-8")
    _progress(f"results: {path}")


def _progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""``python -m bench.maskbench``: the MaskBench protocol over a directory, every engine, one table.

Engines run one after the other on the same files (each with ``--jobs`` worker processes), so
their figures come from the same run and do not share the two cores with each other.  Ctrl-C
(or ``kill``) stops the engine running and reports the files it finished (for every engine run
so far): put the slow engine last.  The
output is a markdown table (stdout), the compile errors of each engine by reason, optionally
the crossing with llguidance's recorded outcomes (``--compare-llguidance``) and indexc's
regression check (``--expected``: every file whose outcome changed; exit code 1 if any).

xgrammar needs torch, which only the bench venv has (``make bench`` builds ``.venv-bench``), so
its workers run under ``--xgrammar-python`` (default ``.venv-bench/bin/python`` when it exists)
while everything else runs in the interpreter that started the bench.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import signal
import subprocess
import sys
import time
from pathlib import Path

from bench.maskbench.dataset import list_files
from bench.maskbench.expected import (DEFAULT_EXPECTED, LLGUIDANCE_REFERENCE, changes, compare_with_llguidance,
                                      load_records, records_of, save_records)
from bench.maskbench.pool import REPO, PoolSettings, run_engine
from bench.maskbench.protocol import PASS, FileOutcome
from bench.maskbench.report import SLOW_MASK_US, markdown_paths, markdown_reasons, markdown_table, percentiles, summarize
from bench.maskbench.schema_engines import SCHEMA_ENGINES

DEFAULT_DIR = REPO.parent / "shared" / "maskbench"
BENCH_PYTHON = REPO / ".venv-bench" / "bin" / "python"
COMPILE_LIMITS = {"outlines-core": 30.0}  # its index build is the slow one (the figure)
DEFAULT_COMPILE_S = 60.0
IMPORTS = {"indexc": "indexc.pipeline.json_schema", "llguidance": "llguidance",
           "outlines-core": "outlines_core", "xgrammar": "xgrammar"}


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench.maskbench", description=__doc__.splitlines()[0])
    p.add_argument("directory", nargs="?", default=str(DEFAULT_DIR), help="MaskBench files (default: %(default)s)")
    p.add_argument("--files", default="*.json",
                   help="glob(s) on file names, comma-separated; @LIST reads them from a file, one a line (# comments)")
    p.add_argument("--every", type=int, default=1, help="every K-th file (sorted by name) after --files: a spread subset")
    p.add_argument("--limit", type=int, help="first N files (sorted by name) after --files and --every")
    p.add_argument("--engines", default="indexc,llguidance", help=f"comma-separated of {', '.join(SCHEMA_ENGINES)}, or all")
    p.add_argument("--jobs", type=int, default=1, help="worker processes per engine")
    p.add_argument("--tokenizer", help="tokenizer.json (default: ../shared Llama-3, else the bundled copy)")
    p.add_argument("--eos", help="EOS ids, comma-separated (default: from tokenizer_config.json)")
    p.add_argument("--compile-timeout", type=float, help=f"seconds per schema (default {DEFAULT_COMPILE_S:g}, outlines-core 30)")
    p.add_argument("--walk-timeout", type=float, default=120.0, help="seconds for all walks of a file")
    p.add_argument("--mem-limit-gb", type=float, default=8.0, help="address-space cap per worker")
    p.add_argument("--xgrammar-python", default=str(BENCH_PYTHON), help="interpreter with xgrammar")
    p.add_argument("--json", dest="json_out", help="write the summaries and per-file outcomes here")
    p.add_argument("--expected", nargs="?", const=str(DEFAULT_EXPECTED),
                   help="compare indexc's outcomes with this regression file (default: %(const)s)")
    p.add_argument("--write-expected", nargs="?", const=str(DEFAULT_EXPECTED), help="write indexc's outcomes there")
    p.add_argument("--compare-llguidance", nargs="?", const=str(LLGUIDANCE_REFERENCE),
                   help="cross each engine's outcomes with llguidance's recorded file")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    return p.parse_args(argv)


def _file_patterns(spec: str) -> list[str]:
    """``--files``: comma-separated globs, or ``@LIST``: a file of them, one a line (e.g.
    ``bench/data/recursive_maskbench.txt``)."""
    if not spec.startswith("@"):
        return spec.split(",")
    try:
        lines = Path(spec[1:]).read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise SystemExit(f"--files {spec}: {exc.strerror or exc}") from None
    return [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    _interrupt_on_signals()
    paths = [p for pattern in _file_patterns(args.files) for p in list_files(args.directory, pattern)]
    paths = sorted(set(paths))[:: max(1, args.every)][: args.limit]
    if not paths:
        print(f"no MaskBench files match {args.files!r} in {args.directory}", file=sys.stderr)
        return 2
    tokenizer, eos_ids = tokenizer_and_eos(args)
    python_for = {"xgrammar": args.xgrammar_python}
    engines, missing = available_engines(args.engines, python_for)
    results: dict[str, list[FileOutcome]] = {}
    for engine in engines:
        settings = PoolSettings(tokenizer, eos_ids, jobs=args.jobs, walk_s=args.walk_timeout,
                                compile_s=args.compile_timeout or COMPILE_LIMITS.get(engine, DEFAULT_COMPILE_S),
                                mem_limit_gb=args.mem_limit_gb, python_for=python_for)
        started = time.monotonic()
        results[engine] = run_engine(engine, paths, settings, progress=None if args.quiet else _Progress(engine, len(paths)))
        _note(f"{engine}: {len(results[engine])} files in {time.monotonic() - started:.0f} s")
        if len(results[engine]) < len(paths):  # interrupted: report the files every engine finished
            paths = [p for p in paths if p.name in {o.file for o in results[engine]}]
            results = {name: [o for o in outcomes if o.file in {p.name for p in paths}] for name, outcomes in results.items()}
            _note(f"interrupted: reporting the {len(paths)} files done by every engine run so far")
            break
    return _report(args, paths, tokenizer, eos_ids, results, missing)


def _interrupt_on_signals() -> None:
    """SIGINT and SIGTERM both end the run with a report of what is done.

    A process started in the background by a non-interactive shell inherits SIGINT ignored, so
    the handler is installed explicitly, and SIGTERM (what ``kill`` sends) joins it.
    """
    def interrupt(signum, frame):
        raise KeyboardInterrupt

    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, interrupt)


def available_engines(names: str, python_for: dict[str, str]) -> tuple[list[str], dict[str, str]]:
    """The engines asked for that can run, and why the others cannot."""
    wanted = list(SCHEMA_ENGINES) if names == "all" else names.split(",")
    engines, missing = [], {}
    for name in wanted:
        if name not in SCHEMA_ENGINES:
            raise SystemExit(f"unknown engine {name!r} (known: {', '.join(SCHEMA_ENGINES)})")
        if _importable(IMPORTS[name], python_for.get(name)):
            engines.append(name)
        else:
            missing[name] = f"{IMPORTS[name]} not importable" + (f" with {python_for[name]}" if name in python_for else "")
    return engines, missing


def _importable(module: str, python: str | None) -> bool:
    # Compared unresolved: two venvs' interpreters are symlinks to the same binary.
    if python is None or Path(python).absolute() == Path(sys.executable).absolute():
        try:
            return importlib.util.find_spec(module) is not None
        except ModuleNotFoundError:
            return False
    if not Path(python).exists():
        return False
    return subprocess.run([python, "-c", f"import {module}"], capture_output=True).returncode == 0


def tokenizer_and_eos(args: argparse.Namespace) -> tuple[str, list[int]]:
    from bench.bench_regex import BUNDLED_LLAMA3, SHARED_LLAMA3, resolve_eos_ids

    tokenizer = args.tokenizer or str(SHARED_LLAMA3 if SHARED_LLAMA3.exists() else BUNDLED_LLAMA3)
    eos_ids = [int(i) for i in args.eos.split(",")] if args.eos else resolve_eos_ids(tokenizer)
    return tokenizer, eos_ids


def _report(args, paths, tokenizer, eos_ids, results: dict[str, list[FileOutcome]], missing: dict) -> int:
    summaries = [summarize(engine, outcomes) for engine, outcomes in results.items()]
    print(f"MaskBench protocol: {len(paths)} files of {args.directory}, tokenizer {Path(tokenizer).name}, "
          f"EOS {eos_ids}\n")
    print(markdown_table(summaries) if summaries else "(no engine could run)")
    for name, why in missing.items():
        print(f"\n{name}: not run ({why})")
    for table in filter(None, (markdown_paths(summary) for summary in summaries)):
        print("\n" + table)
    for summary in summaries:
        print("\n" + markdown_reasons(summary))
    records = {engine: records_of(outcomes) for engine, outcomes in results.items()}
    if args.compare_llguidance and not Path(args.compare_llguidance).is_file():
        print(f"\n(no llguidance reference at {args.compare_llguidance}: crossing skipped)")
    elif args.compare_llguidance:
        reference = load_records(args.compare_llguidance)
        print("\nAgainst llguidance's recorded outcomes (" + Path(args.compare_llguidance).name + "):")
        for engine, engine_records in records.items():
            crossing = compare_with_llguidance(engine_records, reference)
            print(f"- {engine}: {crossing.describe()}")
            if engine == "indexc" and crossing.only_llguidance:
                print("  llguidance passes, indexc does not: " + ", ".join(crossing.only_llguidance[:40])
                      + (" ..." if len(crossing.only_llguidance) > 40 else ""))
    if args.json_out:
        _save_json(args.json_out, summaries, results)
    status = 0
    if "indexc" in records and args.write_expected:
        save_records(records["indexc"], args.write_expected)
        _note(f"indexc outcomes written to {args.write_expected}")
    if "indexc" in records and args.expected:
        changed = changes(load_records(args.expected), records["indexc"])
        print(f"\nindexc against {args.expected}: {len(changed)} of {len(paths)} files changed")
        for change in changed:
            print(f"- {change.describe()}")
        status = 1 if changed else 0
    return status


def _save_json(path: str, summaries, results: dict[str, list[FileOutcome]]) -> None:
    """Summaries and per-file outcomes (the timing lists reduced to per-file figures: mask µs
    p50 / p99 / max and the masks over ``SLOW_MASK_US``)."""
    files = {}
    for engine, outcomes in results.items():
        for o in outcomes:
            row = {k: v for k, v in o.as_dict().items() if k not in ("mask_us", "advance_us")}
            row["mask_us"] = percentiles(o.mask_us, (50, 99, 100))
            row["slow_masks"] = sum(t > SLOW_MASK_US for t in o.mask_us)
            files.setdefault(o.file, {})[engine] = row
    payload = {"summaries": [s.as_dict() for s in summaries], "files": files}
    Path(path).write_text(json.dumps(payload, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


class _Progress:
    """One stderr line every 50 files (and at the end): counts so far."""

    def __init__(self, engine: str, total: int):
        self.engine, self.total, self.done, self.passed = engine, total, 0, 0
        self.started = time.monotonic()

    def __call__(self, outcome: FileOutcome) -> None:
        self.done += 1
        self.passed += outcome.status == PASS
        if self.done % 50 == 0 or self.done == self.total:
            _note(f"{self.engine}: {self.done}/{self.total} files, {self.passed} pass, "
                  f"{time.monotonic() - self.started:.0f} s")


def _note(message: str) -> None:
    print(message, file=sys.stderr, flush=True)

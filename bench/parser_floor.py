"""The floor of a cold grammar-path mask: what a mask costs once the parser's work is done.

A cold mask (a configuration met for the first time) pays for two things: the parser's work
(the Earley sets, configurations and transitions its walk asks for, built in Python) and the
walk itself (part 1's OR of precomputed masks, the coverage, the open tokens stepped through
the configurations' transitions; ``indexc_runtime.grammar.walker``).  Each case runs in one
fresh process, with the Llama-3 tokenizer bundled in the repository:

- **cold**: every instance walked on a fresh memo (the artifact's stored memo, format 7, not
  used: this is the live path's floor; ``bench/stored_memo.py`` measures what the stored memo
  serves; a format 8 grammar's language keys still serve the walk's own repeats, as live), each fill timed (the grammar bench's cold walk; MaskBench's walks, valid and invalid instances, each up to the first token its mask
  does not hold), the matcher advanced;
- **parser warm**: the same walks again on the same memo, where the cold walk computed a mask
  (``MaskWalker.computed``) that mask dropped before the fill (``MaskWalker.forget_mask``), the
  others served from the memo as they were: each set, configuration and transition the walk
  needs is known, so a computed mask pays its walk alone.

The second is what any speed-up of the parser could reach at best while the masks are walked
live: the issues' mask-time goals (issue 5: p50 <= 50 µs on every bundled grammar; issue 4:
p99 <= 200 µs over MaskBench's walks) are measured against it in ``BENCHMARKS.md``.  Kept
memos the second walk still benefits from, so the floor is if anything low: the ORs of
precomputed masks with their coverages, the loop regions' flags.

The last column counts the cold masks over 200 µs that were computed and whose rows are
byte-identical to a mask computed earlier in the same process (``repeat``): work a memo keyed
finer than the mask's content did again, the most a coarser exact key could serve at a
lookup's cost (``docs/grammar-path.md``, "Session 16").

    .venv/bin/python -m bench.parser_floor [--grammars c arithmetic] [--maskbench NAME ... | @LIST] [--json OUT]

``--maskbench`` takes MaskBench file names (in ``../shared/maskbench``) or paths; a file whose
schema takes the DFA path is reported as such (its masks are lookups).  Times are
``perf_counter`` microseconds; percentiles nearest-rank.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path
from typing import Iterator

REPO = Path(__file__).resolve().parents[1]
if __package__ in (None, ""):  # run as a script: make ``bench`` and ``tests`` importable
    sys.path.insert(0, str(REPO))

from bench.bench_grammar import CASES, GRAMMARS, TOKENIZER  # noqa: E402
from bench.engines.common import percentile_text  # noqa: E402
from bench.fresh_process import add_one_option, print_one, run_one  # noqa: E402

MASKBENCH = REPO.parent / "shared" / "maskbench"
SLOW_US = (200, 1000)  # the issues' lines: MaskBench p99 (issue 4), a grammar's p99 (issue 5)
TIMEOUT_S = 600


def main(argv: list[str]) -> int:
    return run_cases(argv, __doc__, "bench.parser_floor", measure, render_table, _summary)


def run_cases(argv: list[str], doc: str, module: str, measure_one, render, summary,
              default_grammars: list[str] | None = None) -> int:
    """The command line of this tool, ``bench/key_bounds.py`` and ``bench/stored_memo.py``: the
    cases (``--grammars``, every bundled grammar unless ``default_grammars`` says otherwise;
    ``--maskbench``), each measured in a fresh interpreter (``module``'s ``measure_one``), the
    table (``render``) and ``--json``."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--grammars", nargs="*", choices=sorted(CASES),
                        default=list(CASES) if default_grammars is None else default_grammars)
    parser.add_argument("--maskbench", nargs="*", default=[], metavar="NAME",
                        help="MaskBench file names, or @LIST: a file of them, one a line")
    parser.add_argument("--json", metavar="OUT", help="also write the rows as JSON")
    add_one_option(parser, ("KIND", "NAME"))
    args = parser.parse_args(argv)
    if args.one:
        return print_one(args.one, measure_one)
    cases = [("grammar", name) for name in args.grammars] + [("maskbench", name) for name in _names(args.maskbench)]
    rows = []
    for kind, name in cases:
        rows.append({"kind": kind, "name": name, **run_one(module, [kind, name], TIMEOUT_S)})
        print(f"{name}: {summary(rows[-1])}", file=sys.stderr, flush=True)
    print(render(rows))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


def _names(specs: list[str]) -> list[str]:
    """``--maskbench`` names, an ``@LIST`` read one a line (``#`` comments)."""
    names = []
    for spec in specs:
        if spec.startswith("@"):
            lines = Path(spec[1:]).read_text(encoding="utf-8").splitlines()
            names += [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]
        else:
            names.append(spec)
    return names


def measure(kind: str, name: str) -> dict:
    """Compile one case, then its cold and parser-warm walks (this process)."""
    found = compiled_case(kind, name)
    if isinstance(found, dict):
        return found
    index, documents, _ = found
    index.use_stored_memo = False  # the live path's floor: every mask computed (``bench.stored_memo`` measures the file's memo)
    cold, computed, repeat, seen = [], [], [], set()
    for ids in documents:
        cold += _walk(index, ids, record=computed, repeats=(repeat, seen))
    floor, replay = [], iter(computed)
    for ids in documents:
        floor += _walk(index, ids, replay=replay)
    return {"path": "cfg", "masks": len(cold), "computed": sum(computed), "cold_us": cold, "floor_us": floor,
            "repeat": repeat}


def compiled_case(kind: str, name: str):
    """A case compiled and loaded, with its documents' token ids and the compile's figures:
    ``(index, documents, extra)``, or ``{"path": ...}`` for a MaskBench schema that does not
    take the grammar path.  Also ``bench/key_bounds.py``'s and ``bench/stored_memo.py``'s cases."""
    import indexc_runtime
    from bench.bench_regex import resolve_eos_ids
    from bench.maskbench.worker import text_encoder

    encode, eos_ids = text_encoder(str(TOKENIZER)), resolve_eos_ids(str(TOKENIZER))
    if kind == "grammar":
        from bench.engines.grammar_engines import load_grammar_engine

        grammar_file, sample = CASES[name]
        engine = load_grammar_engine("indexc")
        tokenizer = engine.load_tokenizer(str(TOKENIZER), eos_ids)
        compiled = engine.compile_grammar(tokenizer, (GRAMMARS / grammar_file).read_text(encoding="utf-8"),
                                          grammar_file.split("/")[0])
        documents = [encode((GRAMMARS / "samples" / sample).read_text(encoding="utf-8"))]
    else:
        from bench.maskbench.dataset import load_file
        from bench.maskbench.schema_engines import load_schema_engine

        case = load_file(MASKBENCH / name)  # (a path stays itself)
        engine = load_schema_engine("indexc")
        tokenizer = engine.load_tokenizer(str(TOKENIZER), eos_ids)
        compiled = engine.compile_schema(tokenizer, case.schema_text, name)
        if compiled.extra.get("path") != "cfg":
            return {"path": compiled.extra.get("path")}
        documents = [encode(instance.text) for instance in case.instances]
    return indexc_runtime.load(str(compiled.handle)), documents, compiled.extra


def _walk(index, ids: list[int], *, record: list[bool] | None = None,
          replay: Iterator[bool] | None = None,
          repeats: tuple[list[bool], set[bytes]] | None = None) -> list[float]:
    """Fill (timed), check, advance along ``ids`` on a new matcher, up to a token the mask does
    not hold.  ``record``: append whether each mask was computed; ``replay``: whether each mask
    was computed in the recorded walk, read in order: such a mask is dropped before its fill;
    ``repeats`` (flags, digests seen): append whether each mask was computed and its row equals
    an earlier computed one's (after the timing: the digest is not timed)."""
    import numpy as np

    from indexc_runtime.grammar.matcher import shared_memo

    matcher = index.matcher()
    row = np.zeros((1, index.mask_words), dtype=np.int32)
    times = []
    for token in ids:
        walker = shared_memo(index, index.limits).current.walker  # (a compacted memo has another)
        if replay is not None and next(replay):
            walker.forget_mask(matcher.state)
        before = walker.computed
        started = time.perf_counter_ns()
        matcher.fill_bitmask(row, row=0)
        times.append((time.perf_counter_ns() - started) / 1000.0)
        computed = walker.computed != before
        if record is not None:
            record.append(computed)
        if repeats is not None:
            repeats[0].append(computed and _seen_before(row, repeats[1]))
        if not (int(row[0, token >> 5]) >> (token & 31)) & 1:
            break  # an invalid instance (or a valid one the documented policy rejects) ends here
        matcher.advance(token)
    return times


def _seen_before(row, seen: set[bytes]) -> bool:
    """Whether ``row``'s bytes are among those ``seen`` (then added to them)."""
    digest = hashlib.blake2b(row.tobytes(), digest_size=16).digest()
    found = digest in seen
    seen.add(digest)
    return found


COLUMNS = ["case", "masks", "cold p50 / p99 µs", "parser warm p50 / p99 µs",
           "over 200 µs: cold / warm", "over 1 ms: cold / warm", "cold over 200 µs repeating a mask"]


def render_table(rows: list[dict]) -> str:
    """One line per case, and the MaskBench files' masks pooled."""
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "|".join("---" for _ in COLUMNS) + "|"]
    pooled = {"cold_us": [], "floor_us": [], "repeat": []}
    for row in rows:
        if row["kind"] == "maskbench" and "cold_us" in row:
            for key in pooled:
                pooled[key] += row[key]
        lines.append("| " + " | ".join([row["name"], *_cells(row)]) + " |")
    if pooled["cold_us"]:
        files = sum(1 for row in rows if row["kind"] == "maskbench" and "cold_us" in row)
        lines.append("| " + " | ".join([f"**MaskBench, {files} grammar-path files**", *_cells(pooled)]) + " |")
    return "\n".join(lines)


def _cells(row: dict) -> list[str]:
    if "error" in row:
        return ["error: " + row["error"].replace("|", "\\|")[:120], "", "", "", "", ""]
    if "cold_us" not in row:
        return [f"{row['path']} path (lookups)", "", "", "", "", ""]
    cold, floor = row["cold_us"], row["floor_us"]
    over = [f"{sum(us > line for us in cold):,} / {sum(us > line for us in floor):,}" for line in SLOW_US]
    repeated = sum(us > SLOW_US[0] and again for us, again in zip(cold, row["repeat"]))
    return [f"{len(cold):,}", _p50_p99(cold), _p50_p99(floor), *over, f"{repeated:,}"]


def _p50_p99(values: list[float]) -> str:
    return f"{percentile_text(values, 50, 0)} / {percentile_text(values, 99, 0)}"


def _summary(row: dict) -> str:
    cells = _cells(row)
    return ", ".join(f"{name} {cell}" for name, cell in zip(COLUMNS[1:], cells) if cell)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

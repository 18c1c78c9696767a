"""Grammar benchmark (the Earley live path): indexc against llguidance and xgrammar, one run.

For every bundled grammar (``tests/data/grammars``) and every engine, one fresh process
(``--one ENGINE GRAMMAR``) loads the Llama-3 tokenizer (untimed), compiles the grammar (timed;
``bench/engines/grammar_engines.py`` says what each engine's compile is), measures load + first
mask (what a server does with the compiled form before it answers: indexc loads the artifact
file, xgrammar deserialises its JSON, llguidance, which has no serialized form, builds a
matcher), then walks the grammar's sample document, tokenized by the HF tokenizer without
special tokens, twice on the same compiled grammar:

- **cold**: the first walk (every parser row, lexer state and mask is new: the first request);
- **warm**: a second walk with a new matcher (the state a server is in for later requests of
  the same grammar: indexc's index-level parser memo, llguidance's lexer cache);
- **served** (indexc only, the one engine with an artifact file): a fresh process that did not
  compile loads the artifact and walks the document once (``--served``, started by the cell's
  process): a server's first request after start-up.  The cold walk above follows a compile in
  the same process, which has already run much of the runtime's code (the compiler's warm-up
  walks it) and numpy's; a served process runs it for the first time (session 26: C's slowest
  mask ~150-200 us slower there).

At each step the int32 bitmask row is filled and timed, the document's token must be in it, the
matcher advances (timed); at the end an EOS id must be allowed (``bench.engines.common.time_walk``):
"document accepted".  Percentiles are nearest-rank over the walk's masks.  "cold walk ms" is the
first request's whole constraint time, every cold fill and advance summed: it counts what a
percentile of masks does not, work done in an ``advance`` (indexc's stored memo is hashed at
the first one; the parser work a served mask skipped is done by the next one).

    .venv-bench/bin/python -m bench.bench_grammar [--grammars json c] [--engines indexc,llguidance] [--json OUT]

(``make bench-grammar``; the test venv runs it too, with "xgrammar: not installed").
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


REPO = Path(__file__).resolve().parents[1]
if __package__ in (None, ""):  # run as a script: make ``bench`` and ``tests`` importable
    sys.path.insert(0, str(REPO))

from bench.engines import unavailable_reason  # noqa: E402
from bench.engines.common import format_size, percentile_text  # noqa: E402
from bench.fresh_process import add_one_option, print_one, run_one  # noqa: E402

GRAMMARS = REPO / "tests" / "data" / "grammars"
TOKENIZER = REPO / "tests" / "data" / "tokenizers" / "llama3.json.zst"
CASES = {  # name: (grammar file, sample document)
    "json": ("gbnf/json.gbnf", "json.json"),
    "c": ("gbnf/c.gbnf", "c.c"),
    "sql": ("gbnf/vllm-sql.gbnf", "vllm-sql.sql"),
    "rfc": ("lark/rfc.lark", "rfc.xml"),
    "arithmetic": ("gbnf/arithmetic.gbnf", "arithmetic.txt"),
    "chess": ("gbnf/chess.gbnf", "chess.pgn"),
    # documents no compile-time warm-up was tuned on (written in session 21 after the sampled
    # warm-up's design): is what the samples show true of another document?
    "c-other": ("gbnf/c.gbnf", "c_other.c"),
    "arithmetic-other": ("gbnf/arithmetic.gbnf", "arithmetic_other.txt"),
    "json-other": ("gbnf/json.gbnf", "json_other.json"),
    # the other bundled grammars and their samples (session 26: the goals say every bundled grammar)
    "json-arr": ("gbnf/json_arr.gbnf", "json_arr.json"),
    "list": ("gbnf/list.gbnf", "list.txt"),
    "english": ("gbnf/english.gbnf", "english.txt"),
    "japanese": ("gbnf/japanese.gbnf", "japanese.txt"),
    "lark": ("lark/lark.lark", "lark.lark.txt"),
    # a Lark file written in session 30 after lark.lark's masks were measured on the one above
    "lark-other": ("lark/lark.lark", "lark_other.lark.txt"),
    # the same, compiled with ``--warm-up``: a Lark file of another grammar (written for the bench
    # in session 28, after the sample's slow contexts were known: docs/grammar-path.md says so)
    "lark-warm-up": ("lark/lark.lark", "lark.lark.txt"),
}
WARM_UPS = {"lark-warm-up": "warm_up/config.lark"}  # case -> a given warm-up text (indexc only)
ENGINES = ("indexc", "llguidance", "xgrammar")
TIMEOUT_S = 900


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--grammars", nargs="*", default=list(CASES), choices=sorted(CASES))
    parser.add_argument("--engines", default=",".join(ENGINES), help="comma-separated of " + ", ".join(ENGINES))
    parser.add_argument("--json", metavar="OUT", help="also write the rows as JSON")
    add_one_option(parser, ("ENGINE", "GRAMMAR"))
    parser.add_argument("--served", nargs=2, metavar=("ARTIFACT", "GRAMMAR"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        return print_one(args.one, measure)
    if args.served:
        return print_one(args.served, measure_served)
    engines, notes = [], {}
    for name in args.engines.split(","):
        reason = unavailable_reason(name)
        (notes.__setitem__(name, reason) if reason else engines.append(name))
    rows = []
    for grammar in args.grammars:
        for engine in engines:
            rows.append({"grammar": grammar, "engine": engine, **_run_one(engine, grammar)})
            print(_progress_line(rows[-1]), file=sys.stderr, flush=True)
    print(render_table(rows))
    print("".join(f"\n- {name}: {reason}" for name, reason in notes.items()))
    if args.json:
        Path(args.json).write_text(json.dumps({"notes": notes, "rows": rows}, indent=1))
    return 0


def _run_one(engine: str, grammar: str) -> dict:
    """``measure`` in a fresh interpreter (its JSON line), or the error that stopped it."""
    return run_one("bench.bench_grammar", [engine, grammar], TIMEOUT_S)


def measure(engine_name: str, grammar: str) -> dict:
    """Compile, load + first mask, cold and warm walks of one engine on one grammar (this process)."""
    import time

    from bench.engines.common import time_walk
    from bench.engines.grammar_engines import GrammarNotCompiled, load_grammar_engine

    grammar_file = CASES[grammar][0]
    text = (GRAMMARS / grammar_file).read_text(encoding="utf-8")
    if grammar in WARM_UPS and engine_name != "indexc":
        return {"not_compiled": "a compile-time warm-up text is indexc's"}
    warm_up = (GRAMMARS / WARM_UPS[grammar]).read_text(encoding="utf-8") if grammar in WARM_UPS else None
    ids, eos_ids = _document(grammar)
    engine = load_grammar_engine(engine_name)
    tokenizer = engine.load_tokenizer(str(TOKENIZER), eos_ids)
    started = time.perf_counter()
    try:
        compiled = engine.compile_grammar(tokenizer, text, grammar_file.split("/")[0],
                                          **({"warm_up": warm_up} if warm_up is not None else {}))
    except GrammarNotCompiled as exc:
        return {"not_compiled": str(exc)}
    compile_ms = compiled.compile_ms if compiled.compile_ms is not None else (time.perf_counter() - started) * 1e3
    load_first_ms = engine.load_first_mask(compiled)
    cold = time_walk(engine.start_walk(compiled), ids, eos_ids)
    warm = time_walk(engine.start_walk(compiled), ids, eos_ids)
    row = {"tokens": len(ids), "compile_ms": round(compile_ms, 2), "bytes": compiled.serialized_bytes,
           "load_first_mask_ms": round(load_first_ms, 3),
           "cold_mask_us": cold.mask_us, "warm_mask_us": warm.mask_us, "advance_us": cold.advance_us,
           "cold_walk_ms": round((sum(cold.mask_us) + sum(cold.advance_us)) / 1000, 3),
           "accepted": cold.accepted and warm.accepted, "failure": cold.failure or warm.failure}
    if engine_name == "indexc":  # the artifact outlives this process's walks: a server process loads it
        row["served"] = run_one("bench.bench_grammar", [str(compiled.handle), grammar], TIMEOUT_S, option="--served")
    return row


def measure_served(artifact: str, grammar: str) -> dict:
    """A server's first request: load an indexc artifact in a process that did not compile it (the
    tokenizer, imports and a collector pass before the clock, as a server's start-up), load +
    first mask timed, then the document walked once on that index (the engine's own walk)."""
    import time

    import numpy as np

    from bench.engines.common import Compiled, time_walk
    from bench.engines.grammar_engines import load_grammar_engine
    from bench.engines.indexc_engine import settle_collector

    ids, eos_ids = _document(grammar)
    engine, compiled = load_grammar_engine("indexc"), Compiled(Path(artifact))
    settle_collector()
    started = time.perf_counter()
    index = engine.loaded(compiled)  # the index the walk below uses: one load, as a server's
    index.matcher().fill_bitmask(np.zeros((1, index.mask_words), dtype=np.int32))
    load_first_ms = (time.perf_counter() - started) * 1000
    served = time_walk(engine.start_walk(compiled), ids, eos_ids)
    return {"load_first_mask_ms": round(load_first_ms, 3), "cold_mask_us": served.mask_us,
            "accepted": served.accepted, "failure": served.failure}


def _document(grammar: str) -> tuple[list[int], list[int]]:
    """The grammar's sample document as the HF tokenizer cuts it (no special tokens), and the EOS ids."""
    from tokenizers import Tokenizer

    from bench.bench_regex import resolve_eos_ids
    from tests.reference.tokenizer_source import tokenizer_json_text

    document = (GRAMMARS / "samples" / CASES[grammar][1]).read_text(encoding="utf-8")
    ids = Tokenizer.from_str(tokenizer_json_text(str(TOKENIZER))).encode(document, add_special_tokens=False).ids
    return ids, resolve_eos_ids(str(TOKENIZER))


COLUMNS = ["grammar", "engine", "tokens", "compile ms", "size", "load + first mask ms",
           "cold mask p50 / p99 µs", "served: load + first ms, mask p50 / p99 µs", "warm mask p50 / p99 µs",
           "advance p50 µs", "cold walk ms", "document accepted"]


def render_table(rows: list[dict]) -> str:
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "|".join("---" for _ in COLUMNS) + "|"]
    for row in rows:
        lines.append("| " + " | ".join([row["grammar"], row["engine"], *_cells(row)]) + " |")
    return "\n".join(lines)


def _cells(row: dict) -> list[str]:
    blank = [""] * (len(COLUMNS) - 3)
    if "error" in row:
        return ["error: " + row["error"].replace("|", "\\|")[:120], *blank]
    if "not_compiled" in row:
        return ["— (" + row["not_compiled"].replace("|", "\\|")[:120] + ")", *blank]
    cold, warm = row["cold_mask_us"], row["warm_mask_us"]
    accepted = "yes" if row["accepted"] else f"no: {row['failure']}"
    return [str(row["tokens"]), f"{row['compile_ms']:,.1f}", format_size(row["bytes"]),
            f"{row['load_first_mask_ms']:,.2f}", f"{_us(cold, 50)} / {_us(cold, 99)}", _served_cell(row.get("served")),
            f"{_us(warm, 50)} / {_us(warm, 99)}", _us(row["advance_us"], 50), f"{row['cold_walk_ms']:,.2f}", accepted]


def _served_cell(served: dict | None) -> str:
    """The served process's figures (indexc), or why there are none."""
    if served is None:
        return "—"
    if "error" in served:
        return "error: " + served["error"].replace("|", "\\|")[:60]
    cold = served["cold_mask_us"]
    accepted = "" if served["accepted"] else f" (not accepted: {served['failure']})"
    return f"{served['load_first_mask_ms']:,.2f}, {_us(cold, 50)} / {_us(cold, 99)}{accepted}"


def _us(values: list[float], q: int) -> str:
    return percentile_text(values, q, digits=0)


def _progress_line(row: dict) -> str:
    if "error" in row or "not_compiled" in row:
        return f"{row['grammar']} {row['engine']}: {row.get('error') or row.get('not_compiled')}"
    return (f"{row['grammar']} {row['engine']}: compile {row['compile_ms']:.0f} ms, cold p50 "
            f"{_us(row['cold_mask_us'], 50)} us, warm p50 {_us(row['warm_mask_us'], 50)} us, "
            f"accepted {row['accepted']}")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

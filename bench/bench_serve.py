"""Serving benchmark: batch mask throughput of indexc, llguidance and xgrammar, in one run.

A model server steps every running sequence at once: it fills one ``(batch, W)`` int32 bitmask
with the allowed tokens of each sequence, samples, and advances every sequence on its token.
This script measures that loop for batches of 1, 16, 64 and 256 sequences on a few regexes of
``data/regex_examples.json`` over the Llama-3 vocabulary, each engine through its batch API:

- indexc: ``indexc_runtime.fill_bitmasks(matchers, bitmask)`` (one Python thread);
- llguidance: ``llguidance.numpy.fill_next_token_bitmask_par(LLExecutor(threads), ...)``
  (its Rust thread pool), with ``no_forcing`` (the exact masks of DESIGN.md);
- xgrammar: ``BatchGrammarMatcher(threads).batch_fill_next_token_bitmask`` (its C++ threads),
  when installed (the bench venv: ``make bench`` makes it).

The walks are random and valid: each sequence follows its own random path of ``--steps``
tokens, drawn from indexc's masks among the ASCII-only tokens (xgrammar's ``\\d \\w \\s`` are
ASCII: DESIGN.md), ending early only where nothing but end-of-sequence is left.  Every engine
walks the same paths, and after each timed fill the script checks that every sequence's next
token is set in that engine's row (the engines did the same work; a "no" would be reported).
Timed: the fill calls only (``masks/s`` = batch x steps / their total time) and, apart, the
advances of the whole batch (``step/s``: fill + advance of every sequence).  Each cell runs
``--repeats`` times on the same compiled constraint and the same matchers, reset in between
(llguidance keeps the lexer states it built lazily across a reset, as in ``bench_regex``); the
first repetition (cold) is dropped and the best of the others is reported: the steady state
of a server, the figure least disturbed by other processes on a shared machine (medians of
single cells moved by up to 10x between runs here, under a load average of 10-12 on 2 cores).  Compiling and creating matchers are not timed.

    make bench-serve                                 # not a target: run it in the bench venv
    .venv-bench/bin/python -m bench.bench_serve      # all three engines
    .venv/bin/python -m bench.bench_serve            # the test venv: "xgrammar: not installed"
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # tests.reference (the llguidance tokenizer) when run as a script

import indexc_runtime  # noqa: E402
from indexc.pipeline import compile_regex, write  # noqa: E402
from indexc.trie.cache import load_vocabulary_and_trie  # noqa: E402

BUNDLED_LLAMA3 = REPO / "tests" / "data" / "tokenizers" / "llama3.json.zst"
DEFAULT_REGEXES = ("email", "ip", "uuid", "json_person")
LLAMA3_STOPS = (128001, 128009)


@dataclass
class Cell:
    engine: str
    regex: str
    batch: int
    masks_per_s: float
    steps_per_s: float
    all_tokens_allowed: bool


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokenizer", default=str(BUNDLED_LLAMA3))
    parser.add_argument("--eos", default=",".join(map(str, LLAMA3_STOPS)), help="stop ids, comma-separated")
    parser.add_argument("--regexes", default=",".join(DEFAULT_REGEXES), help="names in data/regex_examples.json")
    parser.add_argument("--batches", default="1,16,64,256")
    parser.add_argument("--steps", type=int, default=16, help="tokens per walk")
    parser.add_argument("--repeats", type=int, default=4, help="per cell; the first (cold) is dropped")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1,
                        help="threads of llguidance's executor and xgrammar's batch matcher")
    parser.add_argument("--engines", default="indexc,llguidance,xgrammar")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json-out", default=str(REPO / "bench" / "results" / "serve-llama3.json"))
    return parser.parse_args(argv)


def random_walks(index, vocab, batch: int, steps: int, rng: np.random.Generator) -> list[list[int]]:
    """``batch`` valid token paths of up to ``steps`` ASCII-only text tokens each."""
    ascii_only = np.array([bool(raw) and max(raw) < 128 for raw in vocab.token_bytes])
    walks = []
    for _ in range(batch):
        matcher, walk = index.matcher(), []
        for _ in range(steps):
            allowed = matcher.allowed_token_ids()
            choices = allowed[ascii_only[allowed]]
            if not choices.size:
                break
            walk.append(int(rng.choice(choices)))
            matcher.advance(walk[-1])
        walks.append(walk)
    return walks


class IndexcEngine:
    name = "indexc"

    def __init__(self, index):
        self.index = index

    def start(self, batch: int):
        if reuse(self, batch):
            return
        self.matchers = [self.index.matcher() for _ in range(batch)]
        self.bitmask = np.zeros((batch, self.index.mask_words), dtype=np.int32)

    def fill(self) -> None:
        indexc_runtime.fill_bitmasks(self.matchers, self.bitmask)

    def advance(self, row: int, token: int) -> None:
        self.matchers[row].advance(token)

    def rows(self) -> np.ndarray:
        return self.bitmask


class LlguidanceEngine:
    name = "llguidance"

    def __init__(self, tokenizer_path: str, eos: list[int], pattern: str, threads: int):
        import llguidance
        import llguidance.numpy

        from tests.reference.llguidance_oracle import LlgOracle, regex_grammar

        self.llguidance = llguidance
        self.tokenizer = LlgOracle(tokenizer_path, eos_ids=eos).tokenizer
        self.grammar = regex_grammar(pattern)
        self.executor = llguidance.LLExecutor(num_threads=threads)

    def start(self, batch: int):
        if reuse(self, batch):
            return
        self.matchers = [self.llguidance.LLMatcher(self.tokenizer, self.grammar, log_level=0) for _ in range(batch)]
        self.pairs = [(matcher, row) for row, matcher in enumerate(self.matchers)]
        self.bitmask = np.zeros((batch, (self.tokenizer.vocab_size + 31) // 32), dtype=np.int32)

    def fill(self) -> None:
        self.llguidance.numpy.fill_next_token_bitmask_par(self.executor, self.pairs, self.bitmask)

    def advance(self, row: int, token: int) -> None:
        if not self.matchers[row].consume_token(token):
            raise ValueError(self.matchers[row].get_error())

    def rows(self) -> np.ndarray:
        return self.bitmask


class XgrammarEngine:
    name = "xgrammar"

    def __init__(self, tokenizer_path: str, eos: list[int], pattern: str, threads: int):
        import xgrammar

        from bench.engines.xgrammar_engine import ENGINE

        self.xgrammar = xgrammar
        self.compiled = ENGINE.compile(ENGINE.load_tokenizer(tokenizer_path, eos), pattern).handle
        self.batcher = xgrammar.BatchGrammarMatcher(max_threads=threads)

    def start(self, batch: int):
        if reuse(self, batch):
            return
        self.matchers = [self.xgrammar.GrammarMatcher(self.compiled) for _ in range(batch)]
        self.bitmask = self.xgrammar.allocate_token_bitmask(batch, self.compiled.tokenizer_info.vocab_size)

    def fill(self) -> None:
        self.batcher.batch_fill_next_token_bitmask(self.matchers, self.bitmask)

    def advance(self, row: int, token: int) -> None:
        if not self.matchers[row].accept_token(token):
            raise ValueError("accept_token returned False")

    def rows(self) -> np.ndarray:
        return self.bitmask.numpy()


def reuse(engine, batch: int) -> bool:
    """Reset the engine's matchers if it has ``batch`` of them (what a server does between requests)."""
    matchers = getattr(engine, "matchers", [])
    if len(matchers) != batch:
        return False
    for matcher in matchers:
        matcher.reset()
    return True


def run_cell(engine, walks: list[list[int]], repeats: int) -> tuple[float, float, bool]:
    """(masks/s, steps/s, every walk token allowed) of one engine on one batch of walks."""
    batch, steps = len(walks), max(len(walk) for walk in walks)
    mask_rates, step_rates, allowed = [], [], True
    for _ in range(repeats):
        engine.start(batch)
        fill_s = advance_s = 0.0
        for step in range(steps):
            started = time.perf_counter()
            engine.fill()
            fill_s += time.perf_counter() - started
            rows = engine.rows()
            moves = [(row, walk[step]) for row, walk in enumerate(walks) if step < len(walk)]
            allowed &= all((int(rows[row, token >> 5]) >> (token & 31)) & 1 for row, token in moves)
            started = time.perf_counter()
            for row, token in moves:
                engine.advance(row, token)
            advance_s += time.perf_counter() - started
        mask_rates.append(batch * steps / fill_s)
        step_rates.append(batch * steps / (fill_s + advance_s))
    kept = slice(1, None) if repeats > 1 else slice(None)
    return max(mask_rates[kept]), max(step_rates[kept]), allowed


def make_engines(names: list[str], index, args, pattern: str, eos: list[int]) -> list:
    engines = []
    for name in names:
        try:
            if name == "indexc":
                engines.append(IndexcEngine(index))
            elif name == "llguidance":
                engines.append(LlguidanceEngine(args.tokenizer, eos, pattern, args.threads))
            elif name == "xgrammar":
                engines.append(XgrammarEngine(args.tokenizer, eos, pattern, args.threads))
        except ImportError:
            print(f"{name}: not installed", file=sys.stderr)
    return engines


def table(cells: list[Cell], engines: list[str], args) -> str:
    header = (f"Batch mask throughput, Llama-3 ({Path(args.tokenizer).name}), {args.steps}-token random valid walks, "
              f"best of {max(args.repeats - 1, 1)} warm runs; llguidance/xgrammar threads: {args.threads}; "
              "indexc: one Python thread.\nmasks/s (fill only) and, in brackets, steps/s (fill + advance of "
              "every sequence); \u2717 = a walk token missing from that engine's mask.\n\n")
    lines = ["| regex | batch | " + " | ".join(engines) + " |", "|---|---:|" + "---:|" * len(engines)]
    by_key = {(c.regex, c.batch, c.engine): c for c in cells}
    for regex, batch in dict.fromkeys((c.regex, c.batch) for c in cells):
        row = []
        for engine in engines:
            cell = by_key.get((regex, batch, engine))
            row.append("—" if cell is None else f"{cell.masks_per_s:,.0f} ({cell.steps_per_s:,.0f})"
                       + ("" if cell.all_tokens_allowed else " \u2717"))
        lines.append(f"| {regex} | {batch} | " + " | ".join(row) + " |")
    return header + "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    eos = [int(e) for e in args.eos.split(",")]
    examples = {r["name"]: r["regex"] for r in json.loads((REPO / "bench/data/regex_examples.json").read_text())["regexes"]}
    vocab, trie, _ = load_vocabulary_and_trie(args.tokenizer, eos_ids=eos)
    batches = [int(b) for b in args.batches.split(",")]
    wanted = args.engines.split(",")
    cells: list[Cell] = []
    with tempfile.TemporaryDirectory() as folder:
        for name in args.regexes.split(","):
            path = os.path.join(folder, f"{name}.idx")
            write(compile_regex(examples[name], vocab, trie), vocab, path)
            index = indexc_runtime.load(path, expected_fingerprint=vocab.fingerprint)
            engines = make_engines(wanted, index, args, examples[name], eos)
            for batch in batches:
                walks = random_walks(index, vocab, batch, args.steps, np.random.default_rng(args.seed + batch))
                for engine in engines:
                    masks, steps, allowed = run_cell(engine, walks, args.repeats)
                    cells.append(Cell(engine.name, name, batch, masks, steps, allowed))
                    print(f"{name:12s} batch {batch:4d} {engine.name:10s} {masks:12,.0f} masks/s "
                          f"{steps:12,.0f} steps/s{'' if allowed else '  TOKEN NOT ALLOWED'}", file=sys.stderr)
    present = [name for name in wanted if any(c.engine == name for c in cells)]
    print(table(cells, present, args))
    Path(args.json_out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json_out).write_text(json.dumps([c.__dict__ for c in cells], indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

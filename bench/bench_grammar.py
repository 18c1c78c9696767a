"""The grammar live path, measured: compile, size, load + first mask, mask time along documents.

For each bundled grammar and its sample document (``tests/data/grammars``), with the Llama-3
vocabulary: compile time (vocabulary and trie cached, untimed), artifact size, load + first
mask (in this process, after one untimed load of another file), then the per-token mask time
(``fill_bitmask``; wall clock, and the process's CPU time, which other jobs on a shared machine
inflate less) and advance time along the document's tokenization by the HF tokenizer, for
a fresh matcher ("cold": every parser row and transition is new) and for a second pass after
``reset()`` ("warm": the matcher's memo of Earley sets, configurations and masks is kept).
Every token of the document must be allowed (the script fails otherwise).

    .venv/bin/python bench/bench_grammar.py [--grammars json c sql rfc] [--tokens 400] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

GRAMMARS = ROOT / "tests" / "data" / "grammars"
TOKENIZER = ROOT / "tests" / "data" / "tokenizers" / "llama3.json.zst"
CASES = {
    "json": ("gbnf/json.gbnf", "json.json"),
    "c": ("gbnf/c.gbnf", "c.c"),
    "sql": ("gbnf/vllm-sql.gbnf", "vllm-sql.sql"),
    "rfc": ("lark/rfc.lark", "rfc.xml"),
    "arithmetic": ("gbnf/arithmetic.gbnf", "arithmetic.txt"),
    "chess": ("gbnf/chess.gbnf", "chess.pgn"),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--grammars", nargs="*", default=["json", "c", "sql", "rfc"], choices=sorted(CASES))
    parser.add_argument("--tokens", type=int, default=400, help="walk at most this many tokens of each document")
    parser.add_argument("--json", metavar="OUT", help="also write the rows as JSON")
    args = parser.parse_args()

    import indexc_runtime
    from tokenizers import Tokenizer

    from indexc.pipeline import write
    from indexc.pipeline.grammar import compile_grammar
    from indexc.trie.cache import load_vocabulary_and_trie
    from indexc.vocab import read_tokenizer_json_text

    vocab, trie = load_vocabulary_and_trie(str(TOKENIZER))[:2]
    tokenizer = Tokenizer.from_str(read_tokenizer_json_text(str(TOKENIZER)))
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for name in args.grammars:
            grammar_file, sample = CASES[name]
            text = (GRAMMARS / grammar_file).read_text()
            started = time.perf_counter()
            result = compile_grammar(text, vocab, trie, source=grammar_file)
            compile_ms = (time.perf_counter() - started) * 1e3
            path = Path(folder) / f"{name}.idx"
            summary = write(result, vocab, str(path))
            started = time.perf_counter()
            index = indexc_runtime.load(path)
            matcher = index.matcher()
            out = np.zeros((1, index.mask_words), dtype=np.int32)
            matcher.fill_bitmask(out)
            first_ms = (time.perf_counter() - started) * 1e3
            document = (GRAMMARS / "samples" / sample).read_text()
            ids = tokenizer.encode(document, add_special_tokens=False).ids[: args.tokens]
            cold = _walk(index.matcher(), ids, out, vocab)
            warm_matcher = index.matcher()
            _walk(warm_matcher, ids, out, vocab)
            warm_matcher.reset()
            warm = _walk(warm_matcher, ids, out, vocab)
            rows.append({
                "grammar": name, "tokens": len(ids), "compile_ms": round(compile_ms, 1),
                "compile_steps_ms": result.timings, "bytes": summary.bytes, "load_first_mask_ms": round(first_ms, 2),
                **{f"cold_{k}": v for k, v in cold.items()}, **{f"warm_{k}": v for k, v in warm.items()},
            })
            print(_line(rows[-1]), flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))


def _walk(matcher, ids: list[int], out: np.ndarray, vocab) -> dict:
    """Mask then advance on each token; per-token times in microseconds (p50, p99, max)."""
    masks, advances, cpu = [], [], []
    for position, token in enumerate(ids):
        c0 = time.process_time()
        t0 = time.perf_counter()
        matcher.fill_bitmask(out)
        t1 = time.perf_counter()
        cpu.append(time.process_time() - c0)
        if not (int(out[0, token >> 5]) >> (token & 31)) & 1:
            raise SystemExit(f"token {position} ({vocab.token_bytes[token]!r}) is not in the mask")
        matcher.advance(token)
        t2 = time.perf_counter()
        masks.append(t1 - t0)
        advances.append(t2 - t1)
    if not matcher.is_accepting():
        raise SystemExit("the document does not end where the grammar may end")
    m, a, c = np.array(masks) * 1e6, np.array(advances) * 1e6, np.array(cpu) * 1e6
    return {"mask_p50_us": round(float(np.percentile(m, 50)), 1), "mask_p99_us": round(float(np.percentile(m, 99)), 1),
            "mask_cpu_p50_us": round(float(np.percentile(c, 50)), 1), "mask_cpu_p99_us": round(float(np.percentile(c, 99)), 1),
            "mask_max_us": round(float(m.max()), 1), "advance_p50_us": round(float(np.percentile(a, 50)), 1)}


def _line(row: dict) -> str:
    return (f"{row['grammar']:<6} tokens {row['tokens']:>4}  compile {row['compile_ms']:>7.0f} ms  "
            f"{row['bytes'] / 1e6:5.1f} MB  load+first {row['load_first_mask_ms']:6.1f} ms  "
            f"mask cold p50/p99 {row['cold_mask_p50_us']:>7.0f}/{row['cold_mask_p99_us']:>7.0f} us "
            f"(cpu {row['cold_mask_cpu_p50_us']:>6.0f}/{row['cold_mask_cpu_p99_us']:>6.0f})  "
            f"warm {row['warm_mask_p50_us']:>6.0f}/{row['warm_mask_p99_us']:>7.0f} us  "
            f"advance p50 {row['cold_advance_p50_us']:.0f} us")


if __name__ == "__main__":
    main()

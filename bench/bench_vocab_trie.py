"""Benchmark: read a tokenizer's vocabulary and build its token trie; print a markdown table.

What it measures, per tokenizer (best and median of ``--repeat`` runs, wall clock):
- ``load``: ``indexc.vocab.load_vocabulary`` (file -> Vocabulary);
- ``trie``: ``indexc.trie.build_trie`` (Vocabulary -> TokenTrie), and inside it ``sort``, the
  lexicographic order + common prefixes of the token bytes (the largest single step);
- peak memory of the build and of load + build, as seen by ``tracemalloc`` (Python objects and
  numpy buffers; one separate traced run each, so tracing does not slow the timed runs);
- the trie's size: nodes, deepest node, bytes held by its arrays;
- ``load+trie from cache``: both through the content-keyed disk cache, warm (what every
  ``indexc compile`` after the first one with a tokenizer pays).

Usage::

    python bench/bench_vocab_trie.py                      # bundled Llama-3 (tests/data)
    python bench/bench_vocab_trie.py gpt2 qwen2 --repeat 9
    python bench/bench_vocab_trie.py /work/shared/tokenizers/llama3.json

A bare name means ``tests/data/tokenizers/<name>.json.zst``; anything else is a path.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from indexc.trie import build_trie
from indexc.trie.build import text_tokens
from indexc.trie.byte_order import lexicographic_order
from indexc.trie.cache import load_vocabulary_and_trie
from indexc.vocab import load_vocabulary

BUNDLED = Path(__file__).resolve().parents[1] / "tests" / "data" / "tokenizers"


@dataclass
class Timing:
    best_ms: float
    median_ms: float

    def __str__(self) -> str:
        return f"{self.best_ms:.1f} / {self.median_ms:.1f}"


@dataclass
class Row:
    name: str
    ids: int
    tokens: int
    nodes: int
    max_depth: int
    load: Timing
    trie: Timing
    sort: Timing
    cached: Timing
    trie_mb: float
    build_peak_mb: float
    load_build_peak_mb: float


def resolve(spec: str) -> Path:
    """A bare tokenizer name means the bundled file; anything else is a path."""
    if "/" not in spec and "." not in spec:
        return BUNDLED / f"{spec}.json.zst"
    return Path(spec)


def timed(run: Callable[[], object], repeat: int) -> Timing:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append((time.perf_counter() - start) * 1000.0)
    return Timing(min(times), statistics.median(times))


def traced_peak_mb(run: Callable[[], object]) -> float:
    tracemalloc.start()
    try:
        run()
        return tracemalloc.get_traced_memory()[1] / 1e6
    finally:
        tracemalloc.stop()


def measure(spec: str, repeat: int) -> Row:
    path = resolve(spec)
    vocab = load_vocabulary(path)
    trie = build_trie(vocab)
    _, buf, starts, lengths = text_tokens(vocab)
    return Row(
        name=path.name,
        ids=vocab.size,
        tokens=trie.n_tokens,
        nodes=trie.n_nodes,
        max_depth=trie.max_depth,
        load=timed(lambda: load_vocabulary(path), repeat),
        trie=timed(lambda: build_trie(vocab), repeat),
        sort=timed(lambda: lexicographic_order(buf, starts, lengths), repeat),
        cached=_cache_hit_timing(path, repeat),
        trie_mb=trie.nbytes / 1e6,
        build_peak_mb=traced_peak_mb(lambda: build_trie(vocab)),
        load_build_peak_mb=traced_peak_mb(lambda: build_trie(load_vocabulary(path))),
    )


def _cache_hit_timing(path: Path, repeat: int) -> Timing:
    """load + trie through the on-disk cache (``indexc.trie.cache``), warm, in a scratch folder."""
    with tempfile.TemporaryDirectory() as cache_dir:
        load_vocabulary_and_trie(path, cache_dir=cache_dir)
        return timed(lambda: load_vocabulary_and_trie(path, cache_dir=cache_dir), repeat)


def markdown(rows: list[Row], repeat: int) -> str:
    header = (
        "| tokenizer | ids | text tokens | nodes | max depth | load ms | trie ms | (sort ms) "
        "| load+trie from cache ms | trie arrays MB | peak MB trie | peak MB load+trie |"
    )
    lines = [header, "|" + "---|" * (header.count("|") - 1)]
    for r in rows:
        lines.append(
            f"| {r.name} | {r.ids:,} | {r.tokens:,} | {r.nodes:,} | {r.max_depth} | {r.load} | {r.trie} "
            f"| {r.sort} | {r.cached} | {r.trie_mb:.1f} | {r.build_peak_mb:.1f} | {r.load_build_peak_mb:.1f} |"
        )
    lines.append("")
    lines.append(f"Times are best / median of {repeat} runs; peaks are tracemalloc (Python + numpy heap).")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tokenizers", nargs="*", default=["llama3"], help="bundled names or tokenizer.json paths")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per measurement (default 5)")
    args = parser.parse_args()
    rows = [measure(spec, max(1, args.repeat)) for spec in args.tokenizers]
    print(markdown(rows, max(1, args.repeat)))


if __name__ == "__main__":
    main()

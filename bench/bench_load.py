"""Load + first mask: how long a server waits between opening an artifact and its first bitmask.

For each artifact, ``--runs`` fresh interpreters each import ``indexc_runtime`` and numpy
(untimed), then time ``indexc_runtime.load(path)`` + ``index.matcher()`` + the first
``fill_bitmask``; the table gives the median and the slowest run, and the file size.  The
runs go round-robin over the artifacts (run 1 of each, then run 2 of each...), so a change in
the load of this shared machine during the bench moves every artifact's figures alike.

    .venv/bin/python bench/bench_load.py artifacts/*.idx [--runs 7]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

CHILD = """
import json, sys, time
import numpy as np
import indexc_runtime
started = time.perf_counter()
index = indexc_runtime.load(sys.argv[1])
loaded = time.perf_counter()
matcher = index.matcher()
out = np.zeros((1, index.mask_words), dtype=np.int32)
matcher.fill_bitmask(out)
done = time.perf_counter()
print(json.dumps({"load_ms": (loaded - started) * 1e3, "first_mask_ms": (done - started) * 1e3}))
"""


def run_once(path: str) -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD, path], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def summarise(results: list[dict]) -> dict:
    total = [r["first_mask_ms"] for r in results]
    return {"load": statistics.median(r["load_ms"] for r in results),
            "median": statistics.median(total), "max": max(total)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("artifacts", nargs="+")
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args(argv)
    print(f"Fresh process per run, {args.runs} runs each; milliseconds.\n")
    print("| artifact | size | load (median) | load + matcher + first mask (median) | (slowest) |")
    print("|---|---|---|---|---|")
    results: dict[str, list[dict]] = {path: [] for path in args.artifacts}
    for _ in range(args.runs):
        for path in args.artifacts:
            results[path].append(run_once(path))
    for path in args.artifacts:
        m = summarise(results[path])
        size = Path(path).stat().st_size
        print(f"| {Path(path).name} | {size / 1024:,.1f} KB | {m['load']:.2f} | {m['median']:.2f} | {m['max']:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Ablation: what each mask-stage technique buys, by compiling with it switched off.

For every regex of ``bench/data/regex_examples.json`` (Llama-3 by default), the compile
(regex -> DFA -> masks, in process, vocabulary and trie loaded once, ``--jobs 1``) is timed
with the default techniques on, then with each one off in turn: byte classes, token classes
(walk the byte trie instead of the class trie), dead-byte pruning, literal muting, first-step
sharing, loop regions; and with slices, which are off by default (this table is why),
switched on.  ``--json-schemas`` runs the same on JSON Schema files (MaskBench files are
read for their ``schema``), where the walk-sharing techniques matter most.  Masks are
identical in every variant (tests/masks checks it); only time and the size of the structures
walked change.  Each cell is the best of ``--repeat`` runs, in milliseconds, with the number
of trie nodes the walk ran over in parentheses.

    .venv/bin/python -m bench.bench_ablation [--tokenizer F] [--regexes a,b] [--repeat 3]
    .venv/bin/python -m bench.bench_ablation --json-schemas tests/data/maskbench/Kubernetes*.json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if __package__ in (None, ""):
    sys.path.insert(0, str(REPO))

from indexc.masks import MaskOptions  # noqa: E402
from indexc.pipeline import CompileOptions, compile_regex  # noqa: E402
from indexc.pipeline.json_schema import compile_json_schema  # noqa: E402
from indexc.trie.cache import load_vocabulary_and_trie  # noqa: E402

VARIANTS = {
    "default": {},
    "no byte classes": {"byte_classes": False},
    "no token classes": {"token_classes": False},
    "no dead-byte pruning": {"dead_byte_pruning": False},
    "no literal muting": {"mute_literals": False},
    "no first-step sharing": {"first_step_sharing": False},
    "no loop regions": {"loop_regions": False},
    "slices on": {"slices": True},
}


def default_tokenizer() -> Path:
    shared = REPO.parent / "shared" / "tokenizers" / "llama3.json"
    return shared if shared.exists() else REPO / "tests" / "data" / "tokenizers" / "llama3.json.zst"


def best_compile(source: str, vocab, trie, switches: dict, repeat: int, kind: str = "regex") -> tuple[float, int]:
    options = CompileOptions(MaskOptions(jobs=1, **switches))
    compile_one = compile_regex if kind == "regex" else compile_json_schema
    best, nodes = float("inf"), 0
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = compile_one(source, vocab, trie, options)
        best = min(best, (time.perf_counter() - t0) * 1000.0)
        nodes = result.table.stats.get("class_trie_nodes", 0)
    return best, nodes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tokenizer", default=str(default_tokenizer()))
    parser.add_argument("--regexes", default="", help="comma-separated names (default: all)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json-schemas", nargs="*", default=None, metavar="FILE",
                        help="JSON Schema files (or MaskBench files) instead of the regexes")
    args = parser.parse_args(argv)
    vocab, trie, _ = load_vocabulary_and_trie(args.tokenizer)
    if args.json_schemas is not None:
        rows = [(Path(path).stem, _schema_text(path), "json_schema") for path in args.json_schemas]
    else:
        regexes = json.loads((REPO / "bench" / "data" / "regex_examples.json").read_text())["regexes"]
        wanted = set(filter(None, args.regexes.split(",")))
        rows = [(entry["name"], entry["regex"], "regex") for entry in regexes if not wanted or entry["name"] in wanted]
    print(f"Compile ms (walked trie nodes), {Path(args.tokenizer).name}, best of {args.repeat}, --jobs 1\n")
    print("| constraint | " + " | ".join(VARIANTS) + " |")
    print("|---|" + "---|" * len(VARIANTS))
    for name, source, kind in rows:
        best_compile(source, vocab, trie, {}, 1, kind)  # untimed: first-use costs (re's cache) go to no column
        cells = [best_compile(source, vocab, trie, switches, args.repeat, kind) for switches in VARIANTS.values()]
        print(f"| {name} | " + " | ".join(f"{ms:,.1f} ({nodes:,})" for ms, nodes in cells) + " |", flush=True)
    return 0


def _schema_text(path: str) -> str:
    """The schema of a JSON Schema file, or of a MaskBench file (its ``schema`` key)."""
    document = json.loads(Path(path).read_text(encoding="utf-8"))
    if isinstance(document, dict) and "schema" in document and "tests" in document:
        document = document["schema"]
    return json.dumps(document)


if __name__ == "__main__":
    sys.exit(main())

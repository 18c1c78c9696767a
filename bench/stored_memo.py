"""What the artifact's stored parser memo (format 7) saves a schema's first requests.

The compiler walks a synthetic instance of a grammar-path schema and stores the parser memo of
that walk (``indexc.artifact.warm_memo``, ``indexc_runtime.grammar.stored_memo``); every new
parser memo starts from it.  This tool measures it, each case in one fresh process (the floor's
cases and command line, ``bench/parser_floor.py``): the case is compiled once, then its
instances are walked cold on two loads of the same artifact,

- **without**: ``use_stored_memo`` off, the memo starts empty (the walks before format 7; a
  format 8 grammar's language keys still serve repeats its own walks compute);
- **with**: the memo matched against the stored one from its first `advance` on, as a server
  gets it (``ParserMemo.use_stored``, ``indexc_runtime.grammar.stored_match``: each set and
  configuration the walks make is looked up, inside the timed fills);

and what the first ``advance`` does first is timed on each (``use_stored``: the stored memo
hashed, once per loaded file, and the memo's content so far matched; without the memo it does
nothing; before session 21 it was the merge of the whole stored memo).  The warm-up's own
figures come from the artifact's header (``stats.warm_up``: tokens walked of those given,
configurations stored) and from the compile (``warm_up_ms``).  A grammar case (``--grammars``)
walks its sample document; its warm-up is its sampled sentences (session 21).

    .venv/bin/python -m bench.stored_memo [--maskbench NAME ... | @LIST] [--json OUT]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if __package__ in (None, ""):  # run as a script: make ``bench`` and ``tests`` importable
    sys.path.insert(0, str(REPO))

from bench.parser_floor import SLOW_US, _walk, compiled_case, run_cases  # noqa: E402


def main(argv: list[str]) -> int:
    return run_cases(argv, __doc__, "bench.stored_memo", measure, render_table, _summary, default_grammars=[])


def measure(kind: str, name: str) -> dict:
    """Compile one case, then its instances' cold walks without and with the stored memo."""
    import indexc_runtime
    from indexc_runtime.grammar.matcher import shared_memo

    found = compiled_case(kind, name)
    if isinstance(found, dict):
        return found
    index, documents, extra = found
    row = {"path": "cfg", **{f"warm_up_{k}": v for k, v in index.header["stats"].get("warm_up", {}).items()},
           "warm_up_ms": extra.get("warm_up_ms") or 0.0}
    for label, use in (("without", False), ("with", True)):
        loaded = indexc_runtime.load(index.source)  # a memo of its own
        loaded.use_stored_memo = use
        loaded.matcher()
        started = time.perf_counter()
        shared_memo(loaded, loaded.limits).current.use_stored()  # what the first advance does first
        row[f"{label}_use_stored_ms"] = (time.perf_counter() - started) * 1000
        row[f"{label}_us"] = [us for ids in documents for us in _walk(loaded, ids)]
    return row


COLUMNS = ["case", "masks", "without: over 200 µs / over 1 ms", "with: over 200 µs / over 1 ms",
           "first advance's use_stored ms (with)", "warm-up: tokens walked / given", "stored configurations", "warm-up ms"]
POOLED = ("without_us", "with_us", "with_use_stored_ms", "warm_up_walked", "warm_up_tokens",
          "warm_up_configurations", "warm_up_ms")


def render_table(rows: list[dict]) -> str:
    """One line per case and the cases pooled (``use_stored``: the largest)."""
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "|".join("---" for _ in COLUMNS) + "|"]
    pooled: dict = {key: [] if key.endswith("_us") else 0 for key in POOLED}
    files = 0
    for row in rows:
        lines.append("| " + " | ".join([row["name"], *_cells(row)]) + " |")
        if "with_us" in row:
            files += 1
            for key in POOLED:
                if key == "with_use_stored_ms":
                    pooled[key] = max(pooled[key], row[key])
                else:
                    pooled[key] += row.get(key, 0 if not key.endswith("_us") else [])
    if files:
        lines.append("| " + " | ".join([f"**{files} grammar-path cases pooled**", *_cells(pooled)]) + " |")
    return "\n".join(lines)


def _cells(row: dict) -> list[str]:
    blank = [""] * (len(COLUMNS) - 2)
    if "error" in row:
        return ["error: " + row["error"].replace("|", "\\|")[:120], *blank]
    if "with_us" not in row:
        return [f"{row['path']}", *blank]
    over = [" / ".join(f"{sum(us > line for us in row[key]):,}" for line in SLOW_US) for key in ("without_us", "with_us")]
    return [f"{len(row['with_us']):,}", *over, f"{row['with_use_stored_ms']:,.1f}",
            f"{row.get('warm_up_walked', 0):,} / {row.get('warm_up_tokens', 0):,}",
            f"{row.get('warm_up_configurations', 0):,}", f"{row.get('warm_up_ms', 0):,.0f}"]


def _summary(row: dict) -> str:
    return ", ".join(f"{name} {cell}" for name, cell in zip(COLUMNS[1:], _cells(row)) if cell)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

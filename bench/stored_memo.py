"""How much of a schema's first instance a warm-up walk made ahead of time could serve.

``bench/parser_floor.py`` finds most of a grammar-path schema's slow masks in its *first*
instance: the Earley sets, configurations and transitions are new there, and a later instance
of the same schema finds them in the memo (Github_hard o39444, session 18: 603 of its 609
cold masks over 200 µs in the first of three instances).  Sets are interned by content, and a
schema's instances mostly share their structure (properties in schema order, the same nesting),
so a walk of a *synthetic* instance made from the schema alone might build most of them before
any request.  This tool measures that, without storing anything: each case in one fresh
process (the floor's cases and command line),

- **cold**: the instances walked on a fresh memo, as the floor's cold walk;
- **warmed**: the same artifact loaded again (a memo of its own), a synthetic instance
  (``synthetic_instance``: every property in schema order, the first option of each choice,
  required properties only once a ``$ref`` recurs) tokenized and walked first, up to the first
  token its masks refuse, then the instances timed as before.

The difference is what an artifact that carried the warm-up's memo (its Earley sets,
configurations and transitions) could save the first request, at most for this generator;
the warm-up's own time is what the compile would pay.  Grammar cases have no schema and are
reported as such.

    .venv/bin/python -m bench.warmup_bound [--maskbench NAME ... | @LIST] [--json OUT]
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
if __package__ in (None, ""):  # run as a script: make ``bench`` and ``tests`` importable
    sys.path.insert(0, str(REPO))

from bench.parser_floor import MASKBENCH, SLOW_US, TOKENIZER, _walk, compiled_case, run_cases  # noqa: E402

MAX_SYNTHETIC_DEPTH = 64  # nested values before the generator stops descending (a guard, not a policy)


def main(argv: list[str]) -> int:
    return run_cases(argv, __doc__, "bench.warmup_bound", measure, render_table, _summary, default_grammars=[])


def synthetic_instance(schema: Any, root: Any = None, refs: tuple[str, ...] = (), minimal: bool = False,
                       depth: int = 0) -> Any:
    """A JSON value shaped like a typical instance of ``schema``: objects with every property in
    schema order (only the required ones once a ``$ref`` recurs, so recursion ends), arrays at
    their ``minItems`` (one item when not minimal), strings of ``minLength`` ``x``s, numbers at
    their minimum, the first option of ``anyOf``/``oneOf``/``enum``.  Local ``$ref``s only; a
    value the schema refuses just ends the warm-up walk early (it is a warm-up, not a test)."""
    root = schema if root is None else root
    if not isinstance(schema, dict) or depth > MAX_SYNTHETIC_DEPTH:
        return None if schema is False else "x"
    if "$ref" in schema:
        ref = schema["$ref"]
        target = _resolved(root, ref)
        rest = {k: v for k, v in schema.items() if k != "$ref"}
        merged = {**target, **rest} if isinstance(target, dict) else rest
        return synthetic_instance(merged, root, refs + (ref,), minimal or ref in refs, depth + 1)
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    for key in ("anyOf", "oneOf", "allOf"):
        if isinstance(schema.get(key), list) and schema[key]:
            parts = schema[key][:1] if key != "allOf" else schema[key]
            merged = {k: v for k, v in schema.items() if k != key}
            for part in parts:
                if isinstance(part, dict):
                    merged.update(part)
            return synthetic_instance(merged, root, refs, minimal, depth + 1)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object" or (kind is None and "properties" in schema):
        required = set(schema.get("required", ()))
        return {key: synthetic_instance(value, root, refs, minimal, depth + 1)
                for key, value in schema.get("properties", {}).items() if not minimal or key in required}
    if kind == "array":
        items = schema.get("prefixItems", schema.get("items", {}))
        if isinstance(items, list):
            return [synthetic_instance(item, root, refs, minimal, depth + 1) for item in items]
        count = schema.get("minItems", 0 if minimal else 1)
        return [synthetic_instance(items, root, refs, minimal, depth + 1) for _ in range(count)]
    return _scalar(kind, schema)


def _scalar(kind: str | None, schema: dict) -> Any:
    if kind == "integer":
        return int(schema.get("minimum", 1))
    if kind == "number":
        return schema.get("minimum", 1.5)
    if kind == "boolean":
        return True
    if kind == "null":
        return None
    return "x" * max(1, int(schema.get("minLength", 1)))


def _resolved(root: Any, ref: str) -> Any:
    """The node ``ref`` names, as the compiler resolves it (``SchemaDocument.resolve``), or
    ``{}`` where it cannot (the compile would have refused such a schema already)."""
    from indexc.jsonschema.document import SchemaDocument
    from indexc.jsonschema.errors import JsonSchemaError

    try:
        return SchemaDocument(root).resolve(ref, pointer="#")[1]
    except JsonSchemaError:
        return {}


def measure(kind: str, name: str) -> dict:
    """Compile one case, then its cold walks and, on a second load, its warmed ones (this process)."""
    import indexc_runtime
    from bench.maskbench.dataset import load_file
    from bench.maskbench.worker import text_encoder

    if kind != "maskbench":
        return {"path": "no schema"}
    found = compiled_case(kind, name)
    if isinstance(found, dict):
        return found
    index, documents = found
    cold = [us for ids in documents for us in _walk(index, ids)]
    warmed_index = indexc_runtime.load(index.source)  # a memo of its own
    schema = json.loads(load_file(MASKBENCH / name).schema_text)
    warm_up = text_encoder(str(TOKENIZER))(json.dumps(synthetic_instance(schema)))
    started = time.perf_counter()
    walked = _walk(warmed_index, warm_up)
    warm_up_ms = (time.perf_counter() - started) * 1000
    warmed = [us for ids in documents for us in _walk(warmed_index, ids)]
    return {"path": "cfg", "cold_us": cold, "warmed_us": warmed, "warm_up_tokens": len(warm_up),
            "warm_up_masks": len(walked), "warm_up_ms": warm_up_ms}


COLUMNS = ["case", "masks", "cold: over 200 µs / over 1 ms", "warmed: over 200 µs / over 1 ms",
           "warm-up: masks walked / tokens", "warm-up ms"]


def render_table(rows: list[dict]) -> str:
    """One line per case and the MaskBench files pooled."""
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "|".join("---" for _ in COLUMNS) + "|"]
    pooled = {"cold_us": [], "warmed_us": [], "warm_up_tokens": 0, "warm_up_masks": 0, "warm_up_ms": 0.0}
    files = 0
    for row in rows:
        lines.append("| " + " | ".join([row["name"], *_cells(row)]) + " |")
        if "cold_us" in row:
            files += 1
            for key in pooled:
                pooled[key] += row[key]
    if files:
        lines.append("| " + " | ".join([f"**MaskBench, {files} grammar-path files**", *_cells(pooled)]) + " |")
    return "\n".join(lines)


def _cells(row: dict) -> list[str]:
    if "error" in row:
        return ["error: " + row["error"].replace("|", "\\|")[:120], "", "", "", ""]
    if "cold_us" not in row:
        return [f"{row['path']}", "", "", "", ""]
    over = [" / ".join(f"{sum(us > line for us in row[key]):,}" for line in SLOW_US) for key in ("cold_us", "warmed_us")]
    return [f"{len(row['cold_us']):,}", *over, f"{row['warm_up_masks']:,} / {row['warm_up_tokens']:,}",
            f"{row['warm_up_ms']:,.0f}"]


def _summary(row: dict) -> str:
    return ", ".join(f"{name} {cell}" for name, cell in zip(COLUMNS[1:], _cells(row)) if cell)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

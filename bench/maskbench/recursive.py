"""The recursive schemas of a MaskBench directory: those with a ``$ref`` cycle after lowering.

A recursive schema is not a regular language, so indexc compiles it on the grammar path
(lexer tables ahead of time, Earley parser live) whatever its size: these are the files the
grammar benchmark's "recursive MaskBench schemas" row runs (``make bench-grammar``).  The
test is indexc's own lowering (``indexc.jsonschema.lower_schema``) and a depth-first search
of the definitions' references from the root, leaving out the bounded "any JSON value"
definition (the DFA path unrolls it to ``--any-depth``); a file the lowering refuses is not
listed.  Schemas that take the grammar path only for their size are left out: their language
is regular.

    .venv/bin/python -m bench.maskbench.recursive [DIRECTORY] > bench/data/recursive_maskbench.txt
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from indexc.errors import IndexcError
from indexc.jsonschema import JsonSchemaOptions, lower_schema
from indexc.jsonschema.expr import referenced_names

DEFAULT_DIR = Path(__file__).resolve().parents[3] / "shared" / "maskbench"


def is_recursive(schema_text: str) -> bool:
    """True if the lowered schema reaches a cycle of (unbounded) definitions from its root."""
    lowered = lower_schema(schema_text, JsonSchemaOptions())
    bounded = set(lowered.bounded)
    edges = {name: [m for m in referenced_names(expr) if m not in bounded] for name, expr in lowered.definitions.items()}
    done: set[str] = set()
    for root in (m for m in referenced_names(lowered.root) if m not in bounded):
        if root not in done and _reaches_cycle(root, edges, done):
            return True
    return False


def _reaches_cycle(root: str, edges: dict[str, list[str]], done: set[str]) -> bool:
    """Iterative depth-first search (schemas nest hundreds of definitions deep)."""
    on_path, stack = {root}, [(root, iter(edges.get(root, ())))]
    while stack:
        name, children = stack[-1]
        child = next(children, None)
        if child is None:
            stack.pop()
            on_path.discard(name)
            done.add(name)
        elif child in on_path:
            return True
        elif child not in done:
            on_path.add(child)
            stack.append((child, iter(edges.get(child, ()))))
    return False


def main(argv: list[str]) -> int:
    directory = Path(argv[0]) if argv else DEFAULT_DIR
    names = []
    for path in sorted(directory.glob("*.json")):
        try:
            schema = json.loads(path.read_text(encoding="utf-8"))["schema"]
            if is_recursive(json.dumps(schema)):
                names.append(path.name)
        except (IndexcError, ValueError, KeyError):
            continue
    print(f"# {len(names)} recursive schemas of {directory.name}/ (python -m bench.maskbench.recursive)")
    print("\n".join(names))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Pick the bundled MaskBench sample: every family and every keyword of issue 4, a few hundred KB.

Run from the repository root (it reads ``../shared``, so it is a bench script, not a test):

    python -m bench.maskbench.select_sample [--source ../shared/maskbench] [--budget-kb 100]

How it chooses.  Each dev file gets *tags*: its family, every schema keyword of the issue's list
that occurs anywhere in its schema (found by walking the schema, since ``meta.features`` omits
several, e.g. ``exclusiveMinimum`` beside ``minimum``), the shapes ``additionalProperties``
takes (``false``, ``true``, a schema), ``type`` given as a list, sibling keywords beside ``$ref`` /
``anyOf`` / ``allOf``, boolean subschemas, the ten required ``format`` values, and what the
instances' text exercises (string escapes, exponents, negative numbers, non-ASCII).
Tags are covered rarest first, each by the smallest file carrying it among those with at least
one valid and one invalid instance and at most ``--max-kb`` (else among all files), preferring
files llguidance passes (its recorded outcome): those are known to be within what a JSON
Schema engine can do exactly.  Two keywords of the issue never occur in the dev split
(``prefixItems``, ``x-guidance``): the files of ``handwritten/`` (MaskBench's format, family
``Indexc``, instances checked by llguidance in the differential test) supply them.  Then the budget is filled round-robin over the families with small
candidates in a seeded random order.  Files are written compactly (one line, key order kept),
and ``MANIFEST.tsv`` lists each file's tags and the tags no file had.
"""

from __future__ import annotations

import argparse
import json
import random
import re
from collections import defaultdict
from pathlib import Path
from typing import Iterator

from bench.maskbench.dataset import family_of, instance_text
from bench.maskbench.expected import LLGUIDANCE_REFERENCE
from bench.maskbench.pool import REPO

KEYWORDS = (
    "properties", "required", "additionalProperties", "patternProperties", "minProperties",
    "maxProperties", "items", "prefixItems", "minItems", "maxItems", "minLength", "maxLength",
    "pattern", "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
    "multipleOf", "enum", "const", "anyOf", "oneOf", "allOf", "$ref", "$defs", "definitions",
    "nullable", "x-guidance",
)
TYPES = ("object", "array", "string", "number", "integer", "boolean", "null")
FORMATS = ("date-time", "date", "time", "duration", "email", "hostname", "ipv4", "ipv6", "uuid", "uri")
SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
SCHEMA_VALUES = ("items", "additionalProperties", "not", "if", "then", "else", "contains",
                 "propertyNames", "additionalItems", "unevaluatedProperties")
TARGET = REPO / "tests" / "data" / "maskbench"
FILL_MAX_BYTES = 3000  # the fill takes small files: the CI test compiles every one with Llama-3
HANDWRITTEN = Path(__file__).resolve().parent / "handwritten"  # for keywords the dev split lacks


def schema_tags(schema: object) -> set[str]:
    """Tags of every subschema reachable from ``schema`` (see the module note)."""
    tags: set[str] = set()
    for sub in _subschemas(schema):
        if isinstance(sub, bool):
            tags.add("boolean-schema")
            continue
        tags.update(f"kw:{k}" for k in KEYWORDS if k in sub)
        kind = sub.get("type")
        for name in (kind if isinstance(kind, list) else [kind]):
            if name in TYPES:
                tags.add(f"type:{name}")
        if isinstance(kind, list):
            tags.add("type:list")
        if sub.get("format") in FORMATS:
            tags.add(f"format:{sub['format']}")
        extra = sub.get("additionalProperties", None)
        if extra is not None:
            tags.add("additionalProperties:" + ("schema" if isinstance(extra, dict) else str(extra).lower()))
        for combinator in ("$ref", "anyOf", "allOf"):
            if combinator in sub and set(sub) - {combinator, "description", "title", "$comment", "default", "examples"}:
                tags.add(f"siblings:{combinator}")
    return tags


def instance_tags(texts: list[str]) -> set[str]:
    tags = set()
    for text in texts:
        if re.search(r'\\[nrt"\\/bfu]', text):
            tags.add("text:escape")
        if re.search(r"\d[eE][+-]?\d", text):
            tags.add("text:exponent")
        if re.search(r"[:\[,]\s*-\d", text):
            tags.add("text:negative")
        if any(ord(c) > 127 for c in text):
            tags.add("text:non-ascii")
    return tags


def _subschemas(schema: object) -> Iterator[object]:
    stack = [schema]
    while stack:
        sub = stack.pop()
        yield sub
        if not isinstance(sub, dict):
            continue
        for key in SCHEMA_MAPS:
            if isinstance(sub.get(key), dict):
                stack.extend(sub[key].values())
        for key in SCHEMA_LISTS:
            if isinstance(sub.get(key), list):
                stack.extend(sub[key])
        for key in SCHEMA_VALUES:
            if isinstance(sub.get(key), (dict, bool)) and not (key == "additionalProperties" and sub[key] is True):
                stack.append(sub[key])
        if isinstance(sub.get("items"), list):
            stack.extend(sub["items"])


def candidates(sources: list[Path], llg_passes: set[str]) -> dict[str, dict]:
    """Every file of ``sources`` with its tags, size, whether it has both kinds of instance."""
    found = {}
    for path in sorted(p for source in sources for p in source.glob("*.json")):
        raw = json.loads(path.read_text(encoding="utf-8"))
        tests = raw.get("tests", [])
        tags = schema_tags(raw["schema"]) | instance_tags([instance_text(t["data"]) for t in tests])
        tags.add(f"family:{family_of(path.name)}")
        both = any(t["valid"] for t in tests) and not all(t["valid"] for t in tests)
        found[path.name] = {"raw": raw, "size": path.stat().st_size, "tags": tags, "both": both,
                            "llg": path.name in llg_passes or path.parent == HANDWRITTEN}
    return found


def choose(found: dict[str, dict], budget: int, max_bytes: int, seed: int) -> tuple[list[str], list[str]]:
    """(chosen names, tags no file carries).

    A tag is covered by a file llguidance passes if there is one, then preferably a small one
    with both kinds of instance (``format: ipv6`` occurs only in files over 13 KB), then the
    smallest.
    """
    small = {n for n, e in found.items() if e["both"] and e["size"] <= max_bytes}
    frequency: dict[str, int] = defaultdict(int)
    for name in small:
        for tag in found[name]["tags"]:
            frequency[tag] += 1
    wanted = [f"family:{f}" for f in sorted({family_of(n) for n in found})]
    wanted += [f"kw:{k}" for k in KEYWORDS] + [f"type:{t}" for t in TYPES] + [f"format:{f}" for f in FORMATS]
    wanted += ["type:list", "additionalProperties:false", "additionalProperties:true", "additionalProperties:schema",
               "siblings:$ref", "siblings:anyOf", "siblings:allOf", "boolean-schema",
               "text:escape", "text:exponent", "text:negative", "text:non-ascii"]
    chosen: list[str] = []
    covered: set[str] = set()
    for tag in sorted(wanted, key=lambda t: frequency.get(t, 0)):
        having = [n for n in found if tag in found[n]["tags"]]
        if tag in covered or not having:
            continue
        best = min(having, key=lambda n: (not found[n]["llg"], n not in small, not found[n]["both"], found[n]["size"]))
        chosen.append(best)
        covered |= found[best]["tags"]
    _fill(found, chosen, budget, seed)
    return sorted(chosen), [t for t in wanted if t not in covered]


def _fill(found: dict[str, dict], chosen: list[str], budget: int, seed: int) -> None:
    """Add small llguidance-passing files round-robin over families until the budget is spent."""
    rng = random.Random(seed)
    by_family: dict[str, list[str]] = defaultdict(list)
    for name in sorted(found):
        if found[name]["llg"] and found[name]["both"] and name not in chosen and found[name]["size"] <= FILL_MAX_BYTES:
            by_family[family_of(name)].append(name)
    for names in by_family.values():
        rng.shuffle(names)
    total = sum(_compact_size(found[n]["raw"]) for n in chosen)
    while any(by_family.values()):
        for names in by_family.values():
            if not names:
                continue
            name = names.pop()
            size = _compact_size(found[name]["raw"])
            if total + size > budget:
                return
            chosen.append(name)
            total += size


def _compact(raw: dict) -> str:
    return json.dumps(raw, ensure_ascii=False) + "\n"


def _compact_size(raw: dict) -> int:
    return len(_compact(raw).encode("utf-8"))


def write_sample(found: dict[str, dict], chosen: list[str], uncovered: list[str], target: Path) -> int:
    target.mkdir(parents=True, exist_ok=True)
    for old in target.glob("*.json"):
        old.unlink()
    total = 0
    for name in chosen:
        text = _compact(found[name]["raw"])
        (target / name).write_text(text, encoding="utf-8")
        total += len(text.encode("utf-8"))
    lines = [f"# tags no file carries: {', '.join(uncovered) or 'none'}", "# file\ttags"]
    lines += [f"{n}\t{' '.join(sorted(found[n]['tags']))}" for n in chosen]
    (target / "MANIFEST.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return total


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--source", default=str(REPO.parent / "shared" / "maskbench"))
    p.add_argument("--target", default=str(TARGET))
    p.add_argument("--budget-kb", type=int, default=100)
    p.add_argument("--max-kb", type=int, default=12, help="largest candidate file (as stored in the source)")
    p.add_argument("--seed", type=int, default=4)
    args = p.parse_args(argv)
    reference = json.loads(Path(LLGUIDANCE_REFERENCE).read_text(encoding="utf-8"))
    found = candidates([Path(args.source), HANDWRITTEN], {n for n, r in reference.items() if not r})
    chosen, uncovered = choose(found, args.budget_kb * 1024, args.max_kb * 1024, args.seed)
    total = write_sample(found, chosen, uncovered, Path(args.target))
    print(f"{len(chosen)} files, {total / 1024:.0f} KB in {args.target}; tags without a candidate: {uncovered or 'none'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

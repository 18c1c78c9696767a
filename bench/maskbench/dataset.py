"""MaskBench files: one JSON Schema with its valid and invalid instances, as the protocol reads it.

A MaskBench file is a JSON object ``{"description", "meta", "schema", "tests"}`` (see
``../shared/DATA.md``); each test is ``{"description", "valid", "data"}`` where ``data`` is the
instance itself, not its text.  The text every engine walks is MaskBench's own serialisation,
``json.dumps(data, ensure_ascii=False)``: no indentation, the default separators ``", "`` and
``": "`` (so one space after each comma and colon, which a flexible-whitespace schema must
allow), non-ASCII characters as themselves and object keys in the order of the file, which
MaskBench keeps in the schema's ``properties`` order.

The family of a file is the part of its name before ``---`` (``Github_easy``), or the name up to
its last ``_`` for ``BFCL_<kind>_<n>.json`` and ``JME_<n>.json``; 15 families in the dev split.
"""

from __future__ import annotations

import fnmatch
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator


@dataclass(frozen=True)
class Instance:
    """One test of a file: the JSON text to walk and whether the schema accepts it."""

    index: int
    valid: bool
    text: str


@dataclass(frozen=True)
class MaskBenchFile:
    name: str  # the file name, the key of the regression file
    schema: dict | bool
    instances: tuple[Instance, ...]
    features: tuple[str, ...]  # meta.features + meta.raw_features (what the sample covers)

    @property
    def family(self) -> str:
        return family_of(self.name)

    @property
    def schema_text(self) -> str:
        """The schema as JSON text, keys in file order (the order ``properties`` is kept in)."""
        return json.dumps(self.schema, ensure_ascii=False)


def family_of(name: str) -> str:
    if "---" in name:
        return name.split("---", 1)[0]
    return name.removesuffix(".json").rsplit("_", 1)[0]


def instance_text(data: object) -> str:
    """MaskBench's serialisation of an instance (see the module note)."""
    return json.dumps(data, ensure_ascii=False)


def load_file(path: str | Path) -> MaskBenchFile:
    path = Path(path)
    raw = json.loads(path.read_text(encoding="utf-8"))
    instances = tuple(Instance(i, bool(test["valid"]), instance_text(test["data"]))
                      for i, test in enumerate(raw.get("tests", [])))
    meta = raw.get("meta", {})
    features = tuple(meta.get("features", [])) + tuple(meta.get("raw_features", []))
    return MaskBenchFile(path.name, raw["schema"], instances, features)


def list_files(directory: str | Path, pattern: str = "*.json", limit: int | None = None) -> list[Path]:
    """The files of ``directory`` whose names match ``pattern``, sorted by name, at most ``limit``.

    Sorted (code-point order, as the dev split was cut) so that ``--limit N`` always picks the
    same files.
    """
    names = sorted(p for p in Path(directory).iterdir()
                   if p.suffix == ".json" and fnmatch.fnmatch(p.name, pattern))
    return names[:limit] if limit is not None else names


def iter_files(paths: list[Path]) -> Iterator[MaskBenchFile]:
    for path in paths:
        yield load_file(path)

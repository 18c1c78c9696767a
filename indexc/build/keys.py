"""The build key: one hash of everything that decides an artifact's bytes.

An artifact is rebuilt exactly when its key changes.  The key covers the constraint's text
(its SHA-256, after a nested schema is taken out of its file), the kind and the per-kind
settings (schema key and options, grammar syntax), the vocabulary fingerprint (a hash of every
token's bytes, kinds and eos ids: a tokenizer file re-saved with the same vocabulary keeps its
key), the compiler's identity, the artifact format version, and the compile options.  Options
that change only speed (``--jobs``) are not in it, and neither are paths: moving a project
does not rebuild it.  The key is the SHA-256 of a canonical JSON document (sorted keys, no
whitespace), so it is the same on every machine and Python version.

The compiler's identity is its version *and* a hash of the sources that shape an artifact of
the kind (``KIND_SOURCES``, ``limits.py``, the runtime's format module and the shipped Unicode
tables; a regex does not depend on the JSON Schema or grammar packages; a grammar-path artifact
also on the runtime's grammar package, whose matcher makes the warm-up walk the file stores).  The version number alone did
not change while the compiler did (a development tree, an editable install), and a build that
skips a pair because "0.1.0 is 0.1.0" ships a stale artifact.  Hashing ~150 files takes ~12 ms
once per process; any edit there, a comment included, rebuilds that kind's artifacts, which is
the safe side to err on.  The same identity lets a worker refuse a task from a driver that
runs other code (a Dask worker started before an upgrade).
"""

from __future__ import annotations

import functools
import hashlib
import json
from pathlib import Path

import indexc
import indexc_runtime.format
from indexc_runtime.format import FORMAT_VERSION

KEY_VERSION = "indexc-build-key-v2"
COMMON_SOURCES = ("vocab", "trie", "automaton", "masks", "artifact", "pipeline")
KIND_SOURCES = {"regex": COMMON_SOURCES, "json_schema": (*COMMON_SOURCES, "jsonschema", "grammar"),
                "grammar": (*COMMON_SOURCES, "grammar")}


@functools.cache
def compiler_identity(kind: str) -> str:
    """``<version>+<hash of the sources that shape a `kind` artifact>``: what built it, exactly."""
    root = Path(indexc.__file__).parent
    digest = hashlib.sha256()
    files = [file for package in KIND_SOURCES[kind] for file in sorted((root / package).rglob("*"))
             if file.suffix in (".py", ".npy") and "__pycache__" not in file.parts]
    files.append(root / "limits.py")  # the defaults (states, a grammar's warm-up samples)
    formats = [Path(indexc_runtime.format.__file__)]  # the section tables the writer follows
    if kind != "regex":  # the grammar runtime: its format, and the warm-up walk the writer makes with it
        formats += sorted((Path(indexc_runtime.format.__file__).parent / "grammar").glob("*.py"))
    for file in [*files, *formats]:
        digest.update(file.name.encode() + b"\x00" + file.read_bytes())
    return f"{indexc.__version__}+{digest.hexdigest()[:16]}"


def build_key(*, kind: str, constraint_sha256: str, fingerprint: str, options: dict, settings: dict) -> str:
    """Hex SHA-256 naming one (constraint, vocabulary, compiler, options) combination."""
    document = {
        "key_version": KEY_VERSION,
        "compiler": compiler_identity(kind),
        "format_version": FORMAT_VERSION,
        "kind": kind,
        "constraint_sha256": constraint_sha256,
        "fingerprint": fingerprint,
        "options": options,
        "settings": settings,
    }
    return hashlib.sha256(json.dumps(document, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def text_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()

"""The build key: one hash of everything that decides an artifact's bytes.

An artifact is rebuilt exactly when its key changes.  The key covers the constraint's text
(its SHA-256, after a nested schema is taken out of its file), the kind and the per-kind
settings (schema key and options, grammar syntax), the vocabulary fingerprint (a hash of every
token's bytes, kinds and eos ids: a tokenizer file re-saved with the same vocabulary keeps its
key), the compiler version, the artifact format version, and the compile options.  Options
that change only speed (``--jobs``) are not in it, and neither are paths: moving a project
does not rebuild it.  The key is the SHA-256 of a canonical JSON document (sorted keys, no
whitespace), so it is the same on every machine and Python version.
"""

from __future__ import annotations

import hashlib
import json

import indexc
from indexc_runtime.format import FORMAT_VERSION

KEY_VERSION = "indexc-build-key-v1"


def build_key(*, kind: str, constraint_sha256: str, fingerprint: str, options: dict, settings: dict) -> str:
    """Hex SHA-256 naming one (constraint, vocabulary, compiler, options) combination."""
    document = {
        "key_version": KEY_VERSION,
        "compiler_version": indexc.__version__,
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

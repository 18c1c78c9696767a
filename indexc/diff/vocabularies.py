"""Which vocabulary an artifact was built for: a tokenizer named on the command line, or its build's manifest.

An artifact records only its vocabulary's fingerprint, not the tokens: the diff needs the
vocabulary to print tokens readably, and to compare artifacts of different vocabularies by
token bytes.  A tokenizer given explicitly wins; otherwise an artifact written by
``indexc build`` is looked up in the ``manifest.json`` of its output directory (the artifact's
folder or the one above it: ``artifacts/<tokenizer>/<name>.idx``), whose entry names the
tokenizer file (relative to the manifest).  A vocabulary is used only if its fingerprint is
the artifact's; when none is found, tokens are shown by id and vocabularies that differ
cannot be compared (``DiffError`` says what to pass).
"""

from __future__ import annotations

import os
from pathlib import Path

from indexc.build.manifest import MANIFEST_NAME, ManifestError, read_manifest
from indexc.vocab.model import Vocabulary

_LOADED: dict[tuple, Vocabulary] = {}


def load_tokenizer(path: str, *, config: str | None = None, eos: tuple[int, ...] | None = None,
                   vocab_size: int | None = None) -> Vocabulary:
    """A tokenizer's vocabulary, through the cache and once per process."""
    key = (os.path.abspath(path), config, eos, vocab_size)
    if key not in _LOADED:
        from indexc.trie.cache import load_vocabulary_and_trie

        _LOADED[key] = load_vocabulary_and_trie(path, config_path=config, eos_ids=eos, vocab_size=vocab_size)[0]
    return _LOADED[key]


def vocabulary_from_manifest(artifact: str | os.PathLike, fingerprint: str) -> Vocabulary | None:
    """The vocabulary the build manifest beside ``artifact`` names for it, if it is still there and matches."""
    artifact = Path(artifact).resolve()
    for directory in (artifact.parent, artifact.parent.parent):
        if not (directory / MANIFEST_NAME).is_file():
            continue
        try:
            manifest = read_manifest(directory)
        except ManifestError:
            return None
        entry = manifest.artifacts.get(artifact.relative_to(directory).as_posix())
        return None if entry is None else vocabulary_of_entry(entry, directory, fingerprint)
    return None


def vocabulary_of_entry(entry: dict, directory: Path, fingerprint: str) -> Vocabulary | None:
    """The tokenizer of a manifest entry (paths relative to ``directory``), if readable and matching."""
    tokenizer = entry.get("tokenizer") or {}
    if not tokenizer.get("path") or tokenizer.get("fingerprint") != fingerprint:
        return None
    path = directory / tokenizer["path"]
    if not path.is_file():
        return None
    config = tokenizer.get("config")
    eos = tokenizer.get("eos")
    try:
        vocab = load_tokenizer(str(path), config=None if config is None else str(directory / config),
                               eos=None if eos is None else tuple(eos), vocab_size=tokenizer.get("vocab_size"))
    except Exception:  # a vocabulary only makes the report readable: without it, ids
        return None
    return vocab if vocab.fingerprint == fingerprint else None

"""The project file: which tokenizers, which constraints, with which options (``indexc.toml``).

A project is a TOML file (read with the standard library's ``tomllib``) with two parts::

    [tokenizers.llama3]                       # a name -> a tokenizer file (paths are relative
    path = "../tests/data/tokenizers/llama3.json.zst"   # to the project file's directory)
    # config = "...", eos = [128009], vocab_size = 128256   (optional overrides)

    [[constraints]]
    files = "*.regex"                         # a glob, a file, or a list of them
    # tokenizers = ["llama3"]                 # default: every tokenizer of the project
    # max_states = 5000, mute_literals = false, ...   (compile options)
    # kind = "json_schema", schema_key = "schema"     (a schema nested in a bigger JSON file)

The kind of a constraint comes from its file name (``KIND_OF_SUFFIX``) unless the entry says
``kind``.  When several entries match one file, the last one decides its options (a general
``*.regex`` entry first, a specific override after it).  A pattern that matches nothing is an
error when it names one file (a typo would otherwise build nothing and pass; a wildcard may
match nothing: ``*.lark`` before any grammar exists), and so is an unknown key: a misspelled
option must not silently compile with the default.  Artifact names are the file's path under
the project directory with the kind's suffix removed (``json/order.schema.json`` ->
``json/order``; a file outside that directory by its name alone, never with ``..``); two
constraints with one name are refused.
"""

from __future__ import annotations

import glob
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from indexc.errors import IndexcError

KIND_OF_SUFFIX = {".regex": "regex", ".schema.json": "json_schema", ".lark": "grammar", ".gbnf": "grammar"}
KINDS = ("regex", "json_schema", "grammar")
# Compile options an entry may set; each one changes the artifact, so each one is in the build key.
COMPILE_OPTION_KEYS = ("max_states", "byte_classes", "dead_byte_pruning", "token_classes", "mute_literals",
                       "min_literal_length", "slices", "min_slice_tokens")
ENTRY_KEYS = {"files", "tokenizers", "kind", "schema_key", "schema_options", "syntax", *COMPILE_OPTION_KEYS}
TOKENIZER_KEYS = {"path", "config", "eos", "vocab_size"}


class ProjectError(IndexcError):
    """The project file is unreadable or says something impossible (the message names the entry)."""


@dataclass(frozen=True)
class TokenizerSpec:
    """One named tokenizer: the arguments of ``load_vocabulary_and_trie`` (hashable: a memo key)."""

    name: str
    path: str
    config: str | None = None
    eos: tuple[int, ...] | None = None
    vocab_size: int | None = None


@dataclass(frozen=True)
class ConstraintSpec:
    """One constraint file and how to compile it."""

    file: str  # as found on disk (project directory joined with the glob's match)
    name: str  # artifact name: relative path without the kind suffix
    kind: str
    tokenizers: tuple[str, ...]
    options: dict = field(default_factory=dict, hash=False, compare=False)  # COMPILE_OPTION_KEYS subset
    schema_key: str | None = None
    schema_options: dict = field(default_factory=dict, hash=False, compare=False)
    syntax: str | None = None


@dataclass(frozen=True)
class Project:
    path: str
    tokenizers: dict[str, TokenizerSpec]
    constraints: tuple[ConstraintSpec, ...]


def read_project(path: str | os.PathLike) -> Project:
    """Parse and check a project file (``ProjectError`` on the first problem)."""
    source = os.fspath(path)
    try:
        with open(source, "rb") as handle:
            document = tomllib.load(handle)
    except OSError as exc:
        raise ProjectError(f"cannot read the project file: {exc.strerror or exc}", source=source) from None
    except tomllib.TOMLDecodeError as exc:
        raise ProjectError(f"not valid TOML: {exc}", source=source) from None
    unknown = set(document) - {"tokenizers", "constraints"}
    if unknown:
        raise ProjectError(f"unknown top-level key(s) {sorted(unknown)} (expected 'tokenizers', 'constraints')",
                           source=source)
    base = Path(source).parent
    tokenizers = _tokenizers(document.get("tokenizers"), base, source)
    constraints = _constraints(document.get("constraints"), base, tokenizers, source)
    return Project(source, tokenizers, constraints)


def _tokenizers(table: object, base: Path, source: str) -> dict[str, TokenizerSpec]:
    if not isinstance(table, dict) or not table:
        raise ProjectError("needs a [tokenizers.<name>] table with at least one tokenizer", source=source)
    specs = {}
    for name, entry in table.items():
        where = f"[tokenizers.{name}]"
        if isinstance(entry, str):
            entry = {"path": entry}
        if not isinstance(entry, dict) or "path" not in entry:
            raise ProjectError(f"{where} needs a 'path'", source=source)
        _refuse_unknown(entry, TOKENIZER_KEYS, where, source)
        eos = entry.get("eos")
        specs[name] = TokenizerSpec(
            name=name,
            path=os.path.normpath(base / entry["path"]),
            config=None if entry.get("config") is None else os.path.normpath(base / entry["config"]),
            eos=None if eos is None else tuple(int(i) for i in eos),
            vocab_size=entry.get("vocab_size"),
        )
    return specs


def _constraints(entries: object, base: Path, tokenizers: dict, source: str) -> tuple[ConstraintSpec, ...]:
    if not isinstance(entries, list) or not entries:
        raise ProjectError("needs at least one [[constraints]] entry", source=source)
    chosen: dict[str, ConstraintSpec] = {}  # file -> spec; a later entry replaces an earlier one
    for number, entry in enumerate(entries, 1):
        where = f"[[constraints]] entry {number}"
        if not isinstance(entry, dict) or "files" not in entry:
            raise ProjectError(f"{where} needs 'files' (a glob, a file, or a list of them)", source=source)
        _refuse_unknown(entry, ENTRY_KEYS, where, source)
        names = entry.get("tokenizers", list(tokenizers))
        missing = [name for name in names if name not in tokenizers]
        if missing:
            raise ProjectError(f"{where} names unknown tokenizer(s) {missing}", source=source)
        for file in _expand(entry["files"], base, where, source):
            chosen[file] = _constraint(file, entry, base, tuple(names), where, source)
    specs = tuple(sorted(chosen.values(), key=lambda spec: spec.name))
    _refuse_duplicate_names(specs, source)
    return specs


def _constraint(file: str, entry: dict, base: Path, tokenizers: tuple, where: str, source: str) -> ConstraintSpec:
    kind = entry.get("kind") or kind_of_file(file)
    if kind not in KINDS:
        raise ProjectError(f"{where}: cannot tell the kind of {file!r} (suffixes: {', '.join(KIND_OF_SUFFIX)}; "
                           f"or set kind = one of {list(KINDS)})", source=source)
    relative = os.path.relpath(file, base)
    if relative.startswith(os.pardir + os.sep):  # outside the project's folder: named by the file alone
        relative = os.path.basename(file)
    suffix = next((s for s in KIND_OF_SUFFIX if relative.endswith(s)), Path(relative).suffix)
    return ConstraintSpec(
        file=file,
        name=relative[: len(relative) - len(suffix)] if suffix else relative,
        kind=kind,
        tokenizers=tokenizers,
        options={key: entry[key] for key in COMPILE_OPTION_KEYS if key in entry},
        schema_key=entry.get("schema_key"),
        schema_options=dict(entry.get("schema_options", {})),
        syntax=entry.get("syntax"),
    )


def kind_of_file(file: str) -> str | None:
    """``regex``, ``json_schema`` or ``grammar`` from the file name; None when no suffix fits."""
    return next((kind for suffix, kind in KIND_OF_SUFFIX.items() if file.endswith(suffix)), None)


def _expand(files: object, base: Path, where: str, source: str) -> list[str]:
    patterns = [files] if isinstance(files, str) else files
    if not isinstance(patterns, list) or not all(isinstance(p, str) for p in patterns):
        raise ProjectError(f"{where}: 'files' must be a string or a list of strings", source=source)
    found = []
    for pattern in patterns:
        matches = [m for m in sorted(glob.glob(str(base / pattern), recursive=True)) if os.path.isfile(m)]
        if not matches and not glob.has_magic(pattern):
            raise ProjectError(f"{where}: no file {pattern!r}", source=source)
        found.extend(os.path.normpath(m) for m in matches)
    return found


def _refuse_unknown(entry: dict, allowed: set, where: str, source: str) -> None:
    unknown = set(entry) - allowed
    if unknown:
        raise ProjectError(f"{where}: unknown key(s) {sorted(unknown)} (allowed: {sorted(allowed)})", source=source)


def _refuse_duplicate_names(specs: tuple[ConstraintSpec, ...], source: str) -> None:
    for first, second in zip(specs, specs[1:]):
        if first.name == second.name:
            raise ProjectError(f"{first.file!r} and {second.file!r} would both be artifact {first.name!r}.idx",
                               source=source)

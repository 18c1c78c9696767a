"""The plan: every (constraint x tokenizer) pair of a project, with its artifact path and build key.

The plan is made in the driver, before any work is sent out: it reads each constraint file
once (text, or the schema nested under ``schema_key``), and takes each tokenizer's vocabulary
fingerprint from vocabularies the driver loaded once.  A task carries the constraint's *text*,
not its path, so a worker on another machine needs only the tokenizer file.  A constraint that
cannot be read becomes a task that already failed (``error``): it is reported with the others
and never stops the build.  Artifact paths are ``<tokenizer>/<name>.idx`` under the output
directory.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from indexc.build.keys import build_key, compiler_identity, text_sha256
from indexc.build.project import ConstraintSpec, Project, TokenizerSpec
from indexc.masks import MaskOptions
from indexc.pipeline.result import CompileOptions

ARTIFACT_SUFFIX = ".idx"


@dataclass(frozen=True)
class VocabularyFacts:
    """What the plan needs of a loaded tokenizer (the vocabulary itself stays in the driver)."""

    fingerprint: str
    size: int


@dataclass(frozen=True)
class PairTask:
    """One unit of work: compile ``constraint`` with ``tokenizer`` into ``artifact``."""

    artifact: str  # relative to the output directory, '/'-separated
    tokenizer: TokenizerSpec
    constraint: ConstraintSpec
    text: str  # what is compiled ("" when ``error`` is set)
    sha256: str  # of ``text``
    key: str
    fingerprint: str
    error: str | None = None  # the pair failed before compiling (unreadable file)
    compiler: str = ""  # the driver's compiler_identity(kind): a worker running other code refuses the task


def plan_build(project: Project, vocabularies: dict[str, VocabularyFacts]) -> list[PairTask]:
    """Every pair of ``project`` in a stable order (by artifact path)."""
    tasks = []
    for constraint in project.constraints:
        text, error = read_constraint_text(constraint)
        for name in constraint.tokenizers:
            tasks.append(_task(constraint, project.tokenizers[name], vocabularies[name], text, error))
    return sorted(tasks, key=lambda task: task.artifact)


def compile_options(constraint: ConstraintSpec, jobs: int = 1) -> CompileOptions:
    """The entry's options over the defaults (``jobs``: the worker processes inside one compile)."""
    values = dict(constraint.options)
    max_states = values.pop("max_states", None)
    masks = MaskOptions(**values, jobs=jobs)
    return CompileOptions(masks=masks) if max_states is None else CompileOptions(masks, int(max_states))


def read_constraint_text(constraint: ConstraintSpec) -> tuple[str, str | None]:
    """(text, None) or ("", why it cannot be read)."""
    try:
        with open(constraint.file, encoding="utf-8") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError) as exc:
        return "", f"cannot read the file: {exc}"
    if constraint.kind == "regex":
        return text.rstrip("\r\n"), None  # the trailing newline is not part of the pattern
    if constraint.schema_key is not None:
        return _nested_schema(text, constraint.schema_key)
    return text, None


def _nested_schema(text: str, key: str) -> tuple[str, str | None]:
    """The schema under ``key`` of a JSON document, as canonical JSON text (MaskBench's layout)."""
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        return "", f"not valid JSON: {exc}"
    if not isinstance(document, dict) or key not in document:
        return "", f"no key {key!r} at the top level of the JSON document"
    return json.dumps(document[key], sort_keys=True, ensure_ascii=False), None


def _task(constraint: ConstraintSpec, tokenizer: TokenizerSpec, facts: VocabularyFacts, text: str,
          error: str | None) -> PairTask:
    sha256 = text_sha256(text)
    settings = {"schema_key": constraint.schema_key, "schema_options": constraint.schema_options,
                "syntax": constraint.syntax}
    key = build_key(kind=constraint.kind, constraint_sha256=sha256, fingerprint=facts.fingerprint,
                    options=compile_options(constraint).as_dict(), settings=settings)
    artifact = f"{tokenizer.name}/{constraint.name}{ARTIFACT_SUFFIX}".replace("\\", "/")
    return PairTask(artifact, tokenizer, constraint, text, sha256, key, facts.fingerprint, error,
                    compiler_identity(constraint.kind))

"""``run_build``: project file -> artifacts + manifest, incrementally, in parallel, failure by failure.

The driver's steps, in order:

1. read the project, load each tokenizer once (through the vocabulary+trie cache) for its
   fingerprint; a tokenizer that cannot be loaded fails its pairs, not the build;
2. plan every (constraint x tokenizer) pair with its build key;
3. keep the pairs whose key and file match the manifest (``cached``: no compile work at all),
   and the pairs the compiler rejected last time with the same key (still ``failed``, not
   compiled again: the same inputs would be rejected the same way);
4. run the rest on the chosen backend and write each artifact (atomically, by the driver) as
   it arrives, recording it in the manifest;
5. report the manifest's artifacts that the project no longer produces (``removed``) and,
   with ``prune``, delete them;
6. save the manifest (only if it changed) with the failures of this build.

A failed pair keeps its previous artifact and manifest entry (which still describe that file
truthfully: the key does not match, so the next build tries again) and makes the exit code 1.
"""

from __future__ import annotations

import hashlib
import os
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from indexc.artifact.atomic import write_atomically
from indexc.build.backends import effective_jobs, run_tasks
from indexc.build.manifest import Manifest, read_manifest
from indexc.build.plan import PairTask, VocabularyFacts, compile_options, plan_build
from indexc.build.progress import ProgressBar
from indexc.build.project import Project, TokenizerSpec, read_project
from indexc.build.worker import PairOutcome, vocabulary_and_trie
from indexc.errors import IndexcError

COMPILED, CACHED, FAILED = "compiled", "cached", "failed"


@dataclass
class PairRecord:
    """What the build did with one pair."""

    artifact: str
    file: str
    tokenizer: str
    status: str  # COMPILED, CACHED or FAILED
    reason: str | None = None
    compile_ms: float = 0.0
    wall_ms: float = 0.0
    bytes: int = 0
    path_taken: str | None = None
    key: str = ""
    repeatable: bool = False  # a rejection by the compiler (not retried while the key stays)
    known: bool = False  # failed in the last build with the same key: not compiled again


@dataclass
class BuildReport:
    output: str
    records: list[PairRecord]
    removed: list[str]  # artifacts in the manifest that the project no longer produces
    pruned: bool  # ``removed`` were deleted
    seconds: float
    jobs: int
    backend: str
    manifest_written: bool = False
    tokenizer_ms: dict[str, float] = field(default_factory=dict)

    def with_status(self, status: str) -> list[PairRecord]:
        return [record for record in self.records if record.status == status]

    @property
    def exit_code(self) -> int:
        return 1 if self.with_status(FAILED) else 0


def run_build(project_path: str | os.PathLike, output: str | os.PathLike, *, jobs: int = 0, prune: bool = False,
              backend: str = "local", scheduler: str | None = None, progress: bool = False) -> BuildReport:
    """Build every pair of the project into ``output``; see the module docstring for the steps."""
    start = time.perf_counter()
    project = read_project(project_path)
    out = Path(output)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise IndexcError(f"cannot create the output directory: {exc.strerror or exc}", source=str(out)) from None
    facts, load_errors, tokenizer_ms = _load_tokenizers(project)
    tasks = [_with_load_error(task, load_errors) for task in plan_build(project, facts)]
    manifest = read_manifest(out, missing_ok=True)
    records, todo = [], []
    for task in tasks:
        if manifest.is_current(task.artifact, task.key):
            records.append(_cached_record(task, manifest))
        elif (failure := manifest.known_failure(task.artifact, task.key)) is not None:
            records.append(_known_failure_record(task, failure))
        else:
            todo.append(task)
    records += _compile_all(todo, manifest, jobs=jobs, backend=backend, scheduler=scheduler, progress=progress)
    removed = sorted(set(manifest.artifacts) - {task.artifact for task in tasks})
    if prune:
        _prune(manifest, removed)
    manifest.project = os.path.relpath(project.path, out)
    manifest.failures = [_failure_entry(record, out) for record in records if record.status == FAILED]
    written = manifest.save()
    records.sort(key=lambda record: record.artifact)
    return BuildReport(str(out), records, removed, prune, time.perf_counter() - start, effective_jobs(jobs),
                       backend, written, tokenizer_ms)


def _load_tokenizers(project: Project) -> tuple[dict, dict, dict]:
    """Fingerprints of the tokenizers the constraints use; load errors by name; load times."""
    used = {name for constraint in project.constraints for name in constraint.tokenizers}
    facts, errors, times = {}, {}, {}
    for name in sorted(used):
        spec = project.tokenizers[name]
        t0 = time.perf_counter()
        try:
            vocab, _ = vocabulary_and_trie(spec)
        except IndexcError as exc:
            errors[name] = f"tokenizer {name!r}: {exc}"
            facts[name] = VocabularyFacts("", 0)
            continue
        facts[name] = VocabularyFacts(vocab.fingerprint, vocab.size)
        times[name] = round((time.perf_counter() - t0) * 1000.0, 3)
    return facts, errors, times


def _with_load_error(task: PairTask, load_errors: dict) -> PairTask:
    error = load_errors.get(task.tokenizer.name)
    if error is None or task.error is not None:
        return task
    return replace(task, error=error)


def _compile_all(todo: list[PairTask], manifest: Manifest, *, jobs: int, backend: str, scheduler: str | None,
                 progress: bool) -> list[PairRecord]:
    """Compile ``todo``; a pool that breaks (a worker killed: out of memory, a signal) fails the unfinished pairs.

    The pairs already finished keep their artifacts and manifest entries, and the next build
    compiles only what is left.  An interrupt (Ctrl-C) saves the manifest of what was written.
    """
    by_artifact = {task.artifact: task for task in todo}
    bar = ProgressBar(len(todo), enabled=None if progress else False)
    records: list[PairRecord] = []
    try:
        for outcome in run_tasks(todo, jobs=jobs, backend=backend, scheduler=scheduler):
            record = _store(outcome, by_artifact.pop(outcome.artifact), manifest)
            records.append(record)
            bar.advance(failed=record.status == FAILED)
    except IndexcError:
        raise  # the backend could not start (no Dask, no scheduler): nothing ran
    except Exception as exc:
        reason = f"not compiled: the worker pool broke ({type(exc).__name__}: {exc})"
        records += [PairRecord(task.artifact, task.constraint.file, task.tokenizer.name, FAILED, reason)
                    for task in by_artifact.values()]
    except KeyboardInterrupt:
        manifest.save()
        raise
    finally:
        bar.close()
    return records


def _store(outcome: PairOutcome, task: PairTask, manifest: Manifest) -> PairRecord:
    """Write a compiled pair's file and manifest entry; a write error fails the pair."""
    record = PairRecord(task.artifact, task.constraint.file, task.tokenizer.name, FAILED, outcome.reason,
                        outcome.compile_ms, outcome.wall_ms, key=task.key, repeatable=outcome.repeatable)
    if not outcome.ok:
        return record
    path = manifest.directory / task.artifact
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(path, lambda handle: handle.write(outcome.data))
    except (IndexcError, OSError) as exc:
        record.reason = f"cannot write the artifact: {exc}"
        return record
    manifest.artifacts[task.artifact] = _manifest_entry(task, outcome, manifest.directory)
    manifest.artifacts[task.artifact]["mtime_ns"] = path.stat().st_mtime_ns
    record.status, record.bytes, record.path_taken = COMPILED, len(outcome.data), outcome.path_taken
    return record


def _manifest_entry(task: PairTask, outcome: PairOutcome, out: Path) -> dict:
    size, sha256 = len(outcome.data), hashlib.sha256(outcome.data).hexdigest()
    return {
        "key": task.key,
        "compiler": task.compiler,
        "tokenizer": _tokenizer_entry(task.tokenizer, task.fingerprint, out),
        "constraint": {"file": os.path.relpath(task.constraint.file, out), "kind": task.constraint.kind,
                       "sha256": task.sha256, "schema_key": task.constraint.schema_key},
        "options": compile_options(task.constraint).as_dict(),
        "path_taken": outcome.path_taken,
        "bytes": size,
        "sha256": sha256,
        "stats": outcome.stats,
        "compile_ms": outcome.compile_ms,
        "timings": outcome.timings,
    }


def _tokenizer_entry(spec: TokenizerSpec, fingerprint: str, out: Path) -> dict:
    return {"name": spec.name, "path": os.path.relpath(spec.path, out),
            "config": None if spec.config is None else os.path.relpath(spec.config, out),
            "eos": None if spec.eos is None else list(spec.eos), "vocab_size": spec.vocab_size,
            "fingerprint": fingerprint}


def _cached_record(task: PairTask, manifest: Manifest) -> PairRecord:
    entry = manifest.artifacts[task.artifact]
    return PairRecord(task.artifact, task.constraint.file, task.tokenizer.name, CACHED,
                      compile_ms=entry.get("compile_ms", 0.0), bytes=entry.get("bytes", 0),
                      path_taken=entry.get("path_taken"))


def _known_failure_record(task: PairTask, failure: dict) -> PairRecord:
    return PairRecord(task.artifact, task.constraint.file, task.tokenizer.name, FAILED, failure.get("reason"),
                      key=task.key, repeatable=True, known=True)


def _prune(manifest: Manifest, removed: list[str]) -> None:
    for artifact in removed:
        path = manifest.directory / artifact
        path.unlink(missing_ok=True)
        _remove_empty_parents(path.parent, manifest.directory)
        del manifest.artifacts[artifact]


def _remove_empty_parents(directory: Path, root: Path) -> None:
    while directory != root and directory.is_dir() and not any(directory.iterdir()):
        directory.rmdir()
        directory = directory.parent


def _failure_entry(record: PairRecord, out: Path) -> dict:
    return {"artifact": record.artifact, "file": os.path.relpath(record.file, out), "tokenizer": record.tokenizer,
            "reason": record.reason, "key": record.key, "repeatable": record.repeatable}

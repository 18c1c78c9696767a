"""What runs on a worker: one pair -> the artifact's bytes and facts, or the reason it failed.

A worker (a joblib process, a Dask worker thread or process, or the driver itself) loads each
tokenizer once per process through the vocabulary+trie cache (``_VOCABULARIES``; ~40 ms a hit
for Llama-3), from its path or from the shipped bytes (``shipping``), and keeps it for every
later pair (the driver, which loaded every tokenizer to plan, reuses its own).  The artifact is
written by the pipeline's own writer (which reads the file back with the runtime's full
verification) into a private temporary directory, and its *bytes* are returned: the driver
alone writes into the output directory, so a Dask worker needs no shared file system for the
output, a failed or killed worker leaves nothing behind, and the manifest never names a file
that is not complete.
Every exception a pair raises becomes a failed outcome (input errors with their message,
anything else as "internal error"), so one bad constraint never stops the others.
"""

from __future__ import annotations

import tempfile
import threading
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

from indexc.build.keys import compiler_identity
from indexc.build.kinds import KindUnavailable, compile_text
from indexc.build.plan import PairTask, compile_options
from indexc.build.project import TokenizerSpec
from indexc.build.shipping import TokenizerFiles
from indexc.errors import IndexcError

_VOCABULARIES: dict[TokenizerSpec, tuple] = {}
_LOCK = threading.Lock()  # Dask workers may be threads: load a tokenizer once, not once per thread


@dataclass
class PairOutcome:
    artifact: str
    ok: bool
    reason: str | None = None
    data: bytes = b""  # the artifact file (empty on failure)
    path_taken: str | None = None
    compile_ms: float = 0.0  # the pipeline's own stages (vocabulary loading excluded)
    wall_ms: float = 0.0  # the whole task on the worker, loading included
    stats: dict = field(default_factory=dict)
    timings: dict = field(default_factory=dict)
    repeatable: bool = False  # the compiler rejected the input: the same inputs fail the same way


class InputRejected(Exception):
    """The compiler refused the constraint itself (as opposed to the environment failing)."""


def vocabulary_and_trie(spec: TokenizerSpec, files: TokenizerFiles | None = None):
    """(Vocabulary, TokenTrie) of ``spec``, loaded at most once per process (from ``files`` when given)."""
    with _LOCK:
        cached = _VOCABULARIES.get(spec)
        if cached is None:
            cached = _VOCABULARIES[spec] = _load(spec, files)
    return cached


def _load(spec: TokenizerSpec, files: TokenizerFiles | None):
    from indexc.allocator import reuse_freed_memory
    from indexc.pipeline.collector import freeze_survivors
    from indexc.trie.cache import load_vocabulary_and_trie

    reuse_freed_memory()  # a worker process compiles many pairs: freed pages are reused (``indexc.allocator``)

    def load(path: str, config: str | None):
        vocab, trie, _ = load_vocabulary_and_trie(path, config_path=config, eos_ids=spec.eos,
                                                  vocab_size=spec.vocab_size)
        freeze_survivors()  # the vocabulary outlives every compile: out of the collector's reach
        return vocab, trie

    return load(spec.path, spec.config) if files is None else load(*files.materialize())


def compile_pair(task: PairTask, jobs: int = 1, files: TokenizerFiles | None = None) -> PairOutcome:
    """Compile one pair; never raises for a problem with the pair itself.

    ``files``: the tokenizer's bytes, for a worker that cannot read ``task.tokenizer.path``.
    """
    start = time.perf_counter()
    if task.error is not None:
        return PairOutcome(task.artifact, ok=False, reason=task.error)
    try:
        outcome = _compile(task, jobs, files)
    except InputRejected as exc:
        outcome = PairOutcome(task.artifact, ok=False, reason=str(exc), repeatable=True)
    except IndexcError as exc:
        outcome = PairOutcome(task.artifact, ok=False, reason=str(exc))
    except Exception as exc:  # a compiler bug must not cost the other pairs their artifacts
        where = traceback.extract_tb(exc.__traceback__)[-1]
        outcome = PairOutcome(task.artifact, ok=False, reason=f"internal error: {type(exc).__name__}: {exc} "
                                                              f"({Path(where.filename).name}:{where.lineno})")
    outcome.wall_ms = round((time.perf_counter() - start) * 1000.0, 3)
    return outcome


def _compile(task: PairTask, jobs: int, files: TokenizerFiles | None) -> PairOutcome:
    from indexc.pipeline import write

    own = compiler_identity(task.constraint.kind)
    if task.compiler != own:
        raise IndexcError(f"this worker runs compiler {own}, the build {task.compiler}: "
                          "install the same indexc everywhere and restart the workers")
    vocab, trie = vocabulary_and_trie(task.tokenizer, files)
    if vocab.fingerprint != task.fingerprint:
        raise IndexcError(f"the tokenizer file changed during the build (fingerprint {vocab.fingerprint[:12]} "
                          f"on the worker, {task.fingerprint[:12]} in the plan)", source=task.tokenizer.path)
    try:
        result = compile_text(task.constraint, task.text, vocab, trie, compile_options(task.constraint, jobs))
    except KindUnavailable:
        raise
    except IndexcError as exc:
        raise InputRejected(str(exc)) from None
    with tempfile.TemporaryDirectory(prefix="indexc-build-") as directory:
        path = Path(directory) / "artifact.idx"
        write(result, vocab, str(path))
        data = path.read_bytes()
    return PairOutcome(
        task.artifact,
        ok=True,
        data=data,
        path_taken=result.constraint.get("path"),
        compile_ms=result.compile_ms,
        stats=dict(getattr(result.table, "stats", {})),
        timings=dict(result.timings),
    )

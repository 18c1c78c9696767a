"""The regex bench's engines taught to compile a JSON Schema: one subclass each, one method more.

Each class extends its engine of ``bench/engines`` with ``compile_schema(tokenizer, schema_text,
name)``, so tokenizer loading and the timed walk (``start_walk`` -> fill / allows / advance) are
the regex bench's own code, not a copy.  "Compile" is what each engine does before its first
mask:

- ``indexc``: ``indexc.pipeline.json_schema.compile_json_schema`` + ``write`` to an artifact
  file, which the walk loads with ``indexc_runtime`` (one worker process, ``jobs=1``: the bench
  runs files side by side instead).  Size = the artifact file.
- ``llguidance``: an ``LLMatcher`` on the Lark grammar ``%llguidance {"no_forcing": true}`` /
  ``start: %json <schema>``: its grammar construction (lazy: lexer states and masks are built
  by the first walks, which the mask times then carry).  Forcing is off because with forcing a
  mask after a forced key holds only its canonical tokenization, and MaskBench walks the
  tokenizer's own tokenization of the whole instance.  No serialized form: size "—".
- ``outlines-core``: ``json_schema.build_regex_from_schema`` (its default whitespace ``[ ]?``,
  which MaskBench's ``", "`` / ``": "`` text satisfies) then ``Index``.  Size = the blob it
  pickles an index as.
- ``xgrammar`` (bench venv only): ``GrammarCompiler.compile_json_schema`` with its defaults
  (any whitespace, strict mode: ``additionalProperties`` false unless given).  Size =
  ``memory_size_bytes``.

A refusal is an exception whose first line is the engine's reason; the protocol records it as
a compile error.
"""

from __future__ import annotations

import atexit
import itertools
import os
import shutil
import tempfile
import time
from pathlib import Path

from bench.engines import ENGINE_MODULES
from bench.engines.common import Compiled

SCHEMA_ENGINES = tuple(ENGINE_MODULES)  # indexc, outlines-core, llguidance, xgrammar


class SchemaRefused(ValueError):
    """The engine refused the schema; the message is the engine's reason, on one line."""


def load_schema_engine(name: str):
    """A fresh schema engine object (imports only that engine's library)."""
    if name == "indexc":
        return _indexc_engine()
    if name == "llguidance":
        return _llguidance_engine()
    if name == "outlines-core":
        return _outlines_engine()
    if name == "xgrammar":
        return _xgrammar_engine()
    raise ValueError(f"unknown engine {name!r} (known: {', '.join(SCHEMA_ENGINES)})")


def first_line(message: object) -> str:
    text = str(message).strip()
    return text.splitlines()[0] if text else type(message).__name__


def _indexc_engine():
    from bench.engines.indexc_engine import IndexcEngine, settle_collector

    class IndexcSchemaEngine(IndexcEngine):
        """indexc: schema -> artifact file; one artifact alive per worker at a time."""

        _numbers = itertools.count()

        def compile_schema(self, tokenizer, schema_text: str, name: str, mode: str = "auto") -> Compiled:
            """``mode``: ``--mode`` (``policy`` compiles with ``cfg`` to check the any-value depth bound)."""
            from indexc.errors import IndexcError
            from indexc.jsonschema.options import JsonSchemaOptions
            from indexc.masks import MaskOptions
            from indexc.pipeline import CompileOptions, write
            from indexc.pipeline.collector import collector_paused
            from indexc.pipeline.json_schema import compile_json_schema

            vocab, trie = tokenizer
            self._forget_previous()
            output = _scratch_dir() / f"schema-{next(self._numbers)}.idx"
            started = time.perf_counter()
            try:
                with collector_paused():  # as `indexc compile` does: one pause over the compile and its write
                    result = compile_json_schema(schema_text, vocab, trie,
                                                 CompileOptions(MaskOptions(jobs=self.jobs)),
                                                 schema_options=JsonSchemaOptions(mode=mode), source=name)
                    summary = write(result, vocab, str(output))
            except IndexcError as exc:  # "<source>: <message> (at <pointer>)": the source is the file
                raise SchemaRefused(first_line(exc).removeprefix(f"{name}: ")) from exc
            compile_ms = (time.perf_counter() - started) * 1000.0
            settle_collector()
            states = getattr(result.table, "n_states", None)  # the grammar path's tables may differ
            extra = {"path": result.constraint.get("path"), "route": result.constraint.get("reason"),
                     "warm_up_ms": result.stage_timings.get("warm_up_ms")}
            return Compiled(output, serialized_bytes=int(summary.bytes), states=states,
                            compile_ms=compile_ms, extra=extra)

        def _forget_previous(self) -> None:
            """Unload and delete the last artifact, so a worker's memory and disk stay flat."""
            for path in list(self._loaded):
                self._loaded.pop(path)
                Path(path).unlink(missing_ok=True)

    return IndexcSchemaEngine(jobs=1)


def _llguidance_engine():
    import llguidance

    from bench.engines.llguidance_engine import LlguidanceEngine
    from tests.reference.llguidance_oracle import NO_FORCING_HEADER

    class LlguidanceSchemaEngine(LlguidanceEngine):
        def compile_schema(self, tokenizer, schema_text: str, name: str) -> Compiled:
            grammar = f"{NO_FORCING_HEADER}\nstart: %json {schema_text}\n"
            matcher = llguidance.LLMatcher(tokenizer.tokenizer, grammar, log_level=0)
            if matcher.is_error():
                raise SchemaRefused(llguidance_reason(matcher.get_error()))
            return Compiled((tokenizer, matcher))

    return LlguidanceSchemaEngine()


def llguidance_reason(message: str) -> str:
    """llguidance's error without the Lark location and the echo of the grammar."""
    line = first_line(message)
    marker = "failed to compile JSON schema: "
    return line.split(marker, 1)[1] if marker in line else line


def _outlines_engine():
    from outlines_core.json_schema import build_regex_from_schema

    from bench.engines.outlines_core_engine import OutlinesCoreEngine

    class OutlinesCoreSchemaEngine(OutlinesCoreEngine):
        def compile_schema(self, tokenizer, schema_text: str, name: str) -> Compiled:
            try:
                index = tokenizer.index(build_regex_from_schema(schema_text))
            except Exception as exc:  # outlines-core raises plain ValueError / TypeError from Rust
                raise SchemaRefused(first_line(exc).removeprefix("outlines-core refused regex ")[:300]) from exc
            return Compiled((tokenizer, index))

        def describe(self, compiled: Compiled) -> None:
            """The serialized size (costly on large indexes: measured after the timings)."""
            compiled.serialized_bytes = compiled.handle[1].serialized_bytes

    return OutlinesCoreSchemaEngine()


def _xgrammar_engine():
    from bench.engines.xgrammar_engine import XgrammarEngine

    class XgrammarSchemaEngine(XgrammarEngine):
        def compile_schema(self, tokenizer, schema_text: str, name: str) -> Compiled:
            try:
                grammar = tokenizer.compile_json_schema(schema_text)
            except Exception as exc:  # xgrammar raises RuntimeError / ValueError from C++
                raise SchemaRefused(first_line(exc)) from exc
            return Compiled(grammar, serialized_bytes=int(grammar.memory_size_bytes))

    return XgrammarSchemaEngine()


def _scratch_dir() -> Path:
    """A private temporary directory per worker process.

    Under ``$MASKBENCH_SCRATCH`` when the pool sets it (the pool removes that directory at the
    end, which also covers workers it had to kill), else under the system's temp directory,
    removed at exit.
    """
    global _SCRATCH
    if _SCRATCH is None or _SCRATCH[0] != os.getpid():
        path = Path(tempfile.mkdtemp(prefix="indexc-maskbench-", dir=os.environ.get(SCRATCH_ENV)))
        atexit.register(shutil.rmtree, path, ignore_errors=True)
        _SCRATCH = (os.getpid(), path)
    return _SCRATCH[1]


SCRATCH_ENV = "MASKBENCH_SCRATCH"
_SCRATCH: tuple[int, Path] | None = None

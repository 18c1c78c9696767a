"""indexc in the benchmark: the compile pipeline in process, then ``indexc_runtime``.

Measured exactly like the other engines: the tokenizer is loaded first, untimed
(``load_vocabulary_and_trie``, with the bench's eos ids; every engine caches its tokenizer;
before it, ``indexc.allocator.reuse_freed_memory`` as the ``indexc`` command does),
then ``compile`` times what ``indexc compile --json`` reports as ``compile_ms``: regex ->
DFA -> masks -> artifact file (``indexc.pipeline.compile_regex`` + ``write``, ``--jobs``
worker processes allowed).  Peak memory is the process's VmHWM growth over the compile, as for
the others.  The size is the artifact file's (and, after the walks, its shipping form's:
``describe``); the walk loads it once with ``indexc_runtime.load`` (as a server does) and
drives ``Matcher.fill_bitmask`` / ``Matcher.advance``.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
import time
from pathlib import Path
from typing import Sequence

from bench.engines.common import Compiled, MaskWalk, bit_is_set


class IndexcEngine:
    name = "indexc"

    def __init__(self, jobs: int = 1):
        self.jobs = jobs
        self._loaded: dict = {}

    def load_tokenizer(self, tokenizer_path: str, eos_ids: Sequence[int]):
        import indexc.pipeline  # noqa: F401  (imports are not compile time, for any engine)
        from indexc.allocator import reuse_freed_memory
        from indexc.pipeline.collector import freeze_survivors
        from indexc.trie.cache import load_vocabulary_and_trie

        reuse_freed_memory()  # as the `indexc` command does before its tokenizer load (``indexc.allocator``)
        vocab, trie, _ = load_vocabulary_and_trie(tokenizer_path, eos_ids=list(eos_ids))
        freeze_survivors()  # and after it (``indexc.pipeline.collector``)
        return vocab, trie

    def compile(self, tokenizer, regex: str) -> Compiled:
        from indexc.masks import MaskOptions
        from indexc.pipeline import CompileOptions, compile_regex, write  # imported by load_tokenizer
        from indexc.pipeline.collector import collector_paused

        vocab, trie = tokenizer
        output = scratch_dir() / "bench.idx"
        started = time.perf_counter()
        with collector_paused():  # as `indexc compile` does: one pause over the compile and its write
            result = compile_regex(regex, vocab, trie, CompileOptions(MaskOptions(jobs=self.jobs)))
            summary = write(result, vocab, str(output))
        compile_ms = (time.perf_counter() - started) * 1000.0
        extra = {"unique_masks": len(result.table.masks), "classes": result.table.n_classes,
                 **result.timings, **result.stage_timings}
        return Compiled(output, serialized_bytes=int(summary.bytes), states=result.table.n_states,
                        compile_ms=compile_ms, extra=extra)

    def describe(self, compiled: Compiled) -> None:
        """The shipping form's size (``indexc compile -o X.idx.zst``: the container as one zstd
        frame), from the artifact's bytes, after the timings."""
        from indexc.artifact.writer import shipping_form

        compiled.extra["shipping_bytes"] = len(shipping_form(Path(compiled.handle).read_bytes()))

    def loaded(self, compiled: Compiled):
        """The artifact's index, loaded once per compiled constraint, as a server does."""
        import indexc_runtime

        index = self._loaded.get(compiled.handle)
        if index is None:
            index = self._loaded[compiled.handle] = indexc_runtime.load(str(compiled.handle))
        return index

    def start_walk(self, compiled: Compiled) -> MaskWalk:
        import numpy as np

        index = self.loaded(compiled)
        matcher = index.matcher()
        bitmask = np.zeros((1, index.mask_words), dtype=np.int32)
        return MaskWalk(
            fill=lambda: matcher.fill_bitmask(bitmask, row=0),
            allows=lambda token: bit_is_set(bitmask[0], token),
            advance=matcher.advance,
        )


def settle_collector() -> None:
    """After a compile, untimed: collect its cycles and freeze what lives on, as a server does
    once it has loaded its artifacts (``docs/grammar-path.md``: the runtime leaves the collector
    alone).  The grammar and MaskBench benches compile and serve in one process, so without it
    a generation-1 or -2 pass over the compile's survivors (the compiler's per-process caches)
    landed in a mask: MaskBench's grammar-path files had one 30-80 ms mask in several files
    (29.5 ms of a 32.3 ms one the collector's), C's cold walk one ~0.55 ms pass."""
    import gc

    from indexc.pipeline.collector import freeze_survivors

    gc.collect()
    freeze_survivors()


def scratch_dir() -> Path:
    """A temporary directory for the artifact, removed when the process exits."""
    path = Path(tempfile.mkdtemp(prefix="indexc-bench-"))
    atexit.register(shutil.rmtree, path, ignore_errors=True)
    return path


ENGINE = IndexcEngine()

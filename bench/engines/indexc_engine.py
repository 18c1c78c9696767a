"""indexc in the benchmark: the ``indexc compile`` command line, then ``indexc_runtime``.

Compile runs ``python -m indexc compile --tokenizer T --regex=R -o OUT --json --jobs N`` in a
child process (``--regex=R`` in one word, so that a regex starting with ``-`` is not an option).  Its JSON line gives ``compile_ms`` (regex -> DFA -> masks -> file; the
vocabulary read ``vocab_ms`` and the trie build ``trie_ms`` are per-tokenizer costs and are
reported apart, as every other engine's tokenizer load is), ``bytes`` (the artifact) and
``states``.  The peak memory is the child's own ``ru_maxrss`` (``os.wait4``): a whole process
with Python, numpy and the vocabulary, so the driver subtracts the peak of the same command on
the regex ``a`` (``PEAK_BASELINE_REGEX``) to compare growth with growth.

The walk loads the artifact with ``indexc_runtime.load`` and drives ``Matcher.fill_bitmask`` /
``Matcher.advance``.  If the command line is missing or fails, ``compile`` raises
``IndexcUnavailable`` with its last stderr line, and the driver prints "not available".
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Sequence

from bench.engines.common import Compiled, MaskWalk, bit_is_set

PEAK_BASELINE_REGEX = "a"


class IndexcUnavailable(RuntimeError):
    """The ``indexc compile`` command did not produce an artifact."""


class IndexcEngine:
    name = "indexc"

    def __init__(self, jobs: int = 1):
        self.jobs = jobs
        self._loaded: dict = {}

    def load_tokenizer(self, tokenizer_path: str, eos_ids: Sequence[int]) -> tuple[str, tuple[int, ...]]:
        return tokenizer_path, tuple(eos_ids)  # the command line reads it itself

    def compile(self, tokenizer: tuple[str, tuple[int, ...]], regex: str) -> Compiled:
        tokenizer_path, eos_ids = tokenizer
        output = _scratch_dir() / "bench.idx"
        command = [sys.executable, "-m", "indexc", "compile", "--tokenizer", tokenizer_path,
                   "--eos", ",".join(map(str, eos_ids)), f"--regex={regex}", "-o", str(output),
                   "--json", "--jobs", str(self.jobs)]
        stdout, stderr, status, peak_kb = _run_measured(command)
        if status != 0 or not output.exists():
            last = (stderr.strip().splitlines() or [f"exit status {status}"])[-1]
            raise IndexcUnavailable(f"indexc compile failed: {last}")
        report = json.loads(stdout.strip().splitlines()[-1])
        extra = {k: report[k] for k in ("vocab_ms", "trie_ms", "unique_masks", "classes") if k in report}
        return Compiled(output, serialized_bytes=int(report["bytes"]), states=report.get("states"),
                        compile_ms=float(report["compile_ms"]), peak_kb=peak_kb, extra=extra)

    def start_walk(self, compiled: Compiled) -> MaskWalk:
        import numpy as np
        import indexc_runtime

        index = self._loaded.get(compiled.handle)
        if index is None:  # loaded once per compiled constraint, as a server does
            index = self._loaded[compiled.handle] = indexc_runtime.load(str(compiled.handle))
        matcher = index.matcher()
        bitmask = np.zeros((1, index.mask_words), dtype=np.int32)
        return MaskWalk(
            fill=lambda: matcher.fill_bitmask(bitmask, row=0),
            allows=lambda token: bit_is_set(bitmask[0], token),
            advance=matcher.advance,
        )


def _scratch_dir() -> Path:
    """A temporary directory for the artifact, removed when the process exits."""
    path = Path(tempfile.mkdtemp(prefix="indexc-bench-"))
    atexit.register(shutil.rmtree, path, ignore_errors=True)
    return path


def _run_measured(command: list[str]) -> tuple[str, str, int, int]:
    """Run ``command``; (stdout, stderr, exit status, the child's peak RSS in KiB)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        child = subprocess.Popen(command, stdout=out, stderr=err)
        _, wait_status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(wait_status)  # reaped here, not by Popen
        out.seek(0)
        err.seek(0)
        return out.read().decode(errors="replace"), err.read().decode(errors="replace"), child.returncode, usage.ru_maxrss


ENGINE = IndexcEngine()

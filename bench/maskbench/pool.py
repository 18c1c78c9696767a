"""Worker processes with deadlines: MaskBench files in, one ``FileOutcome`` per file out.

``run_engine(engine, paths, settings)`` starts ``settings.jobs`` workers (``bench.maskbench.worker``)
for one engine, hands each a file as soon as it is free, and watches their pipes with
``selectors``.  Each file has two deadlines: ``compile_s`` from the request to the worker's
"compiled" line, then ``walk_s`` for the walks.  A worker past its deadline is killed (by its
own ``Popen`` handle, nothing broader) and replaced, and the file is recorded as a timeout; a
worker that dies (an allocation failure under its address-space cap, a segfault) is recorded as
a crash with the last line of its stderr.  Replacing a worker reloads the tokenizer (1-3 s),
which only the few files that time out pay.

Workers of every engine run this repository's code; xgrammar's run under another interpreter
(``settings.python_for``: the bench venv, where torch and xgrammar are installed).
"""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from bench.maskbench.dataset import family_of
from bench.maskbench.protocol import CRASH, TIMEOUT, FileOutcome
from bench.maskbench.schema_engines import SCRATCH_ENV

REPO = Path(__file__).resolve().parents[2]
STARTUP_S = 300.0  # loading a tokenizer never takes this long; a worker that does is broken


@dataclass
class PoolSettings:
    tokenizer: str
    eos_ids: list[int]
    jobs: int = 1
    compile_s: float = 60.0
    walk_s: float = 120.0
    mem_limit_gb: float = 8.0
    python_for: dict[str, str] = field(default_factory=dict)  # engine -> interpreter


@dataclass
class _Worker:
    process: subprocess.Popen
    log_path: Path
    ready: bool = False
    path: Path | None = None  # the file it works on
    compile_ms: float | None = None
    deadline: float = 0.0
    buffer: bytes = b""  # bytes of an unfinished line from the worker


def run_engine(engine: str, paths: list[Path], settings: PoolSettings,
               progress: Callable[[FileOutcome], None] | None = None) -> list[FileOutcome]:
    """Every file of ``paths`` through ``engine``; outcomes in the order of ``paths``.

    On Ctrl-C (SIGINT) the workers are stopped and the outcomes finished so far are returned
    (fewer than ``paths``): a long run interrupted still gives a table of what it did.
    """
    outcomes: dict[str, FileOutcome] = {}
    pending = list(reversed(paths))
    with tempfile.TemporaryDirectory(prefix="maskbench-") as scratch:
        selector = selectors.DefaultSelector()
        workers = [_start(engine, settings, Path(scratch), selector) for _ in range(max(1, min(settings.jobs, len(paths))))]
        try:
            while len(outcomes) < len(paths):
                for worker in workers:
                    if worker.ready and worker.path is None and pending:
                        _assign(worker, pending.pop(), settings)
                for worker, message in _wait(selector, workers):
                    finished = _handle(engine, worker, message, settings)
                    if finished is not None:
                        outcomes[finished.file] = finished
                        if progress is not None:
                            progress(finished)
                for index, worker in enumerate(workers):
                    lost = _check(engine, worker, settings)
                    if lost is not None:
                        outcomes[lost.file] = lost
                        if progress is not None:
                            progress(lost)
                    if lost is not None or worker.process.poll() is not None:
                        _stop(worker, selector)
                        workers[index] = _start(engine, settings, Path(scratch), selector)
        except KeyboardInterrupt:
            pass
        finally:
            for worker in workers:
                _stop(worker, selector)
    return [outcomes[p.name] for p in paths if p.name in outcomes]


def _start(engine: str, settings: PoolSettings, scratch: Path, selector) -> _Worker:
    log_path = Path(tempfile.mkstemp(prefix=f"worker-{engine}-", suffix=".log", dir=scratch)[1])
    command = [settings.python_for.get(engine, sys.executable), "-m", "bench.maskbench.worker",
               "--engine", engine, "--tokenizer", settings.tokenizer,
               "--eos", ",".join(map(str, settings.eos_ids)), "--mem-limit-gb", str(settings.mem_limit_gb)]
    # and the tree's runtime: the venv's editable install maps ``indexc_runtime`` to the main checkout
    env = {**os.environ, SCRATCH_ENV: str(scratch), "PYTHONPATH": os.pathsep.join((str(REPO), str(REPO / "runtime")))}
    with open(log_path, "w") as log:
        process = subprocess.Popen(command, cwd=REPO, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   stderr=log, text=True)
    worker = _Worker(process, log_path, deadline=time.monotonic() + STARTUP_S)
    selector.register(process.stdout, selectors.EVENT_READ, worker)
    return worker


def _assign(worker: _Worker, path: Path, settings: PoolSettings) -> None:
    worker.path, worker.compile_ms = path, None
    worker.deadline = time.monotonic() + settings.compile_s
    worker.process.stdin.write(json.dumps({"path": str(path)}) + "\n")
    worker.process.stdin.flush()


def _wait(selector, workers: list[_Worker]) -> list[tuple[_Worker, dict | None]]:
    """Messages ready now (``None`` for a closed pipe), waiting at most until the next deadline.

    The pipe is read raw (``os.read``) and split into lines here: a buffered ``readline`` could
    swallow the "compiled" and "done" lines in one read and leave ``select`` nothing to report.
    """
    busy = [w for w in workers if not w.ready or w.path is not None]
    timeout = max(0.0, min(w.deadline for w in busy) - time.monotonic()) if busy else 0.0
    messages: list[tuple[_Worker, dict | None]] = []
    for key, _ in selector.select(timeout=min(timeout, 5.0)):
        worker: _Worker = key.data
        chunk = os.read(key.fd, 1 << 20)
        if not chunk:
            selector.unregister(key.fileobj)
            messages.append((worker, None))
            continue
        worker.buffer += chunk
        *lines, worker.buffer = worker.buffer.split(b"\n")
        messages.extend((worker, json.loads(line)) for line in lines if line.strip())
    return messages


def _handle(engine: str, worker: _Worker, message: dict | None, settings: PoolSettings) -> FileOutcome | None:
    """Advance the worker's state on one message; the file's outcome when it is finished."""
    if message is None:  # the pipe closed: the worker died; ``_check`` records and replaces it
        worker.process.wait()
        return None
    event = message["event"]
    if event == "ready":
        worker.ready = True
    elif event == "compiled":
        worker.compile_ms = message["compile_ms"]
        worker.deadline = time.monotonic() + settings.walk_s
    elif event == "done":
        worker.path = None
        return FileOutcome.from_dict(message["outcome"])
    return None


def _check(engine: str, worker: _Worker, settings: PoolSettings) -> FileOutcome | None:
    """A timeout or a crash of the file the worker holds (``None``: all is well)."""
    died = worker.process.poll() is not None
    late = time.monotonic() > worker.deadline and (worker.path is not None or not worker.ready)
    if not (died or late):
        return None
    if worker.path is None:
        if not worker.ready:
            raise RuntimeError(f"{engine} worker could not start: {_last_line(worker.log_path)}")
        return None
    name = worker.path.name
    if late and not died:
        phase, limit = ("walks", settings.walk_s) if worker.compile_ms is not None else ("compile", settings.compile_s)
        return FileOutcome(name, family_of(name), engine, TIMEOUT, f"{phase} over {limit:g} s",
                           compile_ms=worker.compile_ms)
    return FileOutcome(name, family_of(name), engine, CRASH, _crash_reason(worker, settings),
                       compile_ms=worker.compile_ms)


def _crash_reason(worker: _Worker, settings: PoolSettings) -> str:
    code = worker.process.returncode
    how = f"signal {-code}" if code < 0 else f"exit {code}"
    last = _last_line(worker.log_path)
    if "memory" in last.lower() or "alloc" in last.lower():
        return f"out of memory (cap {settings.mem_limit_gb:g} GB): {last}"
    return f"worker died ({how}): {last}"


def _stop(worker: _Worker, selector) -> None:
    try:
        selector.unregister(worker.process.stdout)
    except (KeyError, ValueError):
        pass
    if worker.process.poll() is None:
        worker.process.kill()
    worker.process.wait()
    for stream in (worker.process.stdin, worker.process.stdout):
        try:
            stream.close()
        except (BrokenPipeError, OSError):
            pass


def _last_line(path: Path) -> str:
    try:
        lines = [line for line in path.read_text(errors="replace").splitlines() if line.strip()]
    except OSError:
        return ""
    return lines[-1][:300] if lines else ""

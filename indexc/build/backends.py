"""Where the pairs run: in this process, in local worker processes, or on a Dask cluster.

All three go through joblib, so there is one code path for the work and no home-made
distribution: ``local`` uses joblib's default process pool (loky), ``dask`` the same
``Parallel`` call inside ``joblib.parallel_config(backend="dask")`` with a
``dask.distributed.Client`` connected to the scheduler's address; there the tokenizers travel
with the work as bytes (``shipping``), so the workers need no access to the driver's files.  Outcomes are yielded as
pairs finish (``return_as="generator_unordered"``), which is what lets the progress bar move
and the driver write each artifact as soon as it arrives.

Parallelism goes where the work is: with several pairs to compile, one pair per worker and
every compile single-process inside (nested pools would only fight for the same two cores);
with one pair, or ``jobs == 1``, the pairs run here one after another and each compile may use
``jobs`` processes of its own (``MaskOptions.jobs``: big mask walks split by state chunks).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence

from indexc.build.plan import PairTask
from indexc.build.shipping import TokenizerFiles
from indexc.build.worker import PairOutcome, compile_pair
from indexc.errors import IndexcError

BACKENDS = ("local", "dask")


class BackendError(IndexcError):
    """The chosen backend cannot run (Dask not installed, scheduler unreachable)."""


def run_tasks(tasks: Sequence[PairTask], *, jobs: int, backend: str = "local",
              scheduler: str | None = None) -> Iterator[PairOutcome]:
    """Compile every task, yielding each outcome when it is ready (in no particular order)."""
    if not tasks:
        return  # nothing to do: no worker pool, no connection to a scheduler
    if backend == "dask":
        yield from _run_on_dask(tasks, scheduler)
        return
    if backend != "local":
        raise BackendError(f"unknown backend {backend!r} (one of {', '.join(BACKENDS)})")
    workers = effective_jobs(jobs)
    if workers == 1 or len(tasks) <= 1:
        for task in tasks:
            yield compile_pair(task, jobs)
        return
    yield from _parallel(tasks, n_jobs=min(workers, len(tasks)))


def effective_jobs(jobs: int) -> int:
    """``jobs`` with 0 meaning every core."""
    return jobs if jobs > 0 else (os.cpu_count() or 1)


def _parallel(tasks: Sequence[PairTask], n_jobs: int, shipped: dict | None = None) -> Iterator[PairOutcome]:
    """``shipped``: tokenizer name -> TokenizerFiles, one object per tokenizer (scattered once by joblib)."""
    from joblib import Parallel, delayed

    parallel = Parallel(n_jobs=n_jobs, return_as="generator_unordered")
    files = shipped or {}
    yield from parallel(delayed(compile_pair)(task, 1, files.get(task.tokenizer.name)) for task in tasks)


def _run_on_dask(tasks: Sequence[PairTask], scheduler: str | None) -> Iterator[PairOutcome]:
    if not scheduler:
        raise BackendError("--backend dask needs --scheduler ADDRESS (e.g. tcp://scheduler:8786)")
    try:
        from dask.distributed import Client
    except ImportError:
        raise BackendError("--backend dask needs Dask: pip install 'indexc[dask]'") from None
    import joblib

    try:
        client = Client(scheduler, timeout="10s")
    except OSError as exc:
        raise BackendError(f"cannot reach the Dask scheduler: {exc}", source=scheduler) from None
    specs = {task.tokenizer.name: task.tokenizer for task in tasks if task.error is None}
    shipped = {name: TokenizerFiles.read(spec) for name, spec in specs.items()}
    with client, joblib.parallel_config(backend="dask"):
        workers = max(1, sum(client.nthreads().values()))
        yield from _parallel(tasks, n_jobs=workers, shipped=shipped)

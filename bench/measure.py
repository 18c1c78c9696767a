"""One engine, one regex, in a fresh process: compile, peak memory, size, timed walk -> JSON.

Why a fresh process per cell: the Rust and C++ engines allocate outside Python's heap (so
``tracemalloc`` sees nothing), and a process's allocator keeps freed memory, so a second
compile in the same process would hide its growth.  Here the tokenizer is loaded first, the
memory it freed is handed back to the kernel (glibc ``malloc_trim``; without it xgrammar's
compile reused the pages its tokenizer load had freed and showed 0.3 MB), then the kernel's
high-water mark of resident memory is reset (writing ``5`` to ``/proc/self/clear_refs``), the
regex is compiled, and ``VmHWM`` minus the ``VmRSS`` just before the compile is the compile's
peak growth.  The same mark read after the walk gives ``walk_peak_kib``: what lazy engines
(llguidance) build while serving.  Engines that compile in a child process of their own (the
indexc command line) report that child's peak instead.

Input: the path of a JSON job file (engine, regex, tokenizer, eos_ids, token_ids, jobs).
Output: one JSON object on the last line of stdout.
"""

from __future__ import annotations

import ctypes
import json
import sys
import time
import traceback

from bench.engines import load_engine
from bench.engines.common import time_walk

WALKS = 10  # walks of the example per cell at least: the first cold, the others the steady state
MIN_STEADY_MASKS = 400  # ... and more steady walks until this many masks were timed (a p99 of 45 masks is their max)
STEADY_SECONDS = 10.0  # ... unless the steady walks have taken this long (slow engines stop at WALKS)


def reset_peak_rss() -> int:
    """Return freed heap pages to the kernel, reset the high-water RSS mark; current RSS in KiB."""
    _malloc_trim()
    with open("/proc/self/clear_refs", "w") as handle:
        handle.write("5")
    return _status_kib("VmRSS")


def peak_rss_kib() -> int:
    return _status_kib("VmHWM")


def _malloc_trim() -> None:
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc: the figure may then understate growth
        pass


def _status_kib(field: str) -> int:
    with open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"/proc/self/status has no {field}")


def measure(job: dict) -> dict:
    engine = load_engine(job["engine"])
    if hasattr(engine, "jobs"):
        engine.jobs = job.get("jobs", 1)
    tokenizer = engine.load_tokenizer(job["tokenizer"], job["eos_ids"])
    rss_before = reset_peak_rss()
    started = time.perf_counter()
    compiled = engine.compile(tokenizer, job["regex"])
    compile_ms = (time.perf_counter() - started) * 1000.0
    peak_kib = peak_rss_kib() - rss_before
    result = {
        "compile_ms": compiled.compile_ms if compiled.compile_ms is not None else compile_ms,
        "peak_kib": peak_kib,
        "serialized_bytes": compiled.serialized_bytes,
    }
    if job.get("token_ids") is not None:
        # The first walk runs on a cold process (it is where lazy engines build their state);
        # later walks of the same compiled constraint are the steady state a server lives in.
        walks = _walks(engine, compiled, job)
        first, steady = walks[0], walks[1:] or walks[:1]
        result.update(first_mask_us=first.mask_us, first_advance_us=first.advance_us,
                      mask_us=[t for w in steady for t in w.mask_us],
                      advance_us=[t for w in steady for t in w.advance_us],
                      accepted=all(w.accepted for w in walks), failure=first.failure,
                      walk_peak_kib=peak_rss_kib() - rss_before)
    describe = getattr(engine, "describe", None)
    if describe is not None:
        describe(compiled)
    result.update(states=compiled.states, extra=compiled.extra)
    return result


def _walks(engine, compiled, job: dict) -> list:
    """``WALKS`` walks of the example, then more until ``MIN_STEADY_MASKS`` steady masks were
    timed or ``STEADY_SECONDS`` passed: a 4-token example gives 5 masks a walk, and over 45 of
    them one preemption by the host was the p99 (a 2 us engine reported at 19.7 us).  Every
    engine walks under the same rule, so a fast one is sampled more, never judged on fewer."""
    walks, started = [], time.perf_counter()
    while (len(walks) < job.get("walks", WALKS)
           or (sum(len(w.mask_us) for w in walks[1:]) < MIN_STEADY_MASKS
               and time.perf_counter() - started < STEADY_SECONDS and walks[-1].accepted)):
        walks.append(time_walk(engine.start_walk(compiled), job["token_ids"], job["eos_ids"]))
    return walks


def main(argv: list[str]) -> int:
    with open(argv[1], encoding="utf-8") as handle:
        job = json.load(handle)
    try:
        result = measure(job)
    except Exception as exc:  # reported in the table, one line per failed cell
        result = {"error": f"{type(exc).__name__}: {str(exc).strip().splitlines()[0] if str(exc).strip() else ''}",
                  "traceback": traceback.format_exc(limit=3)}
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

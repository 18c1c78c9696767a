"""The compiler's limits in one place: states, memory, time; and where each is enforced.

A constraint can ask for far more than any index is worth: ``(a{1,1000}){1,1000}`` is two
million NFA states, ``.{20000}`` a 160,000-state byte DFA, a JSON string of 4,096 characters
37,000 states whose masks span the vocabulary.  ``CompileLimits`` holds the three knobs of the
command line (``--max-states``, ``--max-memory``, ``--time-limit``), and every stage that can
blow up checks them *before* the work or the allocation, so a hostile input ends in a
``LimitError`` that names the limit, what hit it and the flag that raises it, never in a hang,
a swap storm or a partial file (the writer runs only after the compile returned).

- States: ``AutomatonLimits`` (``automaton/limits.py``) derived from ``max_states``: checked
  from the syntax tree (NFA size), during subset construction and after UTF-8 expansion.
- Memory: an estimate of the bytes a stage is about to hold, checked by the stage before it
  allocates (``check_memory``): the subset construction's table, the walk's frontier, the
  expanded masks (``indexc.masks.compute``).  Estimates count the big numpy arrays and lists,
  not Python's per-object overhead, so they are lower bounds of the process's growth.
- Time: a deadline checked between units of work (``check_time``): each new DFA state of the
  subset construction, each level of the frontier walk and each chunk of origin states, each
  expanded mask.  Walks in worker processes are bounded by joblib's ``timeout``
  (``remaining_seconds``).  A unit of work is milliseconds, so a limit is overshot by little.

This module imports nothing of the compiler but its errors, so every stage can import it.
How the stages find the limits: ``enforced(limits)`` makes them current for the code inside
the ``with`` (a ``ContextVar``, so threads and nested compiles keep their own); outside, the
defaults apply (no time limit, ``DEFAULT_MAX_MEMORY``).  The command line wraps each compile
in ``enforced``; a library caller does the same:

    with enforced(CompileLimits(max_memory=2 << 30, time_limit=30)):
        result = compile_regex(pattern, vocab, trie)
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import asdict, dataclass

from indexc.errors import LimitError

DEFAULT_MAX_STATES = 100_000  # a mask table of 100,000 rows; the benchmark's regexes need 8 to 827
DEFAULT_MAX_MEMORY = 4 << 30  # bytes: a sixth of this machine's 24 GB; real compiles peak at 0.1-0.5 GB
SIZE_SUFFIXES = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
# tokens of sentences sampled from a Lark or GBNF grammar that its compile walks (``--warm-up-samples``;
# ``indexc.grammar.sentences``): session 21, arithmetic's cold mask p50 needed 512; session 26, 2,048 (the
# warm-up's whole budget, ``MAX_WARM_UP_TOKENS``) took the slowest first-request mask of a freshly loaded
# artifact from 1,076 / 1,030 / 1,183 to 867 / 908 / 889 us on C / C-other / RFC-XML, compile +0.05-0.23 s
# and +0.0-0.8 MB (docs/grammar-path.md, session 26)
DEFAULT_WARM_UP_SAMPLES = 2048


@dataclass(frozen=True)
class CompileLimits:
    """The limits of one compile (the command line's ``--max-states``, ``--max-memory``, ``--time-limit``)."""

    max_states: int = DEFAULT_MAX_STATES
    max_memory: int = DEFAULT_MAX_MEMORY  # bytes
    time_limit: float | None = None  # seconds of compile time (vocabulary loading and writing excluded)

    def __post_init__(self) -> None:
        if self.max_states < 1 or self.max_memory < 1 or (self.time_limit is not None and self.time_limit <= 0):
            raise ValueError(f"limits must be positive: {self}")

    def automaton(self):
        """The automaton stage's view (``AutomatonLimits``; imported here: this module is a leaf)."""
        from indexc.automaton.limits import AutomatonLimits

        return AutomatonLimits.for_max_states(self.max_states)

    def as_dict(self) -> dict:
        return asdict(self)

    def describe(self) -> str:
        """One line for reports: ``max states 100,000; max memory 4.0 GiB; no time limit``."""
        seconds = "no time limit" if self.time_limit is None else f"time limit {self.time_limit:g} s"
        return f"max states {self.max_states:,}; max memory {format_bytes(self.max_memory)}; {seconds}"


class LimitGuard:
    """The limits of the compile in progress: a deadline fixed when it started, and the memory cap."""

    def __init__(self, limits: CompileLimits, source: str | None = None):
        self.limits = limits
        self.source = source
        self.started = time.perf_counter()
        self.deadline = None if limits.time_limit is None else self.started + limits.time_limit

    def check_time(self, stage: str) -> None:
        """``LimitError`` once the time limit has passed (~0.1 us when it has not)."""
        if self.deadline is not None and time.perf_counter() > self.deadline:
            raise self.time_out(stage)

    def time_out(self, stage: str) -> LimitError:
        """The error of a time limit reached during ``stage`` (also for workers stopped by their timeout)."""
        return LimitError(
            f"time limit of {self.limits.time_limit:g} s reached during {stage} "
            f"(after {time.perf_counter() - self.started:.1f} s); raise it with --time-limit",
            source=self.source,
        )

    def check_memory(self, estimate: int, what: str) -> None:
        """``LimitError`` if ``estimate`` bytes (about to be allocated for ``what``) exceed the cap."""
        if estimate > self.limits.max_memory:
            raise LimitError(
                f"{what}: an estimated {format_bytes(estimate)} needed, more than the memory limit of "
                f"{format_bytes(self.limits.max_memory)}; raise it with --max-memory",
                source=self.source,
            )

    def remaining_seconds(self) -> float | None:
        """Seconds left before the deadline (None: no time limit); at least a millisecond."""
        if self.deadline is None:
            return None
        return max(self.deadline - time.perf_counter(), 1e-3)


_CURRENT: ContextVar[LimitGuard] = ContextVar("indexc_compile_limits", default=LimitGuard(CompileLimits()))


@contextmanager
def enforced(limits: CompileLimits, *, source: str | None = None) -> Iterator[LimitGuard]:
    """Make ``limits`` the current limits (the time limit counts from here) inside the block."""
    token = _CURRENT.set(LimitGuard(limits, source))
    try:
        yield _CURRENT.get()
    finally:
        _CURRENT.reset(token)


def current() -> LimitGuard:
    """The guard of the compile in progress (the default limits outside ``enforced``)."""
    return _CURRENT.get()


def check_time(stage: str) -> None:
    _CURRENT.get().check_time(stage)


def check_memory(estimate: int, what: str) -> None:
    _CURRENT.get().check_memory(estimate, what)


def parse_size(text: str) -> int:
    """``"512M"``, ``"4G"``, ``"1.5g"``, ``"1000000"`` -> bytes (binary units); ``ValueError`` otherwise."""
    cleaned = text.strip().lower().removesuffix("ib").removesuffix("b")
    scale = SIZE_SUFFIXES.get(cleaned[-1:], 1)
    number = float(cleaned[:-1] if scale > 1 else cleaned)
    if not number > 0:
        raise ValueError(f"a size must be positive: {text!r}")
    return int(number * scale)


def format_bytes(size: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale:
            return f"{size / scale:.1f} {unit}"
    return f"{size} B"

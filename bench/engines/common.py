"""What every engine of the benchmark provides, and the walk that times it.

An engine loads a tokenizer once (not timed: every engine caches it per tokenizer in serving),
compiles a regex into a ``Compiled`` (timed by the caller, unless the engine reports its own
figure, as the ``indexc`` command line does), and starts a ``MaskWalk``: fill the next-token
bitmask, test one token's bit in it, advance.  ``time_walk`` runs a token sequence through it,
timing each fill and each advance separately, and checks that every token was allowed and that
an EOS id is allowed at the end: "the valid example was accepted".

Masks are int32 bitmask rows (bit ``t % 32`` of word ``t // 32`` for token ``t``), the layout
llguidance, xgrammar, outlines-core (``write_mask_into``) and indexc_runtime all fill, so each
engine writes into a buffer of its own kind and the bit test is the same.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Protocol, Sequence

import numpy as np


@dataclass
class Compiled:
    """One compiled regex, with what the engine can say about it."""

    handle: object
    serialized_bytes: int | None = None  # None: the engine has no serialized form
    states: int | None = None
    compile_ms: float | None = None  # set by engines that time themselves
    extra: dict = field(default_factory=dict)


@dataclass
class MaskWalk:
    fill: Callable[[], None]
    allows: Callable[[int], bool]
    advance: Callable[[int], None]


@dataclass
class WalkReport:
    mask_us: list[float]
    advance_us: list[float]
    accepted: bool
    failure: str = ""


class Engine(Protocol):
    name: str

    def load_tokenizer(self, tokenizer_path: str, eos_ids: Sequence[int]) -> object: ...

    def compile(self, tokenizer: object, regex: str) -> Compiled: ...

    def start_walk(self, compiled: Compiled) -> MaskWalk: ...


def new_bitmask(vocab_size: int) -> np.ndarray:
    """One int32 bitmask row, shape (1, ceil(vocab/32))."""
    return np.zeros((1, (vocab_size + 31) // 32), dtype=np.int32)


def bit_is_set(row: np.ndarray, token_id: int) -> bool:
    return bool((int(row[token_id >> 5]) >> (token_id & 31)) & 1)


def time_walk(walk: MaskWalk, token_ids: Sequence[int], eos_ids: Sequence[int]) -> WalkReport:
    """Fill, check, advance for each token, then fill once more and look for EOS."""
    mask_us: list[float] = []
    advance_us: list[float] = []
    for position, token in enumerate(token_ids):
        mask_us.append(_timed_us(walk.fill))
        if not walk.allows(token):
            return WalkReport(mask_us, advance_us, False, f"token #{position} (id {token}) not in the mask")
        try:
            advance_us.append(_timed_us(lambda: walk.advance(token)))
        except Exception as exc:  # an engine refusing a token it just allowed is a finding, not a crash
            return WalkReport(mask_us, advance_us, False, f"advance on token #{position} failed: {exc}")
    mask_us.append(_timed_us(walk.fill))
    if not any(walk.allows(eos) for eos in eos_ids):
        return WalkReport(mask_us, advance_us, False, "EOS not allowed at the end")
    return WalkReport(mask_us, advance_us, True)


def _timed_us(action: Callable[[], object]) -> float:
    started = time.perf_counter_ns()
    action()
    return (time.perf_counter_ns() - started) / 1000.0


def format_size(n: int | None) -> str:
    """Bytes as the tables print them (``1.1 MB``, ``352.8 KB``, ``96 B``; ``—`` when unknown)."""
    if n is None:
        return "—"
    for unit, scale in (("MB", 1 << 20), ("KB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:,.1f} {unit}"
    return f"{n} B"


def percentile_text(values: Sequence[float], q: int, digits: int = 1) -> str:
    """The nearest-rank ``q``-th percentile as the tables print it (``—`` for no values)."""
    return f"{float(np.percentile(values, q, method='nearest')):,.{digits}f}" if len(values) else "—"

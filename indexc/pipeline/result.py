"""What every compile returns, and how it is written: CompileOptions, CompileResult, write.

Shared by the constraint kinds (``regex``, ``json_schema``, ``grammar``): each one returns a
``CompileResult`` whose ``table`` the artifact writer knows how to store, whose
``constraint`` dict goes into the header (kind, source text, sha256, the path taken), and whose
``timings`` sum to ``compile_ms``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from indexc.artifact import write_artifact
from indexc.automaton.compile import DEFAULT_MAX_STATES
from indexc.masks import MaskOptions, MaskTable
from indexc.pipeline.collector import collector_paused
from indexc.vocab.model import Vocabulary


@dataclass(frozen=True)
class CompileOptions:
    masks: MaskOptions = MaskOptions()
    max_states: int = DEFAULT_MAX_STATES

    def as_dict(self) -> dict:
        return {"max_states": self.max_states, **self.masks.as_dict()}


@dataclass
class CompileResult:
    table: MaskTable
    constraint: dict
    options: CompileOptions
    timings: dict = field(default_factory=dict)  # top-level steps: dfa_ms, masks_ms, write_ms
    stage_timings: dict = field(default_factory=dict)  # inside the mask stage (for --json, bench)

    @property
    def compile_ms(self) -> float:
        return round(sum(self.timings.values()), 3)


@collector_paused()
def write(result: CompileResult, vocab: Vocabulary, path: str, *, compress: bool = False, durable: bool = False):
    """Write ``result`` as an artifact (atomically; ``durable``: fsync-ed too); returns the writer's summary.

    The write is the last stage of a compile, so the cyclic collector stays paused here too
    (``collector``): a full collection landing in it cost a small regex's compile 4 ms."""
    t0 = time.perf_counter()
    summary = write_artifact(
        result.table,
        path,
        vocab_info=vocab,
        constraint=result.constraint,
        options=result.options.as_dict(),
        stats=result.table.stats,
        compress=compress,
        durable=durable,
    )
    result.timings["write_ms"] = elapsed_ms(t0, time.perf_counter())
    result.stage_timings.update(summary.stage_ms)  # inside write_ms (the grammar path's warm-up walk)
    return summary


def elapsed_ms(start: float, end: float) -> float:
    return round((end - start) * 1000.0, 3)

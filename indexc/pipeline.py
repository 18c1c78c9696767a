"""The whole compile, as one call: constraint + vocabulary -> MaskTable -> artifact file.

This is the only module that knows every stage; each stage knows only the one before it
(vocabulary -> trie -> automaton -> masks -> artifact).  The command line and the bench call
``compile_regex`` and ``write``; they time the stages through ``CompileResult.timings``.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field

from indexc.artifact import write_artifact
from indexc.automaton import compile_regex as regex_to_dfa
from indexc.automaton.compile import DEFAULT_MAX_STATES
from indexc.masks import MaskOptions, MaskTable, compute_mask_table
from indexc.trie import TokenTrie
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


def compile_regex(
    pattern: str,
    vocab: Vocabulary,
    trie: TokenTrie,
    options: CompileOptions = CompileOptions(),
    *,
    source: str = "<regex>",
) -> CompileResult:
    """Regex -> minimal byte DFA -> masks of every state."""
    t0 = time.perf_counter()
    dfa = regex_to_dfa(pattern, max_states=options.max_states, source=source)
    t1 = time.perf_counter()
    stage_timings: dict[str, float] = {}
    table = compute_mask_table(dfa, trie, vocab, options.masks, timings=stage_timings)
    t2 = time.perf_counter()
    constraint = {
        "kind": "regex",
        "source": pattern,
        "sha256": hashlib.sha256(pattern.encode("utf-8")).hexdigest(),
        "path": "dfa",
    }
    timings = {"dfa_ms": _ms(t0, t1), "masks_ms": _ms(t1, t2)}
    return CompileResult(table, constraint, options, timings, stage_timings)


def write(result: CompileResult, vocab: Vocabulary, path: str, *, compress: bool = False):
    """Write ``result`` as an artifact (atomically); returns the writer's summary."""
    t0 = time.perf_counter()
    summary = write_artifact(
        result.table,
        path,
        vocab_info=vocab,
        constraint=result.constraint,
        options=result.options.as_dict(),
        stats=result.table.stats,
        compress=compress,
    )
    result.timings["write_ms"] = _ms(t0, time.perf_counter())
    return summary


def _ms(start: float, end: float) -> float:
    return round((end - start) * 1000.0, 3)

"""A regex constraint: pattern -> minimal byte DFA -> masks of every state (the DFA path)."""

from __future__ import annotations

import hashlib
import time

from indexc.automaton import compile_regex as regex_to_dfa
from indexc.masks import compute_mask_table
from indexc.pipeline.collector import collector_paused
from indexc.pipeline.result import CompileOptions, CompileResult, elapsed_ms
from indexc.trie import TokenTrie
from indexc.vocab.model import Vocabulary


@collector_paused()
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
    timings = {"dfa_ms": elapsed_ms(t0, t1), "masks_ms": elapsed_ms(t1, t2)}
    return CompileResult(table, constraint, options, timings, stage_timings)

"""The regex bench's engines taught to compile a grammar (Lark or GBNF) and load it back.

Each class extends its engine of ``bench/engines`` with two methods, so that tokenizer loading
and the timed walk (``start_walk`` -> fill / allows / advance) stay the regex bench's own code:

- ``compile_grammar(tokenizer, text, syntax)`` -> ``Compiled``: what the engine does before its
  first mask;
- ``load_first_mask(compiled)`` -> ms: what a server does with the compiled form before it can
  answer: load it, make a matcher, fill the first mask.

Per engine:
- ``indexc``: ``indexc.pipeline.grammar.compile_grammar`` + ``write`` to an artifact file (with
  the collector paused, as ``indexc compile`` does); load = ``indexc_runtime.load`` of the file.
  Size = the artifact.  A walk's matchers share the index's parser memo (a later request for
  the same grammar reuses the Earley sets and masks an earlier one built): the "warm" walk.
- ``llguidance``: an ``LLMatcher`` on the grammar with ``%llguidance {"no_forcing": true}``
  (GBNF through llguidance's own ``gbnf_to_lark``).  It compiles lazily (lexer states and masks
  are built by the walks), has no serialized form (size "—"), and its "load" is the matcher's
  construction plus the first mask.  Its lexer is greedy where indexc follows every split
  (``docs/grammar-path.md``): a document a greedy lexer cannot read is rejected part-way.
- ``xgrammar`` (bench venv only): ``GrammarCompiler.compile_grammar`` on the GBNF text (its EBNF
  is GBNF with ``root``); Lark input is not supported ("—").  Size = ``serialize_json``; load
  = ``CompiledGrammar.deserialize_json`` + a matcher + the first mask.
"""

from __future__ import annotations

import time

import numpy as np

from bench.engines.common import Compiled


class GrammarNotCompiled(Exception):
    """The engine does not read this grammar's syntax, or refuses the grammar: a table cell that
    says why, where a crash or a wrong mask would be a failure."""


def load_grammar_engine(name: str):
    """The engine ``name`` with ``compile_grammar`` and ``load_first_mask``."""
    return {"indexc": _indexc_engine, "llguidance": _llguidance_engine, "xgrammar": _xgrammar_engine}[name]()


def _elapsed_ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000.0


def _indexc_engine():
    from bench.engines.indexc_engine import IndexcEngine, scratch_dir, settle_collector

    class IndexcGrammarEngine(IndexcEngine):
        def load_tokenizer(self, tokenizer_path: str, eos_ids):
            # the grammar path's modules, which ``indexc.pipeline`` imports on first use (~45 ms):
            # imports are not compile time, for any engine
            import indexc.artifact.grammar_writer  # noqa: F401
            import indexc.grammar.load  # noqa: F401
            import indexc.pipeline.grammar  # noqa: F401
            import indexc.vocab.greedy_tokens  # noqa: F401

            return super().load_tokenizer(tokenizer_path, eos_ids)

        def compile_grammar(self, tokenizer, text: str, syntax: str, warm_up: str | None = None) -> Compiled:
            from indexc.pipeline import write
            from indexc.pipeline.collector import collector_paused
            from indexc.pipeline.grammar import compile_grammar

            vocab, trie = tokenizer
            output = scratch_dir() / "grammar.idx"
            started = time.perf_counter()
            with collector_paused():  # as `indexc compile` does: one pause over the compile and its write
                result = compile_grammar(text, vocab, trie, syntax=syntax, source=f"<{syntax} grammar>",
                                         warm_up=warm_up)  # ``--warm-up FILE``'s text
                summary = write(result, vocab, str(output))
            compile_ms = _elapsed_ms(started)
            settle_collector()
            return Compiled(output, serialized_bytes=int(summary.bytes), compile_ms=compile_ms, extra=dict(result.timings))

        def load_first_mask(self, compiled: Compiled) -> float:
            import indexc_runtime

            started = time.perf_counter()
            index = indexc_runtime.load(str(compiled.handle))  # its own index: the walks' memo stays cold
            out = np.zeros((1, index.mask_words), dtype=np.int32)
            index.matcher().fill_bitmask(out)
            return _elapsed_ms(started)

    return IndexcGrammarEngine()


def _llguidance_engine():
    import llguidance
    import llguidance.numpy

    from bench.engines.common import new_bitmask
    from bench.engines.llguidance_engine import LlguidanceEngine
    from tests.reference.llguidance_oracle import NO_FORCING_HEADER

    class LlguidanceGrammarEngine(LlguidanceEngine):
        def compile_grammar(self, tokenizer, text: str, syntax: str) -> Compiled:
            lark = llguidance.gbnf_to_lark.gbnf_to_lark(text) if syntax == "gbnf" else text
            grammar = f"{NO_FORCING_HEADER}\n{lark}"
            matcher = llguidance.LLMatcher(tokenizer.tokenizer, grammar, log_level=0)
            if matcher.is_error():
                raise GrammarNotCompiled("refused: " + matcher.get_error().strip().splitlines()[0])
            return Compiled((tokenizer, matcher), extra={"grammar": grammar})

        def load_first_mask(self, compiled: Compiled) -> float:
            tokenizer, _ = compiled.handle
            started = time.perf_counter()  # no serialized form: a new matcher from the grammar text
            matcher = llguidance.LLMatcher(tokenizer.tokenizer, compiled.extra["grammar"], log_level=0)
            llguidance.numpy.fill_next_token_bitmask(matcher, new_bitmask(tokenizer.vocab_size))
            return _elapsed_ms(started)

    return LlguidanceGrammarEngine()


def _xgrammar_engine():
    import xgrammar

    from bench.engines.xgrammar_engine import XgrammarEngine

    class XgrammarGrammarEngine(XgrammarEngine):
        def compile_grammar(self, tokenizer, text: str, syntax: str) -> Compiled:
            if syntax != "gbnf":
                raise GrammarNotCompiled(f"xgrammar reads EBNF/GBNF, not {syntax}")
            try:
                grammar = tokenizer.compile_grammar(text)
            except RuntimeError as exc:  # "[time] file.cc:line: EBNF parser error at line L, column C: ..."
                raise GrammarNotCompiled("refused: " + str(exc).splitlines()[0].split(": ", 1)[-1]) from exc
            serialized = grammar.serialize_json()
            return Compiled(grammar, serialized_bytes=len(serialized.encode("utf-8")),
                            extra={"serialized": serialized, "memory_size_bytes": int(grammar.memory_size_bytes)})

        def load_first_mask(self, compiled: Compiled) -> float:
            grammar = compiled.handle
            started = time.perf_counter()
            loaded = xgrammar.CompiledGrammar.deserialize_json(compiled.extra["serialized"], grammar.tokenizer_info)
            bitmask = xgrammar.allocate_token_bitmask(1, loaded.tokenizer_info.vocab_size)
            xgrammar.GrammarMatcher(loaded).fill_next_token_bitmask(bitmask)
            return _elapsed_ms(started)

    return XgrammarGrammarEngine()

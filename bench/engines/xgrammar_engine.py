"""xgrammar as a benchmark competitor (bench venv only: it needs torch).

The tokenizer is read with HF ``transformers.PreTrainedTokenizerFast`` from the tokenizer.json
text (no network) and turned into ``TokenizerInfo.from_huggingface`` with the bench's EOS ids.
Compile = ``GrammarCompiler(info, max_threads=1, cache_enabled=False).compile_regex`` (one
thread, like the other engines; no cache, so every compile is a real one).  Size is the length
of ``CompiledGrammar.serialize_json()``; ``memory_size_bytes`` goes to the extra figures.  The
walk is ``fill_next_token_bitmask`` into its torch int32 row and ``accept_token``.
xgrammar's regex reader refuses a raw newline inside a character class ("Character class
should not contain newline"), so raw newlines are passed as the escape ``\\n``, which means
the same character.
xgrammar's ``\\d \\w \\s`` are ASCII (DESIGN.md), so on Unicode-class regexes it answers a
slightly different question.
"""

from __future__ import annotations

from typing import Sequence

import xgrammar
from tokenizers import Tokenizer
from transformers import PreTrainedTokenizerFast

from bench.engines.common import Compiled, MaskWalk, bit_is_set
from tests.reference.tokenizer_source import tokenizer_json_text


class XgrammarEngine:
    name = "xgrammar"

    def load_tokenizer(self, tokenizer_path: str, eos_ids: Sequence[int]) -> xgrammar.GrammarCompiler:
        hf = PreTrainedTokenizerFast(tokenizer_object=Tokenizer.from_str(tokenizer_json_text(tokenizer_path)))
        info = xgrammar.TokenizerInfo.from_huggingface(hf, stop_token_ids=list(eos_ids))
        return xgrammar.GrammarCompiler(info, max_threads=1, cache_enabled=False)

    def compile(self, tokenizer: xgrammar.GrammarCompiler, regex: str) -> Compiled:
        grammar = tokenizer.compile_regex(regex.replace("\n", "\\n"))
        return Compiled(grammar, serialized_bytes=len(grammar.serialize_json().encode("utf-8")),
                        extra={"memory_size_bytes": int(grammar.memory_size_bytes)})

    def start_walk(self, compiled: Compiled) -> MaskWalk:
        grammar = compiled.handle
        matcher = xgrammar.GrammarMatcher(grammar)
        bitmask = xgrammar.allocate_token_bitmask(1, grammar.tokenizer_info.vocab_size)
        row = bitmask.numpy()[0]  # shares memory with the torch tensor

        def advance(token: int) -> None:
            if not matcher.accept_token(token):
                raise ValueError("accept_token returned False")

        return MaskWalk(
            fill=lambda: matcher.fill_next_token_bitmask(bitmask),
            allows=lambda token: bit_is_set(row, token),
            advance=advance,
        )


ENGINE = XgrammarEngine()

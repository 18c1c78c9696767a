"""llguidance as a benchmark competitor, with forcing off (the masks DESIGN.md calls exact).

Compile = building an ``LLMatcher`` from the grammar ``start: /regex/``.  llguidance compiles
lazily: the constructor parses the regex and sets up its derivative-based lexer, and the lexer
states (and the token-trie walks behind each mask) are built the first time a mask needs them.
So its compile times are tiny and its first masks carry the work an ahead-of-time engine does
at compile time; the walk is the serving path (``fill_next_token_bitmask`` into an int32 row,
``consume_token``).  llguidance has no serialized form: size is reported as absent.
"""

from __future__ import annotations

from typing import Sequence

import llguidance
import llguidance.numpy

from bench.engines.common import Compiled, MaskWalk, bit_is_set, new_bitmask
from tests.reference.llguidance_oracle import LlgOracle, OracleError, regex_grammar


class LlguidanceEngine:
    name = "llguidance"

    def load_tokenizer(self, tokenizer_path: str, eos_ids: Sequence[int]) -> LlgOracle:
        return LlgOracle(tokenizer_path, eos_ids=eos_ids)

    def compile(self, tokenizer: LlgOracle, regex: str) -> Compiled:
        matcher = llguidance.LLMatcher(tokenizer.tokenizer, regex_grammar(regex), log_level=0)
        if matcher.is_error():
            raise OracleError(matcher.get_error().strip().splitlines()[0])
        return Compiled((tokenizer, matcher))

    def start_walk(self, compiled: Compiled) -> MaskWalk:
        tokenizer, matcher = compiled.handle
        matcher.reset()  # each walk starts from the start state (the lexer state built so far is kept)
        bitmask = new_bitmask(tokenizer.vocab_size)

        def advance(token: int) -> None:
            if not matcher.consume_token(token):
                raise ValueError(matcher.get_error().strip().splitlines()[0])

        return MaskWalk(
            fill=lambda: llguidance.numpy.fill_next_token_bitmask(matcher, bitmask),
            allows=lambda token: bit_is_set(bitmask[0], token),
            advance=advance,
        )


ENGINE = LlguidanceEngine()

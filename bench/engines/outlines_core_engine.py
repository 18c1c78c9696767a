"""outlines-core 0.2.14 as a benchmark competitor: the ahead-of-time regex index to beat.

Compile = ``Index(regex, vocabulary)``; the vocabulary object is built once per tokenizer
from token bytes (see ``tests/reference/outlines_oracle.py``) and is not timed.  Size is the
blob outlines-core pickles an index as; states are counted from ``get_transitions`` after the
timings.  The walk uses ``Guide.write_mask_into`` (an int32 bitmask, its serving path) and
``Guide.advance(token, return_tokens=False)``.  Remember its masks drop tokens that leave an
accepting state: a "no" in the accepted column is a finding about outlines-core, not a bug here.
"""

from __future__ import annotations

from typing import Sequence

import outlines_core

from bench.engines.common import Compiled, MaskWalk, bit_is_set, new_bitmask
from tests.reference.outlines_oracle import OutlinesOracle


class OutlinesCoreEngine:
    name = "outlines-core"

    def load_tokenizer(self, tokenizer_path: str, eos_ids: Sequence[int]) -> OutlinesOracle:
        return OutlinesOracle(tokenizer_path, eos_ids=eos_ids)

    def compile(self, tokenizer: OutlinesOracle, regex: str) -> Compiled:
        index = tokenizer.index(regex)
        return Compiled((tokenizer, index), serialized_bytes=index.serialized_bytes)

    def describe(self, compiled: Compiled) -> None:
        """Fill in the state count (slow on big indexes, so after the timings)."""
        compiled.states = compiled.handle[1].n_states

    def start_walk(self, compiled: Compiled) -> MaskWalk:
        tokenizer, index = compiled.handle
        guide = outlines_core.Guide(index.index)
        bitmask = new_bitmask(tokenizer.vocab_size)
        return MaskWalk(
            fill=lambda: guide.write_mask_into(bitmask.ctypes.data, bitmask.size, 4),
            allows=lambda token: bit_is_set(bitmask[0], token),
            advance=lambda token: guide.advance(token, return_tokens=False),
        )


ENGINE = OutlinesCoreEngine()

"""outlines-core 0.2.14 as a speed and size anchor: build time, serialized size, states, masks.

Not an oracle.  outlines-core drops every token that would leave an accepting state into an
unfinished continuation: with the vocabulary ``{1, ., 2}``, ``1(\\.2)?`` allows only EOS after
``1``, and ``a|ab`` can never produce ``ab`` (``test_outlines_oracle.py`` pins both).  Its
masks are a subset of the exact ones; compare sizes and times with it, never masks.

Vocabulary.  ``outlines_core.Vocabulary.from_pretrained`` downloads from the Hub, which is not
available here, so the vocabulary is built from token bytes:
``Vocabulary(eos_id, {token_bytes: [ids]})``, every id with the same bytes under one key.  The
bytes of each id are read through llguidance (``LlgOracle.token_table``), whose decoding of
byte-level BPE and ``<0xNN>``/``▁`` pieces is independent of indexc's.  Special tokens are left
out, and so is the single-byte 0xFF token, which llguidance marks as special (no UTF-8 regex
can use it).  outlines-core takes a single EOS id: the first of the tokenizer's.

Serialized size.  outlines-core serializes an ``Index`` through ``__reduce__`` as
``(Index.from_binary, (blob,))``; ``serialized_bytes`` is ``len(blob)``, which is what a pickle
of the index stores (the test checks it against ``pickle.dumps`` in memory; nothing is ever
written to disk).

Figures (Llama-3 vocabulary, this machine): building the vocabulary object takes about 0.3 s;
an index takes 0.04 s (simple_phone) to 35-55 s (``[\\w ]{1,60}``, 19,275 states, a 110 MB
blob); see ``bench/README.md`` for the per-regex table.
"""

from __future__ import annotations

import time
from collections import defaultdict
from functools import cached_property
from typing import Sequence

import numpy as np
import outlines_core

from .llguidance_oracle import LlgOracle
from .tokenizer_source import TokenizerSource


class OutlinesError(ValueError):
    """outlines-core refused the regex or the vocabulary."""


def outlines_vocabulary(tokens: Sequence[bytes | None], eos_id: int) -> outlines_core.Vocabulary:
    """An outlines-core vocabulary from bytes per id (``None``: special, left out)."""
    by_bytes: dict[bytes, list[int]] = defaultdict(list)
    for token_id, raw in enumerate(tokens):
        if raw and token_id != eos_id:
            by_bytes[raw].append(token_id)
    return outlines_core.Vocabulary(int(eos_id), dict(by_bytes))


class OutlinesIndex:
    """One compiled regex: build time, serialized size, states, and walks through the index."""

    def __init__(self, index: outlines_core.Index, build_ms: float):
        self.index = index
        self.build_ms = build_ms
        self.initial_state = int(index.get_initial_state())

    @cached_property
    def serialized_bytes(self) -> int:
        _, (blob,) = self.index.__reduce__()
        return len(blob)

    @cached_property
    def n_states(self) -> int:
        """Every state of the token-level index (costly on large indexes: builds a dict)."""
        transitions = self.index.get_transitions()
        states = set(transitions)
        for moves in transitions.values():
            states.update(moves.values())
        return len(states | set(self.index.get_final_states()))

    def allowed_ids(self, state: int) -> np.ndarray:
        """Sorted ids outlines-core allows in ``state`` (EOS included in final states)."""
        allowed = self.index.get_allowed_tokens(state)
        return np.unique(np.array(allowed if allowed is not None else [], dtype=np.int64))

    def next_state(self, state: int, token_id: int) -> int | None:
        nxt = self.index.get_next_state(state, int(token_id))
        return None if nxt is None else int(nxt)

    def is_final(self, state: int) -> bool:
        return bool(self.index.is_final_state(state))

    def walk(self, token_ids: Sequence[int]) -> int | None:
        """The state after ``token_ids`` from the start, ``None`` if a token is refused."""
        state: int | None = self.initial_state
        for token_id in token_ids:
            state = self.next_state(state, token_id)
            if state is None:
                return None
        return state

    def accepts(self, token_ids: Sequence[int]) -> bool:
        state = self.walk(token_ids)
        return state is not None and self.is_final(state)


class OutlinesOracle:
    """outlines-core on one vocabulary; ``index(regex)`` builds and times an index."""

    def __init__(self, tokenizer: TokenizerSource, *, eos_ids: Sequence[int] | None = None):
        llg = LlgOracle(tokenizer, eos_ids=eos_ids)
        self._init_from(llg.token_table(), int(llg.eos_ids[0]))

    @classmethod
    def from_token_bytes(cls, tokens: Sequence[bytes | None], eos_id: int) -> "OutlinesOracle":
        oracle = cls.__new__(cls)
        oracle._init_from(tokens, eos_id)
        return oracle

    def _init_from(self, tokens: Sequence[bytes | None], eos_id: int) -> None:
        self.eos_id = eos_id
        self.vocab_size = len(tokens)
        started = time.perf_counter()
        self.vocabulary = outlines_vocabulary(tokens, eos_id)
        self.vocabulary_ms = (time.perf_counter() - started) * 1000.0

    def index(self, pattern: str) -> OutlinesIndex:
        started = time.perf_counter()
        try:
            index = outlines_core.Index(pattern, self.vocabulary)
        except Exception as exc:  # outlines-core raises plain ValueError from Rust
            raise OutlinesError(f"outlines-core refused regex {pattern!r}: {exc}") from exc
        return OutlinesIndex(index, (time.perf_counter() - started) * 1000.0)

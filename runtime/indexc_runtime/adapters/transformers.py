"""A Hugging Face transformers ``LogitsProcessor`` that constrains ``generate`` with indexc artifacts.

transformers' convention: ``generate`` calls every processor of its ``logits_processor`` list
once per step with ``input_ids`` (``(batch, length)``: the prompt, left-padded in a batch, then
the tokens generated so far) and ``scores`` (``(batch, vocab)`` logits of the next token), and
samples from what the processor returns.  A processor is built before the call and does not
see the prompt length, so the first call sets it: every column present then is prompt.  From
the second call on, the columns past what the matchers have seen are the tokens ``generate``
appended (one per step), and each row's matcher advances on them.

A sequence whose matcher accepted an end-of-sequence id is finished for the constraint; for
``generate`` it stays in the batch (its later tokens are ``pad_token_id``, which the matcher
ignores), and its row must not be all -inf (sampling a row of -inf fails: NaN probabilities),
so it allows the artifact's stop ids.  Pass the artifact's stop set as ``eos_token_id`` to
``generate`` (``processor.stop_token_ids``) so that it stops on each of them.

One processor serves one ``generate`` call at a time; a call whose ``input_ids`` is not the
continuation of what it saw (a new prompt, a different batch size) starts it afresh, as does
``reset()``.  Beam search reorders the sequences between steps, which this processor cannot
follow: use sampling or greedy search (the matchers would refuse a reordered token and raise
``TokenNotAllowed``, never constrain the wrong sequence silently).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
from transformers import LogitsProcessor

from indexc_runtime.batch import fill_bitmasks
from indexc_runtime.logits import allow_tokens, apply_bitmask


class IndexcLogitsProcessor(LogitsProcessor):
    """Constrain each sequence of ``generate`` to its artifact: one Index for all, or one per sequence."""

    def __init__(self, indexes):
        """``indexes``: an ``Index`` (every sequence) or a sequence of them (sequence ``i`` follows ``indexes[i]``)."""
        self._indexes = list(indexes) if isinstance(indexes, Sequence) else None
        self._index = None if self._indexes is not None else indexes
        if self._indexes is not None and not self._indexes:
            raise ValueError("IndexcLogitsProcessor needs at least one Index")
        every = self._indexes or [self._index]
        self.stop_token_ids: list[int] = sorted({eos for index in every for eos in index.eos_token_ids})
        self._matchers: list = []
        self._seen = 0  # columns of input_ids the matchers have consumed (the prompt included)
        self._bitmask = np.zeros((0, 0), dtype=np.int32)

    def reset(self) -> None:
        """Forget the current generation: the next call starts from a new prompt."""
        self._matchers = []
        self._seen = 0

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        batch, length = input_ids.shape
        if not self._continues(batch, length):
            self._start(batch, length)
        else:
            self._advance(input_ids)
        fill_bitmasks(self._matchers, self._bitmask)
        self._allow_stop_on_finished_rows()
        return apply_bitmask(scores, self._bitmask)

    def _continues(self, batch: int, length: int) -> bool:
        return len(self._matchers) == batch and length > self._seen

    def _start(self, batch: int, prompt_length: int) -> None:
        every = self._indexes if self._indexes is not None else [self._index] * batch
        if len(every) != batch:
            raise ValueError(f"{len(every)} indexes for a batch of {batch} sequences")
        self._matchers = [index.matcher() for index in every]
        self._stops = [index.eos_token_ids for index in every]
        self._seen = prompt_length
        words = max(index.mask_words for index in every)
        if self._bitmask.shape != (batch, words):
            self._bitmask = np.zeros((batch, words), dtype=np.int32)

    def _advance(self, input_ids: torch.LongTensor) -> None:
        new_tokens = input_ids[:, self._seen :].tolist()
        self._seen = input_ids.shape[1]
        for matcher, tokens in zip(self._matchers, new_tokens):
            for token in tokens:
                if matcher.is_finished():
                    break  # generate pads a finished sequence
                matcher.advance(token)

    def _allow_stop_on_finished_rows(self) -> None:
        for row, (matcher, stops) in enumerate(zip(self._matchers, self._stops)):
            if matcher.is_finished():
                allow_tokens(self._bitmask[row], stops)

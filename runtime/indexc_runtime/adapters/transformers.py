"""A Hugging Face transformers ``LogitsProcessor`` that constrains ``generate`` with indexc artifacts.

transformers' convention: ``generate`` calls every processor of its ``logits_processor`` list
once per step with ``input_ids`` (``(batch, length)``: the prompt, left-padded in a batch, then
the tokens generated so far) and ``scores`` (``(batch, vocab)`` logits of the next token), and
samples from what the processor returns.  A processor is built before the call and does not
see the prompt length, so the first call sets it: every column present then is prompt.  From
the second call on, the columns past the previous call's are the tokens ``generate`` appended
(one per step), and each row's matcher advances on them.

A sequence whose matcher accepted an end-of-sequence id is finished for the constraint; for
``generate`` it stays in the batch (its later tokens are ``pad_token_id``, which the matcher
ignores), and its row must not be all -inf (sampling a row of -inf fails: NaN probabilities),
so it allows the artifact's stop ids.  Pass the artifact's stop set as ``eos_token_id`` to
``generate`` (``processor.stop_token_ids``) so that it stops on each of them.

One processor serves one ``generate`` call at a time; a call whose ``input_ids`` does not
extend the previous call's (a new prompt, a different batch size: the prefix is compared, a
``(batch, length)`` equality per step) starts it afresh, as does ``reset()``.  Beam search reorders the sequences between steps, which this processor cannot
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
        self._stops: list[tuple[int, ...]] = []
        self._previous: torch.Tensor | None = None  # the input_ids of the last call
        self._bitmask = np.zeros((0, 0), dtype=np.int32)

    def reset(self) -> None:
        """Forget the current generation: the next call starts from a new prompt."""
        self._matchers = []
        self._previous = None

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        if self._continues(input_ids):
            self._advance(input_ids)
        else:
            self._start(input_ids.shape[0])
        self._previous = input_ids.clone()
        fill_bitmasks(self._matchers, self._bitmask)
        self._allow_stop_on_finished_rows()
        return apply_bitmask(scores, self._bitmask)

    def _continues(self, input_ids: torch.Tensor) -> bool:
        """Is ``input_ids`` the last call's plus new columns (the same generation, a step later)?"""
        previous = self._previous
        return (previous is not None and input_ids.shape[0] == previous.shape[0]
                and input_ids.shape[1] > previous.shape[1]
                and torch.equal(input_ids[:, : previous.shape[1]], previous))

    def _start(self, batch: int) -> None:
        every = self._indexes if self._indexes is not None else [self._index] * batch
        if len(every) != batch:
            raise ValueError(f"{len(every)} indexes for a batch of {batch} sequences")
        self._matchers = [index.matcher() for index in every]
        self._stops = [index.eos_token_ids for index in every]
        words = max(index.mask_words for index in every)
        if self._bitmask.shape != (batch, words):
            self._bitmask = np.zeros((batch, words), dtype=np.int32)

    def _advance(self, input_ids: torch.LongTensor) -> None:
        new_tokens = input_ids[:, self._previous.shape[1] :].tolist()
        for matcher, tokens in zip(self._matchers, new_tokens):
            for token in tokens:
                if matcher.is_finished():
                    break  # generate pads a finished sequence
                matcher.advance(token)

    def _allow_stop_on_finished_rows(self) -> None:
        for row, (matcher, stops) in enumerate(zip(self._matchers, self._stops)):
            if matcher.is_finished():
                allow_tokens(self._bitmask[row], stops)

"""Dropping a grammar index and its matchers frees the parser memo at once, by reference
counting: nothing of it waits for the cycle collector (``unions`` says why that matters: a
full collection that finds an index's memo frees tens of thousands of objects inside some
later, unrelated mask call)."""

from __future__ import annotations

import gc

import numpy as np
import pytest

from tests.grammar_path.helpers import compiled_index, small_vocabulary
from tests.grammar_path.test_hand_written_vs_oracle import CASES


def _walk_every_mask(index, vocab, steps: int = 12) -> None:
    """Fill and advance along the first allowed text token, as a sequence would."""
    row = np.zeros((1, index.mask_words), dtype=np.int32)
    matcher = index.matcher()
    for _ in range(steps):
        matcher.fill_bitmask(row, row=0)
        allowed = np.flatnonzero(np.unpackbits(row.view(np.uint8), bitorder="little")[: vocab.size])
        text = [t for t in allowed.tolist() if t not in vocab.eos_ids]
        if not text:
            break
        matcher.advance(text[len(text) // 2])
    matcher.rollback(1)


@pytest.mark.parametrize("warm_up, keys", [(0, False), (64, False), (64, True)],
                         ids=["no_stored_memo", "stored_memo_matched", "language_keys"])
def test_a_dropped_index_leaves_no_cycle_behind(tmp_path, warm_up, keys):
    """``warm_up``: tokens of sampled sentences stored (format 7): the memo's hooks that match
    them (``stored_match``) must not close a cycle either, nor the language keys (format 8)."""
    for name in ("quoted_strings", "literal_then_body", "nested_brackets"):
        ir, pieces = CASES[name]
        vocab = small_vocabulary(pieces)
        index = compiled_index(ir, vocab, tmp_path, f"{name}.idx", sampled_warm_up=warm_up, language_keys=keys)
        assert (index._stored_memo.n_configs > 0) == bool(warm_up)
        assert (index._stored_memo.n_languages > 0) == keys
        gc.collect()
        was_enabled = gc.isenabled()
        gc.disable()
        try:
            _walk_every_mask(index, vocab)
            del index
            gc.set_debug(gc.DEBUG_SAVEALL)
            gc.collect()
            left = sorted({type(o).__qualname__ for o in gc.garbage
                           if type(o).__module__.startswith("indexc_runtime")})
        finally:
            gc.set_debug(0)
            gc.garbage.clear()
            if was_enabled:
                gc.enable()
        assert left == [], (name, left)

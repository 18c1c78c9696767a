"""Masks by future (``indexc_runtime.grammar.futures``): configurations whose threads differ only
in origins that scan to the same set share one mask, and the shared mask is the one the
configuration has on its own (a fresh index walked straight to it)."""

from __future__ import annotations

import numpy as np

import indexc_runtime
from indexc_runtime.grammar.futures import FutureMasks, future_key
from tests.grammar_path.helpers import compiled_index, grammar, small_vocabulary

LIST = grammar("s", {"s": [["LB", "items", "RB"]], "items": [["STR"], ["items", "COMMA", "STR"]]},
               {"LB": r"\[", "RB": r"\]", "COMMA": ",", "STR": r'"[a-z]*"'})
PIECES = [b"[", b"]", b",", b'"', b"a", b"b", b"ab", b'",', b'"]', b'","', b'",""', b'"],', b",\"a"]


def ids(vocab, *pieces: bytes) -> list[int]:
    return [vocab.token_bytes.index(p) for p in pieces]


def masks_along(index, tokens: list[int]) -> tuple[list[bytes], list[int]]:
    """The bitmask before each token and after the last, and the configuration there."""
    matcher = index.matcher()
    out = np.zeros((1, index.mask_words), dtype=np.int32)
    masks, states = [], []
    for token in [*tokens, None]:
        matcher.fill_bitmask(out)
        masks.append(out.tobytes())
        states.append(matcher.state)
        if token is not None:
            matcher.advance(token)
    return masks, states


def test_the_second_string_of_a_list_shares_the_first_ones_mask(tmp_path):
    vocab = small_vocabulary(PIECES)
    index = compiled_index(LIST, vocab, tmp_path)
    first = ids(vocab, b"[", b'"', b"a")
    second = ids(vocab, b"[", b'"', b"b", b'"', b",", b'"', b"a")
    masks_first, states_first = masks_along(index, first)
    masks_second, states_second = masks_along(index, second)  # the same index: its memo answers
    memo = index.matcher()._memo
    a, b = states_first[-1], states_second[-1]
    assert a != b  # two configurations (origins: the sets after "[" and after ",") ...
    assert future_key(memo.configs, index._lexer, a) == future_key(memo.configs, index._lexer, b)  # ... one future
    assert masks_second[-1] == masks_first[-1]
    alone = indexc_runtime.load(tmp_path / "g.idx")  # no earlier walk: every mask computed
    assert masks_along(alone, second)[0] == masks_second


def test_kept_rows_come_back_equal_compact_or_full():
    words = 64
    base = {(1,): np.arange(words, dtype=np.int32) & 0x0F0F}
    memo = FutureMasks(lambda mask_ids: base[mask_ids])
    sparse = base[(1,)].copy()
    sparse[[3, 40]] |= np.int32(-0x80000000)
    dense = np.full(words, -1, dtype=np.int32)
    memo.put("sparse", sparse, (1,))
    memo.put("dense", dense, (1,))
    assert np.array_equal(memo.get("sparse"), sparse) and np.array_equal(memo.get("dense"), dense)
    assert memo.get("other") is None


def test_the_memo_drops_least_recently_used_rows_past_its_bytes():
    words = 64
    base = np.zeros(words, dtype=np.int32)
    memo = FutureMasks(lambda mask_ids: base, max_bytes=3 * (words * 4 + 200))
    rows = {k: np.full(words, k + 1, dtype=np.int32) for k in range(4)}  # every word differs: full rows
    for k in range(3):
        memo.put(k, rows[k], ())
    assert memo.get(0) is not None  # 0 used last: 1 is the oldest
    memo.put(3, rows[3], ())
    assert memo.get(1) is None and all(memo.get(k) is not None for k in (0, 2, 3))

"""Batch serving: ``fill_bitmasks`` over mixed batches, ``apply_bitmask`` on numpy and torch, stop sets.

Every batch fill is checked against each matcher's own ``fill_bitmask`` (itself checked against
brute-force masks in ``test_runtime_matcher``), over buffers full of garbage so a forgotten word
shows.  Batches of 64 and more take the grouped path of ``batch``, smaller ones the row loop:
both are exercised, with every mask form (the 128k-id table of ``handmade.big_table``).
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import torch

import handmade
import indexc_runtime
from indexc_runtime import TokenNotAllowed, apply_bitmask, fill_bitmasks
from indexc_runtime.batch import VECTOR_MIN_ROWS

GARBAGE = 0x5A5A5A5A
TOKEN_ID = {raw: i for i, raw in enumerate(handmade.NUMBER_TOKENS) if raw is not None}
BIG_MASKS = handmade.big_masks()


@pytest.fixture(scope="module")
def big_index(big_artifact):
    return indexc_runtime.load(big_artifact)


@pytest.fixture
def letters_index(tmp_path):
    """abc(d|e) over a 40-id vocabulary like NUMBER's: another artifact with the same bitmask width."""
    tokens = [b"a", b"b", b"c", b"d", None] + [b"x"] * 35
    path = tmp_path / "letters.idx"
    handmade.write_handmade(path, handmade.FORCED, tokens, (4,), "letters")
    return indexc_runtime.load(path)


def big_matcher(big_index, state: int):
    """A matcher walked to ``state`` of the big table (0 -> 1 -> 2 -> 0 on any text token; 2 -> eos)."""
    matcher = big_index.matcher()
    for step in range(state):
        matcher.advance(int(BIG_MASKS[step][0]))
    assert matcher.state == state
    return matcher


def row_by_row(matchers, words: int) -> np.ndarray:
    expected = np.full((len(matchers), words), GARBAGE, dtype=np.int32)
    for row, matcher in enumerate(matchers):
        matcher.fill_bitmask(expected, row)
    return expected


@pytest.mark.parametrize("batch", [1, 5, VECTOR_MIN_ROWS, 64, 256])
def test_a_batch_fill_equals_each_matchers_own_fill_in_every_mask_form(big_index, batch):
    rng = np.random.default_rng(batch)
    matchers = [big_matcher(big_index, int(state)) for state in rng.integers(0, 3, size=batch)]
    for matcher in matchers[::7]:
        if matcher.state == 2:
            matcher.advance(handmade.BIG_EOS[0])  # finished: an all-zero row
    out = np.full((batch + 2, big_index.mask_words), GARBAGE, dtype=np.int32)
    fill_bitmasks(matchers, out)
    assert np.array_equal(out[:batch], row_by_row(matchers, big_index.mask_words))
    assert (out[batch:] == GARBAGE).all()  # rows past the batch are not touched


def test_the_grouped_path_writes_each_distinct_mask_once_per_row(big_index):
    """All of one state (one mask, broadcast) and alternating states (mostly distinct per group)."""
    for states in ([1] * 100, [0, 1, 2] * 40):
        matchers = [big_matcher(big_index, state) for state in states]
        out = np.full((len(matchers), big_index.mask_words), GARBAGE, dtype=np.int32)
        fill_bitmasks(matchers, out)
        assert np.array_equal(out, row_by_row(matchers, big_index.mask_words))


@pytest.mark.parametrize("batch", [3, 70])
def test_matchers_of_different_artifacts_share_one_bitmask(number_index, letters_index, batch):
    matchers = []
    for row in range(batch):
        matcher = (number_index if row % 2 else letters_index).matcher()
        if row % 3 == 0:
            matcher.advance(TOKEN_ID[b"-"] if row % 2 else 0)  # "-" or "a"
        matchers.append(matcher)
    out = np.full((batch, number_index.mask_words), GARBAGE, dtype=np.int32)
    fill_bitmasks(matchers, out)
    assert np.array_equal(out, row_by_row(matchers, number_index.mask_words))


class RecordingMatcher:
    """Any other kind of matcher (a grammar matcher, say): it fills its own row."""

    def __init__(self, value: int):
        self.value = value
        self.calls: list[int] = []

    def fill_bitmask(self, out: np.ndarray, row: int = 0) -> None:
        self.calls.append(row)
        out[row] = self.value


@pytest.mark.parametrize("batch", [4, 80])
def test_other_matchers_fill_their_own_rows(number_index, batch):
    matchers = [RecordingMatcher(row) if row % 4 == 1 else number_index.matcher() for row in range(batch)]
    out = np.full((batch, number_index.mask_words), GARBAGE, dtype=np.int32)
    fill_bitmasks(matchers, out)
    for row, matcher in enumerate(matchers):
        if isinstance(matcher, RecordingMatcher):
            assert matcher.calls == [row] and (out[row] == row).all()
        else:
            assert handmade.bitmask_to_ids(out[row]) == handmade.brute_force_masks(
                handmade.NUMBER, handmade.NUMBER_TOKENS, handmade.NUMBER_EOS)[0]


@pytest.mark.parametrize("batch", [2, 40])
def test_a_bitmask_wider_than_the_vocabulary_has_zero_padding_words(big_index, batch):
    """A model vocabulary padded beyond the tokenizer's: the extra words never allow anything."""
    matchers = [big_matcher(big_index, row % 3) for row in range(batch)]
    matchers[0].advance(int(BIG_MASKS[0][0])); matchers[0].advance(int(BIG_MASKS[1][0]))
    matchers[0].advance(handmade.BIG_EOS[1])  # finished
    out = np.full((batch, big_index.mask_words + 3), GARBAGE, dtype=np.int32)
    fill_bitmasks(matchers, out)
    assert (out[:, big_index.mask_words:] == 0).all()
    assert np.array_equal(out[:, : big_index.mask_words], row_by_row(matchers, big_index.mask_words))


def test_a_bitmask_narrower_than_a_vocabulary_or_of_another_kind_is_refused(big_index, number_index):
    with pytest.raises(ValueError, match="has only 2 words per row"):
        fill_bitmasks([number_index.matcher(), big_index.matcher()], np.zeros((2, 2), dtype=np.int32))
    with pytest.raises(ValueError, match="int32 numpy array"):
        fill_bitmasks([number_index.matcher()], np.zeros((1, 2), dtype=np.int64))
    with pytest.raises(ValueError, match="need a bitmask of at least 2 rows"):
        fill_bitmasks([number_index.matcher()] * 2, np.zeros((1, 2), dtype=np.int32))


# ---- apply_bitmask ----

def random_bitmask(rows: int, vocab: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(bitmask, allowed booleans): random bits below ``vocab``, none at or above it."""
    rng = np.random.default_rng(seed)
    allowed = rng.random((rows, vocab)) < 0.3
    words = (vocab + 31) // 32
    padded = np.zeros((rows, 32 * words), dtype=bool)
    padded[:, :vocab] = allowed
    bitmask = np.packbits(padded, axis=1, bitorder="little").view("<i4").reshape(rows, words)
    return np.ascontiguousarray(bitmask, dtype=np.int32), allowed


@pytest.mark.parametrize("backend", ["numpy", "torch"])
@pytest.mark.parametrize("model_vocab", [1000, 1003, 1040, 1100])
def test_apply_bitmask_masks_disallowed_and_padding_ids_in_place(backend, model_vocab):
    tokenizer_vocab = 1003  # 32 words: ids 1003..1023 have zero bits, ids >= 1024 have none
    bitmask, allowed = random_bitmask(3, tokenizer_vocab)
    logits = np.random.default_rng(1).standard_normal((3, model_vocab)).astype(np.float32)
    expected = logits.copy()
    keep = np.zeros((3, model_vocab), dtype=bool)
    span = min(model_vocab, tokenizer_vocab)
    keep[:, :span] = allowed[:, :span]
    expected[~keep] = -np.inf
    given = logits if backend == "numpy" else torch.from_numpy(logits.copy())
    result = apply_bitmask(given, bitmask if backend == "numpy" else torch.from_numpy(bitmask))
    assert result is given
    assert np.array_equal(np.asarray(given), expected)


@pytest.mark.parametrize("backend", ["numpy", "torch"])
def test_apply_bitmask_takes_one_row_of_logits(backend):
    bitmask, allowed = random_bitmask(1, 100, seed=3)
    logits = np.zeros(128, dtype=np.float64)
    given = logits if backend == "numpy" else torch.zeros(128, dtype=torch.float64)
    for mask in (bitmask[0], bitmask):  # (W,) or (1, W)
        apply_bitmask(given, mask)
        finite = np.flatnonzero(np.isfinite(np.asarray(given)))
        assert finite.tolist() == np.flatnonzero(allowed[0]).tolist()


def test_apply_bitmask_refuses_what_cannot_hold_minus_infinity_or_does_not_pair_up():
    bitmask, _ = random_bitmask(2, 64)
    with pytest.raises(TypeError, match="floating point"):
        apply_bitmask(np.zeros((2, 64), dtype=np.int64), bitmask)
    with pytest.raises(ValueError, match="do not pair up"):
        apply_bitmask(np.zeros((3, 64), dtype=np.float32), bitmask)
    with pytest.raises(TypeError, match="int32"):
        apply_bitmask(np.zeros((2, 64), dtype=np.float32), bitmask.astype(np.int64))
    with pytest.raises(TypeError, match="numpy array or a torch tensor"):
        apply_bitmask([[0.0] * 64] * 2, bitmask)


def test_the_runtime_never_imports_torch_itself():
    code = ("import sys, numpy as np, indexc_runtime\n"
            "logits = np.zeros((1, 64), np.float32)\n"
            "indexc_runtime.apply_bitmask(logits, np.full((1, 2), -1, np.int32))\n"
            "assert 'torch' not in sys.modules and 'transformers' not in sys.modules\n")
    subprocess.run([sys.executable, "-c", code], check=True)


# ---- several stop ids ----

def test_every_stop_id_is_honoured_by_every_call(big_index):
    """The big table's eos set is {128001, 128009}: both in accepting masks, both finish, neither forced."""
    stops = handmade.BIG_EOS
    assert big_index.matcher().stop_token_ids == stops
    accepting = big_matcher(big_index, 2)
    assert accepting.is_accepting()
    out = np.zeros((VECTOR_MIN_ROWS * 2, big_index.mask_words), dtype=np.int32)
    fill_bitmasks([big_matcher(big_index, 2) for _ in range(out.shape[0])], out)
    for row in out:
        assert all((int(row[eos >> 5]) >> (eos & 31)) & 1 for eos in stops)
    assert accepting.forced_tokens() == [] and accepting.forced_bytes() == b""
    for eos in stops:
        assert accepting.validate_tokens([eos, 5]) == 1
        accepting.advance(eos)
        assert accepting.is_finished()
        accepting.rollback(1)
    running = big_matcher(big_index, 1)
    assert running.validate_tokens(list(stops)) == 0
    with pytest.raises(TokenNotAllowed, match="end-of-sequence is allowed only in accepting states"):
        running.advance(stops[1])


# ---- a real grammar matcher in the batch ----

@pytest.mark.parametrize("batch", [6, 48])
def test_grammar_matchers_and_regex_matchers_share_one_batch(tmp_path, batch):
    """Balanced parentheses (the grammar path) next to a regex over the same vocabulary."""
    from indexc.pipeline import compile_regex, write
    from indexc.trie import build_trie
    from tests.grammar_path.helpers import compiled_index, grammar, small_vocabulary

    vocab = small_vocabulary([b"(", b")", b"x", b"((", b"))", b"()", b"(x)", b"xx"])
    parens = compiled_index(grammar("s", {"s": [["LP", "s", "RP"], ["X"]]}, {"LP": r"\(", "RP": r"\)", "X": "x"}),
                            vocab, tmp_path)
    regex_path = tmp_path / "r.idx"
    write(compile_regex(r"\(*x+\)*", vocab, build_trie(vocab)), vocab, str(regex_path))
    regex = indexc_runtime.load(regex_path)
    token_of = {raw: i for i, raw in enumerate(vocab.token_bytes)}
    matchers = []
    for row in range(batch):
        matcher = (parens if row % 2 == 0 else regex).matcher()
        for piece in [b"((", b"(x)"][: row % 3]:
            matcher.advance(token_of[piece])
        matchers.append(matcher)
    assert any(type(m) is not indexc_runtime.Matcher for m in matchers)
    out = np.full((batch, regex.mask_words), GARBAGE, dtype=np.int32)
    fill_bitmasks(matchers, out)
    assert np.array_equal(out, row_by_row(matchers, regex.mask_words))

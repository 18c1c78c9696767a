"""The parser memo shared by the matchers of one index: masks stay those of a lone matcher
(after other sequences, from several threads, across memo renewals at the limits)."""

from __future__ import annotations

import random
import sys
import threading

import numpy as np
import pytest

import indexc_runtime
from indexc_runtime.grammar import GrammarLimits
from tests.grammar_path.helpers import compiled_index, grammar, small_vocabulary

BRACKETS = grammar("s", {"s": [["LP", "s", "RP", "s"], ["LB", "s", "RB", "s"], []]},
                   {"LP": r"\(", "RP": r"\)", "LB": r"\[", "RB": r"\]"})
PIECES = [b"(", b")", b"[", b"]", b"()", b"((", b"))", b"[]", b"([", b"])", b"x"]


@pytest.fixture()
def artifact(tmp_path):
    vocab = small_vocabulary(PIECES)
    compiled_index(BRACKETS, vocab, tmp_path)
    return tmp_path / "g.idx"


def random_walk(index, seed: int, steps: int, limits: GrammarLimits | None = None) -> tuple[list[int], list[bytes]]:
    """Tokens chosen at random among the allowed ones, and the bitmask before each and after the last."""
    rng = random.Random(seed)
    matcher = index.matcher(limits)
    out = np.zeros((1, index.mask_words), dtype=np.int32)
    tokens, masks = [], []
    for _ in range(steps):
        matcher.fill_bitmask(out)
        masks.append(out.tobytes())
        allowed = [t for t in matcher.allowed_token_ids().tolist() if t not in index.eos_token_ids]
        if not allowed:
            return tokens, masks
        tokens.append(rng.choice(allowed))
        matcher.advance(tokens[-1])
    matcher.fill_bitmask(out)
    return tokens, masks + [out.tobytes()]


def replayed_masks(index, tokens: list[int], limits: GrammarLimits | None = None) -> list[bytes]:
    matcher = index.matcher(limits)
    out = np.zeros((1, index.mask_words), dtype=np.int32)
    masks = []
    for token in tokens:
        matcher.fill_bitmask(out)
        masks.append(out.tobytes())
        matcher.advance(token)
    matcher.fill_bitmask(out)
    return masks + [out.tobytes()]


def test_a_later_matcher_reuses_the_memo_and_gets_the_same_masks(artifact):
    shared, alone = indexc_runtime.load(artifact), indexc_runtime.load(artifact)
    tokens, masks = random_walk(shared, seed=1, steps=30)
    configs = len(shared.matcher()._configs)
    assert replayed_masks(shared, tokens)== masks
    assert len(shared.matcher()._configs) == configs  # the second walk found every row in the memo
    for seed in range(2, 6):  # other sequences on the shared index, each checked against a fresh index
        tokens, masks = random_walk(shared, seed=seed, steps=30)
        assert replayed_masks(indexc_runtime.load(artifact), tokens)== masks
    assert replayed_masks(alone, tokens)== masks


def test_matchers_in_threads_get_the_masks_of_a_lone_matcher(artifact):
    walks = [random_walk(indexc_runtime.load(artifact), seed=seed, steps=40)[0] for seed in range(8)]
    expected = [replayed_masks(indexc_runtime.load(artifact), tokens) for tokens in walks]
    shared = indexc_runtime.load(artifact)
    got: dict[int, list[bytes]] = {}

    def run(k: int) -> None:
        got[k] = replayed_masks(shared, walks[k])

    threads = [threading.Thread(target=run, args=(k,)) for k in range(len(walks))]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads every few bytecodes: inside interning, not between masks
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    assert [got[k] for k in range(len(walks))] == expected


def test_matchers_moving_to_a_fresh_memo_at_the_limits_keep_their_masks_and_rollback(artifact):
    # Nesting (s -> ( s ) s): every depth adds Earley sets, so three interleaved walks going
    # down and back up fill a small memo again and again: one matcher renews it, the others
    # move to that one when theirs is large.
    shared, alone = indexc_runtime.load(artifact), indexc_runtime.load(artifact)
    ids = {piece: k for k, piece in enumerate(small_vocabulary(PIECES).token_bytes)}
    rng = random.Random(7)
    walks = []
    for _ in range(3):
        walk = []
        while len(walk) < 60:
            depth, (down, up) = rng.randint(4, 12), rng.choice([(b"((", b"))"), (b"([", b"])")])
            walk += [ids[down]] * depth + [ids[up]] * depth
        walks.append(walk)
    small = GrammarLimits(max_configs=120, max_sets=120)
    matchers = [shared.matcher(small) for _ in walks]
    references = [alone.matcher() for _ in walks]
    memos = set()
    for step in range(min(len(walk) for walk in walks)):
        for matcher, reference, walk in zip(matchers, references, walks):
            assert np.array_equal(matcher.allowed_token_ids(), reference.allowed_token_ids())
            matcher.advance(walk[step])
            reference.advance(walk[step])
            memos.add(id(matcher._memo))
    assert len(memos) > 2  # the walks did move to fresh memos
    for matcher, reference in zip(matchers, references):
        matcher.rollback(3)
        reference.rollback(3)
        assert np.array_equal(matcher.allowed_token_ids(), reference.allowed_token_ids())
        assert matcher.is_accepting() == reference.is_accepting()


def test_the_numpy_table_reads_as_the_python_rows(artifact, monkeypatch):
    # the numpy table is written from the rows when read (configs.Configs.table): whatever the
    # order of Python steps, numpy walks and reads, a read sees every row and cell made before it
    from indexc_runtime.grammar import configs as configs_module
    from indexc_runtime.grammar.matcher import shared_memo

    monkeypatch.setattr(configs_module, "MAX_UNSYNCED_CELLS", 3)  # the bound's early write too
    index = indexc_runtime.load(artifact)
    configs = shared_memo(index, index.limits).current.configs
    for seed in range(6):
        random_walk(index, seed, 40)
        table = configs.table
        assert table.shape[0] >= len(configs.rows)
        assert np.array_equal(table[: len(configs.rows)], np.array(configs.rows, dtype=np.int32))
        assert (table[len(configs.rows):] == configs_module.UNKNOWN).all()

"""Futures keyed up to what one token can read (``indexc_runtime.grammar.horizon``): the masks stay
the oracle's, and positions in a counted repetition of a long terminal share their masks."""

from __future__ import annotations

import pytest

from tests.grammar_path.helpers import assert_walks_agree, compiled_index, grammar, small_vocabulary
from tests.grammar_path.test_hand_written_vs_oracle import CASES
from tests.reference.grammar_oracle import GrammarOracle

# A counted run of one to eight X (2 bytes), as a long JSON string counts its chunks: after the
# k-th X the parser expects another (if k < 8) or the closing bracket.  The tokens are at most
# 4 bytes (a horizon of 3), so from the middle of the k-th X a token sees at most the next two.
_RUN = {"s": [["LB", "X", "T1"]], **{f"T{k}": [["RB"], ["X", f"T{k + 1}"]] for k in range(1, 8)}, "T8": [["RB"]]}
COUNTED = grammar("s", _RUN, {"LB": r"\[", "RB": r"\]", "X": "[ab][ab]"})
COUNTED_PIECES = [b"[", b"]", b"a", b"b", b"ab", b"aa", b"bab", b"bab]", b"baba", b"ab]"]
WALK = [b"[", b"a", b"baba", b"baba", b"baba", b"b", b"]"]  # the middle of X 1, 3, 5 and 7


def _walk(index, vocab, pieces: list[bytes]) -> tuple[list[set[int]], int]:
    """The allowed ids before each piece and after the last, and the masks the walk computed."""
    from indexc_runtime.grammar.matcher import shared_memo

    matcher = index.matcher()
    walker = shared_memo(index, index.limits).current.walker
    before = walker.computed
    masks = []
    for piece in [*pieces, None]:
        masks.append(set(matcher.allowed_token_ids().tolist()))
        if piece is not None:
            matcher.advance(vocab.token_bytes.index(piece))
    return masks, walker.computed - before


def test_a_counted_run_shares_its_masks_and_keeps_the_oracles(tmp_path, monkeypatch):
    """``LONG_TERMINAL`` at 2: in the middle of X number 1, 3 and 5 what a token can read is
    the same (X, X or ``]``, then X or ``]``), so their masks are one future: the walk
    computes fewer masks than with every set told apart (``LONG_TERMINAL`` past any terminal),
    and the same ones; and the oracle's along random walks.  X number 7 is two from the end:
    its own future."""
    import indexc_runtime.grammar.horizon as horizon

    vocab = small_vocabulary(COUNTED_PIECES)
    monkeypatch.setattr(horizon, "LONG_TERMINAL", 2)
    shared, computed_shared = _walk(compiled_index(COUNTED, vocab, tmp_path, "a.idx"), vocab, WALK)
    monkeypatch.setattr(horizon, "LONG_TERMINAL", 1 << 20)
    exact, computed_exact = _walk(compiled_index(COUNTED, vocab, tmp_path, "b.idx"), vocab, WALK)
    assert shared == exact
    assert computed_shared == computed_exact - 2
    monkeypatch.setattr(horizon, "LONG_TERMINAL", 2)
    index = compiled_index(COUNTED, vocab, tmp_path, "c.idx")
    assert assert_walks_agree(index, GrammarOracle(COUNTED), vocab, walks=8, steps=12, seed=5) >= 8


# The same run, but what follows ``]`` depends on the count's parity: ``a`` after an odd
# number of X, ``b`` after an even one.  From the middle of an X, ``y]a`` reads to there.
_PARITY = {"s": [["LB", "X", "T1"]], "ODD": [["A"]], "EVEN": [["B"]],
           **{f"T{k}": [["RB", "ODD" if k % 2 else "EVEN"], ["X", f"T{k + 1}"]] for k in range(1, 8)},
           "T8": [["RB", "EVEN"]]}
PARITY = grammar("s", _PARITY, {"LB": r"\[", "RB": r"\]", "X": "[xy][xy]", "A": "a", "B": "b"})
PARITY_PIECES = [b"[", b"]", b"a", b"b", b"x", b"y", b"xy", b"yx", b"y]a", b"y]b", b"]a", b"]b"]


def test_a_short_terminal_keeps_apart_what_it_leads_to(tmp_path, monkeypatch):
    """After the k-th X the parser expects X (long) and ``]`` (short); the set ``]`` leads to
    differs with k's parity, so the signature keeps it by id: in the middle of X number 1, 3,
    5 and 7 the masks hold ``y]a``, in X number 2, 4 and 6 ``y]b``, as the oracle says at every
    step (a signature that let short terminals lead anywhere would serve one parity's mask
    for the other)."""
    import indexc_runtime.grammar.horizon as horizon

    monkeypatch.setattr(horizon, "LONG_TERMINAL", 2)
    vocab = small_vocabulary(PARITY_PIECES)
    index = compiled_index(PARITY, vocab, tmp_path)
    oracle = GrammarOracle(PARITY)
    token_bytes = [None if i in vocab.special_ids or i in vocab.eos_ids else b for i, b in enumerate(vocab.token_bytes)]
    matcher, prefix = index.matcher(), b""
    for piece in [b"[", b"x", *[b"yx"] * 6, b"y]a"]:  # the middle of X number 1 to 7, then the end
        text = set(matcher.allowed_token_ids().tolist()) - set(vocab.eos_ids)
        assert text == oracle.allowed_tokens(prefix, token_bytes) - set(vocab.eos_ids), prefix
        matcher.advance(vocab.token_bytes.index(piece))
        prefix += piece


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_terminal_taken_as_long_keeps_the_oracle_masks(name, tmp_path, monkeypatch):
    """``LONG_TERMINAL`` at 1: every thread keys its scan's set by signature, each level one byte
    closer to the horizon (the small vocabularies' longest token), through every expected
    terminal: the masks are the oracle's on every hand-written grammar."""
    import indexc_runtime.grammar.horizon as horizon

    monkeypatch.setattr(horizon, "LONG_TERMINAL", 1)
    monkeypatch.setattr(horizon, "MAX_SIGNATURE_TERMINALS", 1 << 20)
    signatures = []
    original = horizon.TokenHorizon._signature

    def counted(self, set_id, bytes_left):
        found = original(self, set_id, bytes_left)
        signatures.append(isinstance(found, tuple))
        return found

    monkeypatch.setattr(horizon.TokenHorizon, "_signature", counted)
    ir, pieces = CASES[name]
    vocab = small_vocabulary(pieces)
    index = compiled_index(ir, vocab, tmp_path)
    assert_walks_agree(index, GrammarOracle(ir), vocab, walks=6, steps=10, seed=len(name))
    # a signature needs a set expecting a long terminal after a long thread's lexeme: not in
    # one_terminal (never walked, never keyed by future) nor nullable_terminal (after its X
    # only the nullable ``y*`` may follow, whose shortest lexeme is empty)
    assert any(signatures) == (name not in {"one_terminal", "nullable_terminal"})


def test_a_horizon_past_its_limit_keeps_exact_keys(tmp_path, monkeypatch):
    """A vocabulary whose longest token is past ``MAX_HORIZON`` (a limit on the signature's
    recursion) gets exact keys: the counted run shares nothing, and its masks are the same."""
    import indexc_runtime.grammar.horizon as horizon

    vocab = small_vocabulary(COUNTED_PIECES)
    monkeypatch.setattr(horizon, "LONG_TERMINAL", 2)
    shared, computed_shared = _walk(compiled_index(COUNTED, vocab, tmp_path, "a.idx"), vocab, WALK)
    monkeypatch.setattr(horizon, "MAX_HORIZON", 2)  # the vocabulary's horizon is 3
    exact, computed_exact = _walk(compiled_index(COUNTED, vocab, tmp_path, "b.idx"), vocab, WALK)
    assert shared == exact and computed_exact == computed_shared + 2

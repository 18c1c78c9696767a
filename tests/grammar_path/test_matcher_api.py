"""The grammar matcher's API beyond masks: advance refusals, rollback, forced tokens, limits,
bitmask rows, and ``indexc_runtime.load`` dispatching on the artifact's kind."""

from __future__ import annotations

import numpy as np
import pytest

import indexc_runtime
from indexc_runtime import TokenNotAllowed
from indexc_runtime.grammar import GrammarIndex, GrammarLimitExceeded, GrammarLimits
from indexc_runtime.grammar.lexeme_paths import LexemePaths
from tests.grammar_path.helpers import EOS, bitmask_ids, compiled_index, grammar, small_vocabulary

BRACKETS = grammar("s", {"s": [["LP", "s", "RP", "s"], []]}, {"LP": r"\(", "RP": r"\)"})
PIECES = [b"(", b")", b"()", b"((", b"))", b"x"]


@pytest.fixture()
def brackets(tmp_path):
    vocab = small_vocabulary(PIECES)
    return compiled_index(BRACKETS, vocab, tmp_path), {b: i for i, b in enumerate(vocab.token_bytes)}


def test_load_returns_a_grammar_index_and_the_bitmask_matches_allowed_ids(brackets):
    index, ids = brackets
    assert isinstance(index, GrammarIndex)
    matcher = index.matcher()
    assert bitmask_ids(index, matcher) == set(matcher.allowed_token_ids().tolist()) == {EOS, ids[b"("], ids[b"()"], ids[b"(("]}


def test_a_refused_token_changes_nothing(brackets):
    index, ids = brackets
    matcher = index.matcher()
    before = matcher.allowed_token_ids()
    for token in (ids[b")"], ids[b"x"], index.vocab_size, -1):
        with pytest.raises((TokenNotAllowed, ValueError)):
            matcher.advance(token)
    assert np.array_equal(matcher.allowed_token_ids(), before)
    matcher.advance(ids[b"(("])
    with pytest.raises(TokenNotAllowed):
        matcher.advance(EOS)  # "((" is not a sentence
    assert not matcher.is_accepting()


def test_rollback_restores_masks_and_eos_finishes(brackets):
    index, ids = brackets
    matcher = index.matcher()
    seen = [matcher.allowed_token_ids()]
    for token in (ids[b"(("], ids[b")"], ids[b"()"], ids[b")"]):
        matcher.advance(token)
        seen.append(matcher.allowed_token_ids())
    assert matcher.is_accepting()
    matcher.advance(EOS)
    assert matcher.is_finished() and matcher.allowed_token_ids().size == 0 and bitmask_ids(index, matcher) == set()
    matcher.rollback(1)
    assert not matcher.is_finished()
    for back in range(1, 5):
        matcher.rollback(1)
        assert np.array_equal(matcher.allowed_token_ids(), seen[-1 - back])
    with pytest.raises(ValueError):
        matcher.rollback(1)


def test_forced_tokens_follow_single_token_masks(tmp_path):
    ir = grammar("s", {"s": [["KW", "NUM"]]}, {"KW": "let", "NUM": "[0-9]"})
    vocab = small_vocabulary([b"l", b"e", b"t", b"1", b"2"])
    index = compiled_index(ir, vocab, tmp_path)
    matcher = index.matcher()
    ids = {b: i for i, b in enumerate(vocab.token_bytes)}
    assert matcher.forced_tokens() == [ids[b"l"], ids[b"e"], ids[b"t"]]
    assert matcher.allowed_token_ids().tolist() == [ids[b"l"]]  # forced_tokens does not move
    for token in matcher.forced_tokens():
        matcher.advance(token)
    assert matcher.forced_tokens() == []  # "1" or "2"


def test_limits_raise_a_named_error(tmp_path):
    ir = grammar("e", {"e": [["e", "e"], ["A"]]}, {"A": "a"})  # every split of a run of a's is a parse
    vocab = small_vocabulary([b"a", b"aaaa"])
    index = compiled_index(ir, vocab, tmp_path)
    matcher = index.matcher(GrammarLimits(max_set_items=20))
    with pytest.raises(GrammarLimitExceeded, match="max_set_items"):  # the set after n a's keeps n items
        for _ in range(40):
            matcher.advance(1)
    index._lexeme_paths = LexemePaths.empty()  # read so, its undecided tokens are walked, not decided by path
    small_walk = index.matcher(GrammarLimits(walk_budget=1))
    small_walk.advance(1)  # past the start, whose mask the file stores (format 4): this one is walked
    with pytest.raises(GrammarLimitExceeded, match="walk_budget"):
        small_walk.allowed_token_ids()


def test_an_index_from_the_shipping_form_serves_the_same_masks(tmp_path):
    from indexc.pipeline import write
    from indexc.pipeline.grammar import compile_grammar_ir
    from indexc.trie import build_trie

    vocab = small_vocabulary(PIECES)
    result = compile_grammar_ir(BRACKETS, vocab, build_trie(vocab), source="brackets")
    write(result, vocab, str(tmp_path / "b.idx.zst"))
    write(result, vocab, str(tmp_path / "b.idx"))
    packed, raw = indexc_runtime.load(tmp_path / "b.idx.zst"), indexc_runtime.load(tmp_path / "b.idx", verify=True)
    assert isinstance(packed, GrammarIndex)
    assert (tmp_path / "b.idx").read_bytes() == indexc_runtime.load(tmp_path / "b.idx")._container.buffer.tobytes()
    assert np.array_equal(packed.matcher().allowed_token_ids(), raw.matcher().allowed_token_ids())
    with pytest.raises(indexc_runtime.FingerprintMismatch):
        indexc_runtime.load(tmp_path / "b.idx", expected_fingerprint="another")


def test_a_long_walk_compacts_the_memo_and_keeps_masks_and_rollback(tmp_path):
    vocab = small_vocabulary(PIECES)
    ids = {b: i for i, b in enumerate(vocab.token_bytes)}
    index = compiled_index(BRACKETS, vocab, tmp_path, boundary_masks="none")
    # Nesting (s -> ( s ) s): every depth adds Earley sets, going down and coming back up (a
    # flat run of "()" does not: its right recursion is one set, earley._top); the masks add
    # more (the paths not taken, though not below a trie leaf; with no boundary masks every
    # token is walked: with them, the undecided sets spare most of those paths).  60 tokens going 30 deep and
    # back twice grow a plain memo to ~150 sets and ~180 configurations; the positions
    # themselves need fewer, so a limit of 200 compacts (at 100) and carries on.
    small, plain = index.matcher(GrammarLimits(max_configs=200, max_sets=200)), index.matcher()
    walk = ([ids[b"(("]] * 15 + [ids[b"))"]] * 15) * 2
    compacted = False
    for token in walk:
        assert np.array_equal(small.allowed_token_ids(), plain.allowed_token_ids())
        before = len(small._configs)
        small.advance(token)
        plain.advance(token)
        compacted = compacted or len(small._configs) < before
    assert compacted and len(plain._configs) > 100
    small.rollback(5)
    plain.rollback(5)
    assert np.array_equal(small.allowed_token_ids(), plain.allowed_token_ids())
    assert small.is_accepting() == plain.is_accepting()


def test_fill_bitmasks_serves_grammar_matchers_in_a_batch(brackets):
    index, ids = brackets
    matchers = [index.matcher() for _ in range(3)]
    matchers[1].advance(ids[b"(("])
    matchers[2].advance(ids[b"()"])
    matchers[2].advance(EOS)
    out = np.full((3, index.mask_words), -1, dtype=np.int32)
    indexc_runtime.fill_bitmasks(matchers, out)
    for row, matcher in enumerate(matchers):
        bits = np.unpackbits(out[row].view(np.uint8), bitorder="little")
        assert np.flatnonzero(bits).tolist() == matcher.allowed_token_ids().tolist()


def test_a_start_mask_over_a_limit_is_a_compile_error_and_writes_nothing(tmp_path, monkeypatch):
    from indexc.errors import LimitError
    from indexc.pipeline import write
    from indexc.pipeline.grammar import compile_grammar_ir
    from indexc.trie import build_trie
    from indexc_runtime.grammar.walker import MaskWalker

    def over_budget(*_args, **_kwargs):
        raise GrammarLimitExceeded("walk_budget", 1, "frontier pairs in one mask")

    vocab = small_vocabulary(PIECES)
    result = compile_grammar_ir(BRACKETS, vocab, build_trie(vocab), source="brackets")
    monkeypatch.setattr(MaskWalker, "_computed", over_budget)  # the start mask the writer asks the runtime for
    with pytest.raises(LimitError, match="start mask.*walk_budget"):
        write(result, vocab, str(tmp_path / "b.idx"))
    assert list(tmp_path.iterdir()) == []


def test_a_forgotten_mask_is_computed_again_the_same(brackets):
    # bench/parser_floor.py replays a cold walk with each computed mask dropped, parser kept
    from indexc_runtime.grammar.matcher import shared_memo

    index, ids = brackets
    walker = shared_memo(index, index.limits).current.walker
    matcher, seen, computed = index.matcher(), [], []
    for token in (ids[b"(("], ids[b")"], ids[b"()"], ids[b")"], ids[b"("]):
        before = walker.computed
        seen.append(bitmask_ids(index, matcher))
        computed.append(walker.computed - before)
        matcher.advance(token)
    assert computed[0] == 0 and sum(computed) >= 3  # the start mask is read from the file, not computed
    matcher = index.matcher()
    for token, expected in zip((ids[b"(("], ids[b")"], ids[b"()"], ids[b")"], ids[b"("]), seen):
        before = walker.computed
        assert bitmask_ids(index, matcher) == expected and walker.computed == before  # served from the memo
        walker.forget_mask(matcher.state)
        assert bitmask_ids(index, matcher) == expected and walker.computed == before + 1  # computed again
        matcher.advance(token)


def test_rollback_and_forced_tokens_under_longest_match(tmp_path):
    """A Lark file (lexed by longest match): the keyword's tokens are forced, a name goes on
    until ``;`` ends it, and rolling back restores each earlier mask and the accepting flag."""
    from indexc.grammar import load_grammar

    ir = load_grammar('start: "let" " " NAME ";"\nNAME: /[a-z]+/\n', syntax="lark")
    vocab = small_vocabulary([b"l", b"e", b"t", b" ", b"x", b"y", b";", b"xy"])
    index = compiled_index(ir, vocab, tmp_path)
    ids = {b: i for i, b in enumerate(vocab.token_bytes)}
    matcher = index.matcher()
    assert matcher.forced_tokens() == [ids[b"l"], ids[b"e"], ids[b"t"], ids[b" "]]
    for token in matcher.forced_tokens():
        matcher.advance(token)
    seen = [set(matcher.allowed_token_ids().tolist())]
    for piece in (b"x", b"y", b"xy", b";"):
        matcher.advance(ids[piece])
        seen.append(set(matcher.allowed_token_ids().tolist()))
    assert seen[2] == {ids[p] for p in (b"l", b"e", b"t", b"x", b"y", b"xy", b";")} and seen[-1] == {EOS}
    assert matcher.is_accepting()
    for back in range(1, 5):
        matcher.rollback(1)
        assert set(matcher.allowed_token_ids().tolist()) == seen[-1 - back]
    assert not matcher.is_accepting()

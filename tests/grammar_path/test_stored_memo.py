"""Format 7's stored parser memo: exact masks, matched by content as a live memo grows, checks at load and in ``verify``."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import indexc_runtime
from indexc.pipeline import write
from indexc.pipeline.grammar import compile_grammar_ir
from indexc.artifact.warm_memo import TEXT_END
from indexc.trie import build_trie
from indexc.vocab.greedy_tokens import greedy_token_ids
from indexc_runtime.errors import ArtifactError
from indexc_runtime.grammar import stored_match
from indexc_runtime.grammar.matcher import ParserMemo, shared_memo
from indexc_runtime.grammar.stored_match import StoredMatch
from indexc_runtime.grammar.format import GRAMMAR_FORMAT_VERSION
from tests.grammar_path.helpers import assert_walks_agree, bitmask_ids, grammar, vocabulary_from_text
from tests.reference.grammar_oracle import GrammarOracle
from tests.runtime.surgery import assert_refused_at_load, rewrite_section, setting

IR = grammar("value", {"value": [["LB", "items", "RB"], ["STR"], ["NUM"]], "items": [["value"], ["items", "COMMA", "value"], []]},
             {"LB": r"\[", "RB": r"\]", "COMMA": ",", "NUM": "[0-9]+", "STR": '"[a-z ]*"', "WS": "[ ]+"},
             ignore=["WS"])
SAMPLE = '[1, "ab c", [[2], "d"], [], 34, ["e f", [5]]]'
WARM_UP = '[1, "ab", [[2]]'


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    """(artifact bytes, vocabulary): the grammar with a warm-up walk of ``WARM_UP`` stored."""
    vocab = vocabulary_from_text(SAMPLE, pieces=80, seed=3)
    result = compile_grammar_ir(IR, vocab, build_trie(vocab), source="stored memo", min_wide_tokens=0)
    result.table = replace(result.table, warm_up_tokens=greedy_token_ids(vocab, WARM_UP.encode(), limit=1000))
    path = tmp_path_factory.mktemp("memo") / "g.idx"
    write(result, vocab, str(path))
    return path.read_bytes(), vocab


def test_the_memo_is_stored_and_every_mask_agrees_with_the_oracle(compiled):
    data, vocab = compiled
    index = indexc_runtime.load(data, verify=True)  # verify: every stored scan, transition and mask recomputed
    assert index.format_version == GRAMMAR_FORMAT_VERSION and index.header["stats"]["warm_up"]["walked"] > 5
    assert index.section("memo_config_mask").size >= 5 and index.section("memo_transitions").size
    assert assert_walks_agree(index, GrammarOracle(IR), vocab, walks=12, steps=25, seed=5) > 150


def test_the_warm_up_positions_are_served_from_the_file(compiled):
    data, vocab = compiled
    masks = {}
    for use in (False, True):
        index = indexc_runtime.load(data)
        index.use_stored_memo = use
        matcher, walker = index.matcher(), shared_memo(index, index.limits).current.walker
        before, seen = walker.computed - walker.part_one_only, []
        for token in greedy_token_ids(vocab, WARM_UP.encode(), limit=1000).tolist():
            seen.append(bitmask_ids(index, matcher))
            matcher.advance(token)
        masks[use] = (seen, walker.computed - walker.part_one_only - before)
    assert masks[True][0] == masks[False][0]
    # every mask a token may cross was stored (masks that are a precomputed OR are not: cheap)
    assert masks[False][1] > 3 and masks[True][1] == 0


def test_matching_adds_nothing_and_finds_the_stored_positions_a_memo_already_holds(compiled):
    """Attached to a memo that walked the whole sample without it, the match pins the stored
    mask of every configuration the warm-up met, each the mask the memo computed, and the memo
    keeps its size and ids."""
    data, vocab = compiled
    index = indexc_runtime.load(data)
    index.use_stored_memo = False
    matcher = index.matcher()
    for token in greedy_token_ids(vocab, SAMPLE.encode(), limit=1000).tolist():  # the sample begins as the warm-up
        matcher.allowed_token_ids()
        matcher.advance(token)
    memo = shared_memo(index, index.limits).current
    computed = {config: memo.walker.mask(config).copy() for config in range(len(memo.configs))}
    sizes, state = (len(memo.sets), len(memo.configs)), matcher.state  # the masks' walks made more
    pinned = {}
    StoredMatch(index._stored_memo.lookup, pinned.__setitem__).attach(memo.sets, memo.configs)
    assert len(pinned) >= 5 and (len(memo.sets), len(memo.configs)) == sizes and matcher.state == state
    for config, mask_id in pinned.items():
        assert np.array_equal(index._masks.row(mask_id), computed[config])


def test_every_stored_set_and_configuration_is_found_by_its_content(compiled):
    """The numpy hashes of the stored rows and the Python hashes of live content agree: a memo
    that interns every stored content (``_adopted``, as ``verify`` does) matches all of them."""
    data, _ = compiled
    index = indexc_runtime.load(data)
    stored = index._stored_memo
    memo = ParserMemo(index, index.limits, pin_start=False)
    pinned = {}
    match = StoredMatch(stored.lookup, pinned.__setitem__)
    match.attach(memo.sets, memo.configs)
    set_ids, config_ids = stored._adopted(memo.sets, memo.configs)
    matched = {live: match.stored_number(live) for live in range(len(memo.sets))}
    assert sorted((live, s) for live, s in matched.items() if s is not None) == sorted(
        (live, s) for s, live in enumerate(set_ids))
    assert pinned == {live: int(stored.config_mask[c]) for c, live in enumerate(config_ids)}


def test_a_hash_collision_costs_a_match_never_a_mask(compiled, monkeypatch):
    """Every content hashed alike: the lookup holds one candidate per kind, the exact comparison
    refuses the others, and every mask is the one computed without the stored memo."""
    data, vocab = compiled
    monkeypatch.setattr(stored_match, "row_hash", lambda value: 0)
    monkeypatch.setattr(stored_match, "rows_hash", lambda rows, tag: np.zeros(len(rows), dtype=np.uint64))
    masks = {}
    for use in (False, True):
        index = indexc_runtime.load(data)
        index.use_stored_memo = use
        matcher, seen = index.matcher(), []
        for token in greedy_token_ids(vocab, SAMPLE.encode(), limit=1000).tolist():
            seen.append(bitmask_ids(index, matcher))
            matcher.advance(token)
        masks[use] = seen
    assert masks[True] == masks[False]
    lookup = index._stored_memo.lookup  # one key per accepting flag at most
    assert len(lookup.config_of_hash) <= 2 and len(lookup.set_of_hash) <= 2


def test_a_file_without_a_warm_up_has_empty_memo_sections(tmp_path):
    vocab = vocabulary_from_text(SAMPLE, pieces=20)
    result = compile_grammar_ir(IR, vocab, build_trie(vocab), source="no warm-up")
    write(result, vocab, str(tmp_path / "g.idx"))
    index = indexc_runtime.load(tmp_path / "g.idx", verify=True)
    assert index.format_version == GRAMMAR_FORMAT_VERSION and index.section("memo_config_mask").size == 0
    assert index.section("memo_language_mask").size == 0
    assert "warm_up" not in index.header["stats"]


@pytest.mark.parametrize("section, change, message", [
    ("memo_set_items", lambda a: a.__setitem__((0, 2), 10**6), "earlier set"),
    ("memo_set_items", lambda a: a.__setitem__((0, 1), 99), "dot"),
    ("memo_set_items", lambda a: a.__setitem__((0, 0), -1), "rule"),
    ("memo_set_item_offsets", lambda a: a.__setitem__(1, 10**6), "does not rise"),
    ("memo_set_leo", lambda a: a.__setitem__((0, 0), 0), "out of range"),
    ("memo_set_wanted", lambda a: a.__setitem__(0, 10**6), "nonterminal"),
    ("memo_set_accepting", lambda a: a.__setitem__(0, 2), "flag"),
    ("memo_scans", lambda a: a.__setitem__((0, 1), 10**6), "out of range"),
    ("memo_config_threads", lambda a: a.__setitem__((0, 0), 10**6), "out of range"),
    ("memo_transitions", lambda a: a.__setitem__((0, 2), -1), "out of range"),
    ("memo_config_mask", lambda a: a.__setitem__(0, 10**6), "mask id"),
])
def test_a_stored_memo_number_out_of_bounds_is_refused_at_load(compiled, section, change, message):
    assert_refused_at_load(compiled[0], section, change, message)


def test_a_thread_in_a_lexer_state_of_another_terminal_is_refused(compiled):
    data, _ = compiled
    index = indexc_runtime.load(data)
    state_terminal = index.section("state_terminal")
    threads = index.section("memo_config_threads")
    other = int(np.flatnonzero(state_terminal != threads[0, 1])[0])
    with pytest.raises(ArtifactError, match="another terminal"):
        indexc_runtime.load(rewrite_section(data, "memo_config_threads", setting(2, other)))


def test_verify_finds_a_stored_fact_that_is_not_the_grammars(compiled):
    data, _ = compiled
    index = indexc_runtime.load(data)
    transitions, masks = index.section("memo_transitions"), index.section("memo_config_mask")
    wrong_after = (int(transitions[0, 2]) + 1) % len(masks)
    tampered = rewrite_section(data, "memo_transitions", setting(2, wrong_after))
    indexc_runtime.load(tampered)  # every number is in range: the load takes it
    with pytest.raises(ArtifactError, match="transition .* is not the parser's"):
        indexc_runtime.load(tampered, verify=True)
    other_mask = next(int(m) for m in masks if int(m) != int(masks[-1]))
    with pytest.raises(ArtifactError, match="mask of its configuration .* is not the walk's"):
        indexc_runtime.load(rewrite_section(data, "memo_config_mask", setting(len(masks) - 1, other_mask)), verify=True)


def test_matching_starts_with_the_first_step_past_the_start_mask(compiled):
    """A load's first mask is the file's start mask: the stored memo is hashed and matched from
    the first ``advance``, and nothing of it is added to the memo."""
    data, vocab = compiled
    first = int(greedy_token_ids(vocab, WARM_UP.encode(), limit=1)[0])
    sizes = {}
    for use in (False, True):
        index = indexc_runtime.load(data)
        index.use_stored_memo = use
        matcher = index.matcher()
        memo = shared_memo(index, index.limits).current
        matcher.allowed_token_ids()
        assert len(memo.configs) == 1 and memo.stored_match is None and "lookup" not in vars(index._stored_memo)
        matcher.advance(first)
        assert (memo.stored_match is not None) == use
        sizes[use] = (len(memo.sets), len(memo.configs))
    assert sizes[True] == sizes[False]
    matcher.allowed_token_ids()
    assert matcher.state in memo.walker._stored  # the position after the first token was met by the warm-up


def test_each_warm_up_text_is_walked_from_the_start_and_a_refused_one_stops_alone(tmp_path):
    """Several texts (a grammar's sampled sentences): a token the masks refuse ends its own text,
    and the next text is walked from the start."""
    vocab = vocabulary_from_text(SAMPLE, pieces=80, seed=3)
    bad, good = (greedy_token_ids(vocab, text.encode(), limit=1000) for text in ("[1]]]", WARM_UP))
    end = np.array([TEXT_END], dtype=np.int32)
    result = compile_grammar_ir(IR, vocab, build_trie(vocab), source="texts", min_wide_tokens=0)
    result.table = replace(result.table, warm_up_tokens=np.concatenate([bad, end, good, end]))
    write(result, vocab, str(tmp_path / "g.idx"))
    stats = indexc_runtime.load(tmp_path / "g.idx", verify=True).header["stats"]["warm_up"]
    refused_at = next(k for k in range(1, len(bad) + 1)
                      if not GrammarOracle(IR).is_prefix(b"".join(vocab.token_bytes[t] for t in bad[:k])))
    assert stats["texts"] == 2 and stats["tokens"] == len(bad) + len(good)
    assert stats["walked"] == refused_at - 1 + len(good)


def test_the_writers_check_compares_the_stored_masks_with_its_walks_rows(compiled):
    """The compiler's self-check passes its warm-up walk's rows (``verify(stored_mask_rows=...)``):
    a stored mask that is not its configuration's row, or a count that differs, is refused."""
    data, _ = compiled
    index = indexc_runtime.load(data)
    rows = [index._masks.row(int(m)).copy() for m in index.section("memo_config_mask")]
    index.verify(stored_mask_rows=rows)
    other = next(k for k in range(1, len(rows)) if not np.array_equal(rows[k], rows[0]))
    swapped = [rows[other]] + rows[1:other] + [rows[0]] + rows[other + 1:]
    with pytest.raises(ArtifactError, match="mask of its configuration 0 is not the walk's"):
        indexc_runtime.load(data).verify(stored_mask_rows=swapped)
    with pytest.raises(ArtifactError, match="does not hold the walk's configurations"):
        indexc_runtime.load(data).verify(stored_mask_rows=rows[1:])


@pytest.mark.parametrize("given", [0, 1])
def test_sampled_texts_stop_at_the_step_budget_and_a_given_text_does_not(tmp_path, monkeypatch, given):
    """``MAX_SAMPLED_WARM_UP_STEPS``: past that many parser steps the sampled texts are walked no
    further (``MAX_SAMPLED_TEXT_STEPS``: nor one text past its own), while a given warm-up text
    (``warm_up_given``, the first) is walked whole; the header says how many steps were made."""
    import indexc.artifact.warm_memo as warm_memo

    vocab = vocabulary_from_text(SAMPLE, pieces=80, seed=3)
    text = greedy_token_ids(vocab, SAMPLE.encode(), limit=1000)
    end = np.array([TEXT_END], dtype=np.int32)
    result = compile_grammar_ir(IR, vocab, build_trie(vocab), source="texts", min_wide_tokens=0)
    result.table = replace(result.table, warm_up_tokens=np.concatenate([text, end, text, end]), warm_up_given=given)
    monkeypatch.setattr(warm_memo, "MAX_SAMPLED_WARM_UP_STEPS", 0)
    write(result, vocab, str(tmp_path / "g.idx"))
    stats = indexc_runtime.load(tmp_path / "g.idx", verify=True).header["stats"]["warm_up"]
    whole = len(text) if given else 0  # a sampled text takes its first token before the budget is counted
    assert whole <= stats["walked"] <= whole + 1 and stats["steps"] > 0
    monkeypatch.setattr(warm_memo, "MAX_SAMPLED_WARM_UP_STEPS", 1 << 30)
    monkeypatch.setattr(warm_memo, "MAX_SAMPLED_TEXT_STEPS", 2)  # each sampled text stops early, the next starts
    write(result, vocab, str(tmp_path / "h.idx"))
    stats = indexc_runtime.load(tmp_path / "h.idx", verify=True).header["stats"]["warm_up"]
    if given:  # the sampled copy of the given text makes no new step: walked whole too
        assert stats["walked"] == 2 * len(text)
    else:
        assert 0 < stats["walked"] < 2 * len(text)

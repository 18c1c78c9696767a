"""Language keys (format 8, ``indexc_runtime.grammar.languages``): one key for positions that
accept the same texts whatever their parser context, a different one where the texts differ,
the same in every memo, stored by the compiler and served, checked at load and in ``verify``."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import indexc_runtime
from indexc.pipeline import write
from indexc.pipeline.grammar import compile_grammar_ir
from indexc.trie import build_trie
from indexc.vocab.greedy_tokens import greedy_token_ids
from indexc_runtime.errors import ArtifactError
from indexc_runtime.grammar.languages import MERGE_FROM_SHARED, LanguageKeys
from indexc_runtime.grammar.matcher import ParserMemo, shared_memo
from indexc_runtime.grammar.format import GRAMMAR_FORMAT_VERSION
from tests.grammar_path.helpers import assert_walks_agree, bitmask_ids, compiled_index, grammar, vocabulary_from_text
from tests.reference.grammar_oracle import GrammarOracle
from tests.runtime.surgery import rewrite_header, rewrite_section, setting

IR = grammar("value", {"value": [["LB", "items", "RB"], ["STR"], ["NUM"]], "items": [["value"], ["items", "COMMA", "value"], []]},
             {"LB": r"\[", "RB": r"\]", "COMMA": ",", "NUM": "[0-9]+", "STR": '"[a-z ]*"', "WS": "[ ]+"},
             ignore=["WS"])
SAMPLE = '[1, "ab c", [[2], "d"], [], 34, ["e f", [5]]]'
WARM_UP = '[[7, 8], 9]'  # the inner list's positions in the first item of the outer one


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    """(artifact bytes, vocabulary): ``WARM_UP`` walked at compile time, its keys stored."""
    vocab = vocabulary_from_text(SAMPLE + WARM_UP, pieces=80, seed=3)
    result = compile_grammar_ir(IR, vocab, build_trie(vocab), source="languages", min_wide_tokens=0, language_keys=True)
    result.table = replace(result.table, warm_up_tokens=greedy_token_ids(vocab, WARM_UP.encode(), limit=1000))
    path = tmp_path_factory.mktemp("languages") / "g.idx"
    write(result, vocab, str(path))
    return path.read_bytes(), vocab


def _walk(index, vocab, text: str):
    """A matcher of ``index`` moved along ``text`` (longest match), and the memo it used."""
    matcher = index.matcher()
    for token in greedy_token_ids(vocab, text.encode(), limit=1000).tolist():
        matcher.advance(token)
    return matcher, shared_memo(index, index.limits).current


@pytest.mark.parametrize("by_scan", [False, True])  # formats 8-12: by origin; 13: by the scanned sets
def test_two_contexts_with_one_future_share_a_key_and_a_mask(compiled, by_scan):
    """``[[1, `` and ``[3, [1, ``: the inner list is the outer one's first item or its second
    (other origins, other configurations), and after it closes the same texts may follow."""
    data, vocab = compiled
    index = indexc_runtime.load(data)
    first, memo = _walk(index, vocab, "[[1, ")
    second, _ = _walk(index, vocab, "[3, [1, ")
    keys = LanguageKeys(memo.configs, by_scan=by_scan)
    assert first.state != second.state and keys.of(first.state) == keys.of(second.state) is not None
    assert bitmask_ids(index, first) == bitmask_ids(index, second)
    top, _ = _walk(index, vocab, "[1, ")  # the outer list's own items: "]" ends the text there
    assert keys.of(top.state) != keys.of(first.state)


@pytest.mark.parametrize("by_scan", [False, True])
def test_a_key_is_the_same_in_every_memo_whatever_was_keyed_before(compiled, by_scan):
    """Digests hold no set ids and a set's digest is kept only where it is the same on every
    path (left recursion: ``items -> items COMMA value``), so the order of work does not show."""
    data, vocab = compiled
    texts = ["[[1, ", "[3, [1, [2, ", '["a", 4, [5, ']
    found = []
    for order in (texts, texts[::-1]):
        index = indexc_runtime.load(data)
        walked = {text: _walk(index, vocab, text) for text in order}
        keys = LanguageKeys(walked[order[0]][1].configs, by_scan=by_scan)
        found.append({text: keys.of(matcher.state) for text, (matcher, _) in walked.items()})
    assert found[0] == found[1] and None not in found[0].values()


def test_the_compiler_stores_the_keys_and_a_request_in_another_context_reads_them(compiled):
    data, vocab = compiled
    index = indexc_runtime.load(data, verify=True)  # verify: every stored key recomputed, with its mask
    assert index.format_version == GRAMMAR_FORMAT_VERSION and index.header["stats"]["warm_up"]["language_keys"] > 0
    assert index.section("memo_language_keys").shape == (index.section("memo_language_mask").size, 16)
    matcher = index.matcher()
    walker = shared_memo(index, index.limits).current.walker
    for token in greedy_token_ids(vocab, b"[3, [7, 8], 9, [7, 8]]", limit=1000).tolist():
        bitmask_ids(index, matcher)
        matcher.advance(token)
    assert walker.by_language > 0  # the inner list met at compile time as a first item, here a second one
    assert assert_walks_agree(index, GrammarOracle(IR), vocab, walks=10, steps=20, seed=7) > 100


def test_a_file_without_keys_computes_none(tmp_path):
    vocab = vocabulary_from_text(SAMPLE, pieces=40, seed=1)
    result = compile_grammar_ir(IR, vocab, build_trie(vocab), source="no keys", min_wide_tokens=0)
    result.table = replace(result.table, warm_up_tokens=greedy_token_ids(vocab, WARM_UP.encode(), limit=1000))
    write(result, vocab, str(tmp_path / "g.idx"))
    index = indexc_runtime.load(tmp_path / "g.idx")
    assert index.section("memo_language_mask").size == 0 and index.section("memo_config_mask").size
    _walk(index, vocab, "[[1, ")
    assert shared_memo(index, index.limits).current.walker._languages is None


def test_over_its_budget_a_configuration_has_no_key_and_its_mask_is_walked(compiled, monkeypatch):
    from indexc_runtime.grammar import languages

    data, vocab = compiled
    monkeypatch.setattr(languages, "MAX_VISITS", 0)
    index = indexc_runtime.load(data)
    matcher, memo = _walk(index, vocab, "[3, [1, ")
    assert memo.walker._languages.of(matcher.state) is None
    assert set(matcher.allowed_token_ids().tolist()) == GrammarOracle(IR).allowed_tokens(
        b"[3, [1, ", [None if i == 0 else b for i, b in enumerate(vocab.token_bytes)], [0])


def test_a_language_mask_id_out_of_range_is_refused_at_load(compiled):
    data, _ = compiled
    with pytest.raises(ArtifactError, match="memo_language_mask.*mask id"):
        indexc_runtime.load(rewrite_section(data, "memo_language_mask", lambda a: a.__setitem__(0, 10**6)))


def test_verify_finds_a_key_with_another_configurations_mask(compiled):
    data, _ = compiled
    index = indexc_runtime.load(data)
    keyed, masks = index.section("memo_language_mask"), index.section("memo_config_mask")
    other = next(int(m) for m in masks if int(m) != int(keyed[0]))
    tampered = rewrite_section(data, "memo_language_mask", setting(0, other))
    indexc_runtime.load(tampered)  # in range: the load takes it
    with pytest.raises(ArtifactError, match="language key"):
        indexc_runtime.load(tampered, verify=True)
    flipped = rewrite_section(data, "memo_language_keys", lambda a: a.__setitem__((0, 0), a[0, 0] ^ 1))
    with pytest.raises(ArtifactError, match="language key is no stored configuration's"):
        indexc_runtime.load(flipped, verify=True)


def test_the_self_check_memo_serves_nothing_by_key(compiled):
    """``verify`` recomputes stored masks on a memo without language keys: a wrong key could not
    vouch for itself."""
    data, _ = compiled
    index = indexc_runtime.load(data)
    assert ParserMemo(index, index.limits, pin_start=False, language_keys=False).walker._languages is None
    assert ParserMemo(index, index.limits).walker._languages is not None


def test_a_key_is_made_only_for_a_shape_met_before(compiled):
    """A configuration's shape (its threads without origins) is in every key, so a shape neither
    stored nor computed before finds nothing: its first configuration is walked unkeyed, and
    the next one of that shape is keyed."""
    data, vocab = compiled
    index = indexc_runtime.load(data)
    index.use_stored_memo = False  # no stored shapes: only what this memo computes
    first, memo = _walk(index, vocab, "[3, [1, ")
    keys = memo.walker._languages
    assert keys.unknown_shape(first.state) is not None
    bitmask_ids(index, first)
    assert keys.unknown_shape(first.state) is None and first.state not in keys._keys
    second, _ = _walk(index, vocab, "[[1, ")
    assert keys.unknown_shape(second.state) is None
    bitmask_ids(index, second)
    assert keys._keys[second.state] is not None


@pytest.mark.parametrize("seed", range(12))
def test_random_damage_to_the_language_sections_never_crashes(compiled, seed):
    """Bits flipped behind valid checksums: a walk in another context than the warm-up's (which
    reads keys) and ``verify`` serve masks or raise a typed error."""
    import random

    from indexc_runtime import TokenNotAllowed
    from indexc_runtime.grammar import GrammarLimitExceeded

    data, vocab = compiled
    rng = random.Random(seed)

    def damage(array):
        flat = array.reshape(-1).view(np.uint8)
        for _ in range(rng.randint(1, 3)):
            flat[rng.randrange(flat.size)] ^= 1 << rng.randrange(8)

    damaged = rewrite_section(data, ("memo_language_keys", "memo_language_mask")[seed % 2], damage)
    def walk(raw: bytes) -> None:  # every mask asked, so that the keys are read
        index = indexc_runtime.load(raw)
        matcher = index.matcher()
        for token in greedy_token_ids(vocab, b"[3, [7, 8], 9, [7, 8]]", limit=1000).tolist():
            bitmask_ids(index, matcher)
            matcher.advance(token)

    for step in (walk, lambda d: indexc_runtime.load(d, verify=True)):
        try:
            step(damaged)
        except (ArtifactError, TokenNotAllowed, GrammarLimitExceeded):
            pass


ADJACENT = grammar("start", {"start": [["name", "BANG"], ["name", "name", "QUERY"], ["name", "name", "name", "DOT"]],
                             "name": [["NAME"]]},
                   {"NAME": "[a-z]+", "BANG": "!", "QUERY": r"\?", "DOT": r"\."})
NAMES = grammar("start", {"start": [["items", "BANG"]], "items": [["item"], ["items", "item"]],
                          "item": [["NAME"], ["NAME", "LP", "RP"]]},
                {"NAME": "[a-z]+", "BANG": "!", "LP": r"\(", "RP": r"\)", "SPACE": " "}, ignore=["SPACE"])


def test_merged_origins_keep_the_futures_they_differ_in(tmp_path, monkeypatch):
    """All splits: after ``abc`` a name may have begun at ``a``, ``b`` or ``c`` (one, two or three
    names so far): threads of one terminal and state from origins whose futures differ (``!``,
    ``?`` or ``.`` ends the text).  Merged on every configuration (``OriginMerger``), none may
    go: a merge keyed by terminal and state alone keeps one origin and loses endings."""
    import indexc_runtime.grammar.languages as languages

    monkeypatch.setattr(languages, "MERGE_FROM_SHARED", 0)
    vocab = vocabulary_from_text("abc!abc?abc.", pieces=0)
    index = compiled_index(ADJACENT, vocab, tmp_path)
    matcher, _ = _walk(index, vocab, "abc")
    endings = {bytes(vocab.token_bytes[t]) for t in bitmask_ids(index, matcher)} & {b"!", b"?", b"."}
    assert endings == {b"!", b"?", b"."}
    assert_walks_agree(index, GrammarOracle(ADJACENT), vocab, walks=8, steps=6, seed=4)


@pytest.mark.parametrize("merged", [True, False])
def test_a_run_of_letters_split_anywhere_keeps_a_few_threads(tmp_path, monkeypatch, merged):
    """Items ``NAME`` or ``NAME ( )`` side by side, spaces optional: every letter of a run may end
    a name and start the next, and each split's Earley set names the previous one (its item
    ``item: NAME . ( )`` waits with the name's origin), as lark.lark's ``value: name . "{"``
    does.  Unmerged, a configuration holds a thread per letter so far; merged (the runtime's
    threshold), the splits' origins are one language and a few threads stay, with the oracle's
    masks."""
    import indexc_runtime.grammar.languages as languages

    if not merged:
        monkeypatch.setattr(languages, "MERGE_FROM_SHARED", 1 << 30)
    text = "abcdefghijklmnopqrstuvwxyz" * 2
    vocab = vocabulary_from_text(text + " !", pieces=0)
    index = compiled_index(NAMES, vocab, tmp_path)
    matcher, memo = _walk(index, vocab, text)
    widest = max(len(threads) for threads in memo.configs.threads)
    assert (widest <= 16) if merged else (widest >= len(text))  # measured: 10, and 260
    assert b"!" in {bytes(vocab.token_bytes[t]) for t in bitmask_ids(index, matcher)}
    if merged:
        assert_walks_agree(index, GrammarOracle(NAMES), vocab, walks=4, steps=12, seed=5)


@pytest.mark.parametrize("change", [lambda h: h.pop("origin_merge"), lambda h: h.__setitem__("origin_merge", -1),
                                    lambda h: h.__setitem__("origin_merge", "4")], ids=["missing", "negative", "text"])
def test_a_version_9_header_says_from_where_origins_merge(compiled, change):
    """Format 9's ``origin_merge``: the threshold the compile's walk merged with, which the runtime
    must use to recompute the stored memo (``verify``); a file without it is refused, a version 8
    one has none and is walked without merging."""
    data, _ = compiled
    assert indexc_runtime.load(data).origin_merge == MERGE_FROM_SHARED
    with pytest.raises(ArtifactError, match="origin_merge"):
        indexc_runtime.load(rewrite_header(data, change))
    as_version_8 = lambda h: (h.pop("origin_merge"), h.__setitem__("format_version", 8))  # noqa: E731
    older = indexc_runtime.load(rewrite_header(data, as_version_8))
    assert older.origin_merge is None and shared_memo(older, older.limits).current.configs.merger is None


def test_keys_by_scan_refuse_digests_of_the_other_kind(compiled):
    """A format 13 key reads digests by rest, a format 8-12 key digests by rule and dot: handing
    one the other's would make keys that match no stored one, so it is refused."""
    from indexc_runtime.grammar.languages import SetLanguages

    data, vocab = compiled
    _, memo = _walk(indexc_runtime.load(data), vocab, "[1, ")
    with pytest.raises(ValueError, match="by rest"):
        LanguageKeys(memo.configs, SetLanguages(memo.sets), by_scan=True)
    with pytest.raises(ValueError, match="by rest"):
        LanguageKeys(memo.configs, SetLanguages(memo.sets, by_rest=True))

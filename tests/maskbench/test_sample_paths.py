"""The bundled sample's regular schemas on both paths: same masks in every state (``indexc diff``).

Each sample file that the auto route sends to the DFA path is compiled once more with
``--mode cfg`` and the two artifacts are walked in lock-step by ``indexc diff``, Llama-3, every
reachable state pair (``bench/cross_path.py`` says what must hold and runs it over MaskBench):
a schema without "any JSON value" serves identical masks on both paths in every state (every
sample file's walk ends), and one with it differs only where the DFA path's documented depth
bound (3) cuts it, the grammar path allowing more, never less.
"""

from __future__ import annotations

import pytest

from bench.cross_path import BROKEN, REGULAR, REGULAR_BOUNDED, compare_paths, nesting
from tests.maskbench.conftest import sample_file, sample_names


def test_nesting_counts_brackets_outside_strings():
    assert nesting(b'{"a":[[') == (3, 3) and nesting(b'{"[\\"{":[1],') == (1, 2) and nesting(b'["\\\\"') == (1, 1)
    assert nesting(b'[[[]],[', 6) == (2, 2) and nesting(b'[[[]],[{}', 6) == (2, 3)  # the most open since byte 6


@pytest.mark.parametrize("name", sample_names())
def test_both_paths_serve_the_same_masks(name, indexc_setup, tmp_path):
    vocab, trie = indexc_setup.tokenizer
    outcome = compare_paths(name, sample_file(name).schema_text, vocab, trie, tmp_path)
    assert outcome.verdict != BROKEN, outcome.detail
    assert outcome.verdict != REGULAR_BOUNDED  # none of the sample's walks is that long: a change would be news
    if outcome.verdict == REGULAR:
        assert outcome.complete and outcome.differing == 0


def test_each_rule_can_break():
    from bench.cross_path import broken_rule
    from indexc.diff.compare import ArtifactDiff, PairDiff

    def report(**changes) -> ArtifactDiff:
        diff = ArtifactDiff("a.idx", "b.idx", "f", "f", True, 10, 0, 0, 0, complete=True)
        vars(diff).update(changes)
        return diff

    none = {}.__getitem__
    assert broken_rule(report(), False, 3, none) == "" and broken_rule(report(), True, 3, none) == ""
    assert broken_rule(report(differing_pairs=2), False, 3, none) == "2 pairs differ"
    assert broken_rule(report(complete=False, max_pairs=5), False, 3, none) == ""  # counted apart, not broken
    assert "refuses" in broken_rule(report(differing_pairs=1, tokens_only_a=1), True, 3, none)
    token_bytes = {"7": b"[", "8": b" [[[", "9": b"1"}.__getitem__
    deep, shallow = (PairDiff(witness, 1, 1, [], ["7"], 0, 1) for witness in (b'{"":[[', b'{"a":['))
    assert broken_rule(report(differing_pairs=1, pairs=[deep]), True, 3, token_bytes) == ""
    assert "stays 3 or fewer levels deep (7 after" in broken_rule(report(differing_pairs=2, pairs=[deep, shallow]),
                                                                  True, 3, token_bytes)
    # one token may open several levels: " [[[" after '{"a":[' goes 5 deep, past the DFA path's bound
    opens_three = PairDiff(b'{"a":[', 1, 1, [], ["8"], 0, 1)
    assert broken_rule(report(differing_pairs=1, pairs=[opens_three]), True, 3, token_bytes) == ""
    scalar = PairDiff(b'{"a":[[[', 1, 1, [], ["9"], 0, 1)  # 4 deep already
    assert broken_rule(report(differing_pairs=1, pairs=[scalar]), True, 3, token_bytes) == ""
    was_deep = PairDiff(b'{"a":[[[[]]]],"b":', 1, 1, [], ["9"], 0, 1)  # 5 deep once, 1 deep now
    assert "stays 3 or fewer" in broken_rule(report(differing_pairs=1, pairs=[was_deep]), True, 3, token_bytes)
    past_the_bound = PairDiff(b'{"a":[[[[0]]', None, 1, [], ["9"], 0, 1)  # the DFA path died at the 4th "["
    assert broken_rule(report(differing_pairs=1, pairs=[past_the_bound]), True, 3, token_bytes) == ""

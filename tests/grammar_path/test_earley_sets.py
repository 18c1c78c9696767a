"""EarleySets' shortcuts agree with the plain parser: a scan's closure shared with completions
(``_completion``, ``Predictions.cascade``), and the expected terminals of a set not made
(``expected_after``).

The masks of every bundled grammar are checked against the oracle (``test_bundled_vs_oracle``);
here the parser is asked directly, on a grammar with nullable rules, a right recursion (Leo's
paths), a left recursion and an ignored terminal, at every set a walk meets and for every
terminal."""

from __future__ import annotations

import random

import pytest

import indexc_runtime.grammar.earley as earley
from indexc_runtime.grammar import GrammarLimits
from indexc_runtime.grammar.matcher import ParserMemo
from tests.grammar_path.helpers import compiled_index, grammar, vocabulary_from_text

IR = grammar("doc", {"doc": [["doc", "line"], []],
                     "line": [["NAME", "opt", "EQ", "value", "NL"]],
                     "opt": [["LB", "NAME", "RB"], []],
                     "value": [["item", "value"], ["item"]],  # right recursion
                     "item": [["NAME", "maybe"], ["LP", "value", "RP"], ["NUM"]],
                     "maybe": [["DOT", "NAME"], []]},
             {"NAME": "[a-z]+", "NUM": "[0-9]+", "EQ": "=", "NL": "\n", "LB": r"\[", "RB": r"\]", "LP": r"\(",
              "RP": r"\)", "DOT": r"\.", "WS": " +"}, ignore=["WS"])
TEXT = "a = b c.d (e 1)\nf[g] = (h (i j) 22) k\nl = m\n"


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    vocab = vocabulary_from_text(TEXT, pieces=60, seed=3)
    return compiled_index(IR, vocab, tmp_path_factory.mktemp("earley_sets")), vocab


def _walked(index, seed: int) -> ParserMemo:
    """A fresh memo after a random walk of allowed tokens (its sets are the ones a walk meets)."""
    memo = ParserMemo(index, GrammarLimits(), pin_start=False, language_keys=False)
    matcher = index.matcher()
    matcher._memo, matcher._sets, matcher._configs, matcher._walker = memo, memo.sets, memo.configs, memo.walker
    rng = random.Random(seed)
    for _ in range(40):
        allowed = matcher.allowed_token_ids().tolist()
        if not allowed:
            break
        matcher.advance(rng.choice(allowed))
    return memo


@pytest.mark.parametrize("seed", range(4))
def test_the_expected_terminals_of_a_set_not_made_are_those_of_the_set_made(index, seed):
    """For every set the walk made and every terminal: ``expected_after`` on the walked memo
    (which makes no set) equals the expected terminals of ``scan``'s set on a second memo walked
    the same way, or both say the terminal is not expected there."""
    idx, _ = index
    asked, scanned = _walked(idx, seed).sets, _walked(idx, seed).sets
    n_sets, n_terminals = len(asked), asked.rules.n_terminals
    assert n_sets == len(scanned) and n_sets > 5
    compared = 0
    for set_id in range(n_sets):
        for terminal in range(n_terminals):
            expected = asked.expected_after(set_id, terminal)
            after = scanned.scan(set_id, terminal)
            if after < 0:
                assert expected is None
            else:
                assert set(expected) == set(scanned.expected[after]), (set_id, terminal)
                compared += 1
    assert len(asked) == n_sets  # nothing was made
    assert compared > 20


@pytest.mark.parametrize("seed", range(2))
def test_completions_past_the_depth_limit_close_item_by_item_to_the_same_sets(index, seed, monkeypatch):
    """With ``MAX_COMPLETION_DEPTH`` at 0 every nested completion is closed item by item
    (``_close``'s completer), not memoised: a walk makes the same sets, with the same expected terminals,
    scans and masks, as with the limit out of reach."""
    idx, vocab = index
    deep = _walked(idx, seed)
    monkeypatch.setattr(earley, "MAX_COMPLETION_DEPTH", 0)
    shallow = _walked(idx, seed)
    assert len(shallow.sets) == len(deep.sets) > 5
    for set_id in range(len(deep.sets)):
        assert shallow.sets.content(set_id) == deep.sets.content(set_id)
        assert shallow.sets.expected[set_id] == deep.sets.expected[set_id]
    n_terminals = deep.sets.rules.n_terminals
    for set_id in range(len(deep.sets)):
        assert [shallow.sets.scan(set_id, t) for t in range(n_terminals)] == [
            deep.sets.scan(set_id, t) for t in range(n_terminals)]

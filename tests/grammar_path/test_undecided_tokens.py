"""Undecided tokens (format 5): the compiler's sets against a brute force over the splits, and
the walker's use of them (fewer walks, the same masks as the oracle: ``test_*_vs_oracle``)."""

from __future__ import annotations

import numpy as np
import pytest

from indexc.automaton.byte_dfa import DEAD
from indexc.grammar.boundary_masks import follow_pairs
from indexc.grammar.earley_tables import build_tables, trimmed
from indexc.grammar.lexemes import build_lexer, in_lexeme_masks
from indexc.grammar.undecided_tokens import UNRESTRICTED, undecided_masks, undecided_terminals
from indexc.masks import MaskOptions
from indexc.trie import build_trie
from indexc_runtime.grammar.walker import MaskWalker
from tests.conftest import keep_coverages_wide
from tests.grammar_path.helpers import assert_walks_agree, compiled_index, small_vocabulary
from tests.grammar_path.test_hand_written_vs_oracle import CASES
from tests.reference.grammar_oracle import GrammarOracle


def _ends(transitions, accepting, state: int, data: bytes) -> list[int]:
    """Positions ``i`` where the lexeme run from ``state`` over ``data[:i]`` may end."""
    found = [0] if accepting[state] else []
    for i, byte in enumerate(data, 1):
        state = transitions[state][byte]
        if state == DEAD:
            break
        if accepting[state]:
            found.append(i)
    return found


def _brute_force_undecided(lexer, follow, q: int, data: bytes, *, coarse: bool = False) -> bool:
    """Can ``data`` from lexer state ``q`` finish its lexeme, a whole next one (>= 1 byte),
    and start a third that may follow that one and stays alive to the end of ``data`` (or
    finishes and is followed by a fourth that may start there)?  ``coarse``: whatever the
    third does after its first byte (format 5's first sets)."""
    transitions, accepting = lexer.dfa.transitions.tolist(), lexer.dfa.accepting.tolist()
    starts, terminal_of = lexer.starts.tolist(), lexer.state_terminal.tolist()
    for i in _ends(transitions, accepting, q, data):
        for u in follow[terminal_of[q]]:
            for j in _ends(transitions, accepting, starts[u], data[i:]):
                if j == 0 or i + j >= len(data):
                    continue
                third = data[i + j:i + j + 1] if coarse else data[i + j:]
                if any(_third_alive(lexer, follow, v, third) for v in follow[u]):
                    return True
    return False


def _in_lexeme(lexer, q: int, data: bytes) -> bool:
    """Does ``data`` keep the lexeme of state ``q`` alive (its in-lexeme mask holds it)?"""
    transitions = lexer.dfa.transitions.tolist()
    for byte in data:
        q = transitions[q][byte]
        if q == DEAD:
            return False
    return True


def _third_alive(lexer, follow, v: int, rest: bytes) -> bool:
    """Does lexeme ``v`` run over ``rest`` alive, or end part-way (>= 1 byte) before a byte on
    which a terminal that may follow it starts?"""
    transitions, accepting = lexer.dfa.transitions.tolist(), lexer.dfa.accepting.tolist()
    starts = lexer.starts.tolist()
    state = starts[v]
    for k, byte in enumerate(rest):
        if k and accepting[state] and any(transitions[starts[w]][byte] != DEAD for w in follow[v]):
            return True
        state = transitions[state][byte]
        if state == DEAD:
            return False
    return True


def _parts(name: str):
    """(IR, vocabulary, trie, terminal names, lexer, in-lexeme masks, Earley tables) of a case."""
    ir, pieces = CASES[name]
    vocab = small_vocabulary(pieces)
    trie = build_trie(vocab)
    rules, terminal_names, warnings = trimmed(ir)
    lexer = build_lexer([ir.terminals[n] for n in terminal_names], max_states=10_000, source=name)
    masks = in_lexeme_masks(lexer, trie, vocab, MaskOptions())
    earley = build_tables(ir, rules, terminal_names, lexer.nullable, warnings)
    return ir, vocab, trie, terminal_names, lexer, masks, earley


def _sets_of(name: str):
    """(lexer, FOLLOW, the undecided sets, each state's set, the text token ids and bytes) of a case."""
    _, vocab, trie, _, lexer, masks, earley = _parts(name)
    follow = follow_pairs(earley)
    complete = np.ones(lexer.n_terminals, dtype=bool)
    sets, of_state = undecided_masks(lexer, follow, complete, masks.byte_classes, masks.n_classes, trie, vocab,
                                     MaskOptions())
    text = {i: vocab.token_bytes[i] for i in range(vocab.size) if i not in vocab.special_ids and i not in vocab.eos_ids}
    return lexer, follow, sets, of_state, text


@pytest.mark.parametrize("name", sorted(CASES))
def test_undecided_sets_hold_the_tokens_a_third_lexeme_may_allow(name):
    lexer, follow, sets, of_state, text = _sets_of(name)
    for q in range(lexer.dfa.n_states):
        assert of_state[q] != UNRESTRICTED
        got = set(sets[of_state[q]].tolist())
        # every token a third lexeme may allow that the in-lexeme mask does not: at least those,
        # at most the tokens on which a third lexeme starts at all
        needed = {t for t, data in text.items()
                  if _brute_force_undecided(lexer, follow, q, data) and not _in_lexeme(lexer, q, data)}
        coarse = {t for t, data in text.items() if _brute_force_undecided(lexer, follow, q, data, coarse=True)}
        assert needed <= got <= coarse, (name, q, sorted(needed - got), sorted(got - coarse))


@pytest.mark.parametrize("bound", ["MAX_WORK_REFINED", "MAX_WORK_REFINED_TOTAL"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_past_the_refined_bound_the_sets_are_the_coarse_ones(name, bound, monkeypatch):
    """A terminal whose third-lexeme automaton grows past ``MAX_WORK_REFINED``, or any terminal
    once the grammar's refined attempts cost ``MAX_WORK_REFINED_TOTAL``, falls back to the
    coarse one: every token on which a third lexeme starts."""
    import indexc.grammar.undecided_tokens as undecided_tokens
    monkeypatch.setattr(undecided_tokens, bound, 0)
    lexer, follow, sets, of_state, text = _sets_of(name)
    for q in range(lexer.dfa.n_states):
        got = set(sets[of_state[q]].tolist())
        coarse = {t for t, data in text.items() if _brute_force_undecided(lexer, follow, q, data, coarse=True)}
        assert got == coarse, (name, q, sorted(got ^ coarse))


def test_an_incomplete_terminal_is_unrestricted():
    _, vocab, trie, _, lexer, masks, earley = _parts("left_recursion")
    complete = np.array([True, False][: lexer.n_terminals] + [True] * max(0, lexer.n_terminals - 2))
    _, of_state = undecided_masks(lexer, follow_pairs(earley), complete, masks.byte_classes, masks.n_classes,
                                  trie, vocab, MaskOptions())
    owner = lexer.state_terminal
    assert (of_state[owner == 1] == UNRESTRICTED).all()
    assert (of_state[owner != 1] != UNRESTRICTED).all()


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_smallest_terminals_fill_the_budget(name):
    """``undecided_terminals``: every terminal within the budget; below it, the terminals taken
    one by one from the smallest (ties by id) while their states add up to the budget."""
    lexer = _sets_of(name)[0]
    sizes = np.diff(lexer.offsets).tolist()
    assert undecided_terminals(lexer, sum(sizes)).all()
    for budget in range(sum(sizes)):
        expected, total = set(), 0
        for t in sorted(range(len(sizes)), key=lambda t: (sizes[t], t)):
            if total + sizes[t] > budget:
                break
            expected.add(t)
            total += sizes[t]
        assert set(np.flatnonzero(undecided_terminals(lexer, budget)).tolist()) == expected, (name, budget)


@pytest.mark.parametrize("name", ["quoted_strings", "string_or_literal", "literal_then_body", "ignored_whitespace"])
def test_a_lexer_over_the_limit_keeps_its_smallest_terminals_sets(name, tmp_path, monkeypatch):
    """Over ``MAX_UNDECIDED_STATES`` (here the largest terminal's states), the terminals
    ``undecided_terminals`` picks get their every boundary pair and their undecided sets, the
    others neither (pairs into wide lexemes only): both kinds of thread in one artifact, and the
    oracle's masks."""
    import indexc.grammar.undecided_tokens as undecided_tokens

    ir, pieces = CASES[name]
    vocab = small_vocabulary(pieces)
    lexer = _sets_of(name)[0]
    monkeypatch.setattr(undecided_tokens, "MAX_UNDECIDED_STATES", int(np.diff(lexer.offsets).max()))  # not the largest
    chosen = undecided_terminals(lexer)
    assert chosen.any() and not chosen.all()
    index = compiled_index(ir, vocab, tmp_path, boundary_masks="default")
    owner = np.asarray(index._lexer.state_terminal)
    restricted = np.asarray(index._lexer.undecided_set) > 0
    assert restricted.any() and not restricted[~chosen[owner]].any()
    assert_walks_agree(index, GrammarOracle(ir), vocab, walks=6, steps=10)


@pytest.mark.parametrize("name", ["all_splits_ws_before_newline", "literal_then_body", "quoted_strings",
                                  "string_or_literal"])  # (the others' vocabularies cross two boundaries everywhere)
def test_undecided_sets_spare_walks_and_keep_the_oracle_masks(name, tmp_path, monkeypatch):
    """With every pair built, masks whose threads have empty undecided sets are not walked:
    fewer walks than with no pair (every thread unrestricted), the same masks as the oracle."""
    keep_coverages_wide(monkeypatch)  # unrestricted threads walked, not stepped as open places
    ir, pieces = CASES[name]
    vocab = small_vocabulary(pieces)
    walks = {}
    original = MaskWalker._walk

    def counted(self, *args, **kwargs):
        walks[mode] = walks.get(mode, 0) + 1
        return original(self, *args, **kwargs)

    monkeypatch.setattr(MaskWalker, "_walk", counted)
    for mode in ("every", "none"):
        index = compiled_index(ir, vocab, tmp_path, f"{mode}.idx", boundary_masks=mode)
        assert_walks_agree(index, GrammarOracle(ir), vocab, walks=6, steps=8)
    assert walks.get("every", 0) < walks["none"]


@pytest.mark.parametrize("name", sorted(CASES))
def test_wide_undecided_sets_through_their_rows_keep_the_oracle_masks(name, tmp_path, monkeypatch):
    """Every undecided set taken as wide (``Coverage.of_masks`` with the sets' rows): the same
    masks as the oracle, as through the open tokens' places (the other tests)."""
    import indexc_runtime.grammar.walker as walker

    monkeypatch.setattr(walker, "WIDE_UNDECIDED", 0)
    keep_coverages_wide(monkeypatch)  # and walked as wide
    ir, pieces = CASES[name]
    vocab = small_vocabulary(pieces)
    index = compiled_index(ir, vocab, tmp_path)
    assert_walks_agree(index, GrammarOracle(ir), vocab, walks=6, steps=10)


@pytest.mark.parametrize("levels, handoff", [(1, 0), (3, 1), (100, 0)],
                         ids=["one_level_then_one_by_one", "three_levels", "numpy_to_the_end"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_open_tokens_stepped_together_keep_the_oracle_masks(name, levels, handoff, tmp_path, monkeypatch):
    """Every set of open tokens stepped in numpy first (``_alive_tokens_wide``, ``WIDE_STEPS``
    1), for one, three or all class positions, the rest one by one from where each token got
    (grouped by configuration, ``_alive_from``; the shared prefix tested in one slice first,
    ``LONG_SHARED``): the oracle's masks; and the wide path is taken (a test that never
    reached it could not fail)."""
    import indexc_runtime.grammar.walker as walker

    monkeypatch.setattr(walker, "WIDE_STEPS", 1)
    monkeypatch.setattr(walker, "STEP_LEVELS", levels)
    monkeypatch.setattr(walker, "STEP_HANDOFF", handoff)
    monkeypatch.setattr(walker, "LONG_SHARED", 1)  # the shared prefix's one-slice test on every token
    opened, stepped = [], []
    open_allowed, alive_tokens_wide = walker.MaskWalker._open_allowed, walker.MaskWalker._alive_tokens_wide

    def counted_open(self, config, coverage):
        opened.append(len(coverage))
        return open_allowed(self, config, coverage)

    def counted_wide(self, config, tokens):
        stepped.append(len(tokens))
        return alive_tokens_wide(self, config, tokens)

    monkeypatch.setattr(walker.MaskWalker, "_open_allowed", counted_open)
    monkeypatch.setattr(walker.MaskWalker, "_alive_tokens_wide", counted_wide)
    ir, pieces = CASES[name]
    vocab = small_vocabulary(pieces)
    index = compiled_index(ir, vocab, tmp_path)
    assert_walks_agree(index, GrammarOracle(ir), vocab, walks=6, steps=10)
    assert stepped == [n for n in opened if n]  # every nonempty set of open tokens went the wide way


def test_an_ignored_lexeme_between_two_lexemes_is_not_a_boundary_of_its_own(tmp_path):
    """``KEY`` then spaces then ``=``: the spaces are ignored, so the parser expects after them what
    it expected after ``KEY``, and the boundary mask of (``KEY``'s state, ``EQ``) runs them in
    between (``boundary_masks``): `` =`` and `` = 1`` are not undecided there, as they are when
    the spaces count as a lexeme of their own (no ``ignore`` given); the masks stay the oracle's."""
    ir, vocab, trie, terminal_names, lexer, masks, earley = _parts("ignored_whitespace")
    complete = np.ones(lexer.n_terminals, dtype=bool)
    key_end = int(np.flatnonzero(lexer.dfa.accepting & (lexer.state_terminal == terminal_names.index("KEY")))[0])
    undecided = {}
    for ignore in (frozenset(), frozenset(earley.ignore.tolist())):
        sets, of_state = undecided_masks(lexer, follow_pairs(earley), complete, masks.byte_classes, masks.n_classes,
                                         trie, vocab, MaskOptions(), ignore=ignore)
        undecided[bool(ignore)] = {bytes(vocab.token_bytes[t]) for t in sets[of_state[key_end]].tolist()}
    assert b" =" in undecided[False] and b"= 1" in undecided[False]
    assert b" =" not in undecided[True] and b"= 1" in undecided[True]  # after "=", "1" is a third lexeme
    index = compiled_index(ir, vocab, tmp_path)
    assert_walks_agree(index, GrammarOracle(ir), vocab, walks=6, steps=10, seed=2)

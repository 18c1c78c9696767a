"""The subset construction's path for subsets that are one state of an embedded automaton
(``automaton.block_subsets``): on NFAs of random embedded DFAs inside alternations, sequences
and repetitions, the DFA accepts exactly what a direct simulation of the NFA accepts (every
string up to length 6), and it has the same subsets, as many and the same language, as the
ordinary path alone builds."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from indexc.automaton import determinize as determinize_module
from indexc.automaton import regex_tree as rt
from indexc.automaton.atom_partition import AtomPartition
from indexc.automaton.block_subsets import BlockSubsets
from indexc.automaton.code_point_sets import CodePointSet
from indexc.automaton.determinize import determinize
from indexc.automaton.limits import AutomatonLimits
from indexc.automaton.nfa import NFA
from indexc.errors import LimitError
from indexc.jsonschema.intersection import CharDFA
from indexc.jsonschema.shared_nfa import EmbeddedDFA, SharedNFABuilder

ALPHABET = "abc"
# set 0..2: one character each; set 3: "a" or "b" (a column over it overlaps columns 0 and 1)
SETS = tuple(CodePointSet([(ord(c), ord(c))]) for c in ALPHABET) + (CodePointSet([(ord("a"), ord("b"))]),)


def _random_dfa(rng: np.random.Generator, n_states: int, columns: tuple[int, ...]) -> EmbeddedDFA:
    """A random DFA over ``columns`` (set indices) whose every state is reachable from 0."""
    table = np.where(rng.random((n_states, len(columns))) < 0.6,
                     rng.integers(0, n_states, (n_states, len(columns))), -1).astype(np.int32)
    for s in range(1, n_states):  # a spanning chain: state s from s - 1 on some column
        table[s - 1, rng.integers(len(columns))] = s
    accepting = rng.random(n_states) < 0.3
    accepting[-1] = True
    return EmbeddedDFA(CharDFA(table, accepting, ()), columns)


def _random_tree(rng: np.random.Generator) -> rt.Node:
    disjoint = _random_dfa(rng, int(rng.integers(2, 9)), (0, 1, 2))
    other = _random_dfa(rng, int(rng.integers(2, 6)), (2, 0))
    overlapping = _random_dfa(rng, int(rng.integers(2, 5)), (0, 3))  # left to the ordinary path
    shapes = [
        rt.Alternation((rt.Concat((disjoint, rt.Chars(2))), rt.Concat((disjoint, other)))),
        rt.Repeat(rt.Concat((disjoint, other)), 0, 3),
        rt.Concat((rt.Alternation((disjoint, overlapping)), rt.Repeat(other, 1, None))),
        rt.Alternation((rt.Concat((rt.Chars(0), disjoint)), rt.Concat((rt.Chars(3), disjoint)), other)),
    ]
    return shapes[int(rng.integers(len(shapes)))]


def _nfa_accepts(nfa: NFA, text: str) -> bool:
    """A direct simulation: epsilon closures, edges and table blocks, no subset construction."""
    block_of = {}
    for block in nfa.blocks:
        for s in range(block.n_states):
            block_of[block.first + s] = (block, s)

    def closure(states: set[int]) -> set[int]:
        stack, seen = list(states), set(states)
        while stack:
            for r in nfa.epsilon[stack.pop()]:
                if r not in seen:
                    seen.add(r)
                    stack.append(r)
        return seen

    current = closure({nfa.start})
    for char in text:
        point, following = ord(char), set()
        for q in current:
            for set_index, target in nfa.edges[q]:
                if point in SETS[set_index]:
                    following.add(target)
            if q in block_of:
                block, s = block_of[q]
                for column, set_index in enumerate(block.set_indices):
                    target = int(block.table[s, column])
                    if target >= 0 and point in SETS[set_index]:
                        following.add(block.first + target)
        current = closure(following)
    return nfa.accept in current


def _dfa_accepts(transitions: np.ndarray, accepting: np.ndarray, atom_of: dict[str, int], text: str) -> bool:
    state = 0
    for char in text:
        state = int(transitions[state, atom_of[char]])
        if state < 0:
            return False
    return bool(accepting[state])


class _OrdinaryOnly(BlockSubsets):
    """No state is plain: every subset takes the ordinary path, as before ``block_subsets``."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.plain = [False] * len(self.plain)


class _FewLaneRows(BlockSubsets):
    """Lanes of at most 6 rows in all: the first small tables get theirs, later ones do not."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **{**kwargs, "max_lane_rows": 6})


def _built(tree: rt.Node, monkeypatch=None, ordinary: bool = False, lanes_class=None):
    nfa = SharedNFABuilder(1_000_000).build(tree)
    partition = AtomPartition.of_sets(SETS)
    expanded = []
    if ordinary or lanes_class is not None:
        monkeypatch.setattr(determinize_module, "BlockSubsets", lanes_class or _OrdinaryOnly)
    else:
        original = BlockSubsets.expand
        monkeypatch.setattr(BlockSubsets, "expand",  # records the copies of each lane it walks
                            lambda self, lane, *a: (expanded.append(len(self.lanes[lane].firsts)), original(self, lane, *a))[1])
    dfa = determinize(nfa, partition, AutomatonLimits())
    monkeypatch.undo()
    atom_of = {c: int(partition.set_atoms[i][0]) for i, c in enumerate(ALPHABET)}
    return nfa, dfa, atom_of, expanded


@pytest.mark.parametrize("seed", range(40))
def test_block_subsets_keep_the_language_and_the_subsets(seed, monkeypatch):
    tree = _random_tree(np.random.default_rng(seed))
    nfa, dfa, atom_of, expansions = _built(tree, monkeypatch)
    _, ordinary, _, _ = _built(tree, monkeypatch, ordinary=True)
    _, few_lanes, _, _ = _built(tree, monkeypatch, lanes_class=_FewLaneRows)  # some lanes refused
    assert dfa.n_states == ordinary.n_states == few_lanes.n_states  # the same subsets, numbered in other orders
    for length in range(7):
        for letters in itertools.product(ALPHABET, repeat=length):
            text = "".join(letters)
            expected = _nfa_accepts(nfa, text)
            for built in (dfa, ordinary, few_lanes):
                assert _dfa_accepts(built.transitions, built.accepting, atom_of, text) is expected, text


def test_the_fast_path_is_taken(monkeypatch):
    """A long chain inside an embedded DFA used twice, with two continuations: the two copies
    move in lockstep from the start, and one expansion walks both."""
    n = 200
    table = np.full((n, 3), -1, dtype=np.int32)
    table[np.arange(n - 1), 0] = np.arange(1, n)  # "a" * (n - 1); the last state accepts
    accepting = np.zeros(n, dtype=bool)
    accepting[-1] = True
    chain = EmbeddedDFA(CharDFA(table, accepting, ()), (0, 1, 2))
    tree = rt.Alternation((rt.Concat((chain, rt.Chars(1))), rt.Concat((chain, rt.Chars(2)))))
    nfa, dfa, atom_of, expansions = _built(tree, monkeypatch)
    assert expansions == [2]
    for text, accepted in [("a" * (n - 1) + "b", True), ("a" * (n - 1) + "c", True), ("a" * (n - 1), False),
                           ("a" * n + "b", False)]:
        assert _dfa_accepts(dfa.transitions, dfa.accepting, atom_of, text) is accepted


def test_the_subset_limit_counts_block_subsets():
    n = 300
    table = np.full((n, 1), -1, dtype=np.int32)
    table[np.arange(n - 1), 0] = np.arange(1, n)
    accepting = np.zeros(n, dtype=bool)
    accepting[-1] = True
    tree = rt.Concat((rt.Chars(1), EmbeddedDFA(CharDFA(table, accepting, ()), (0,))))
    nfa = SharedNFABuilder(1_000_000).build(tree)
    partition = AtomPartition.of_sets(SETS)
    # the start, the chain's first n - 1 states as plain subsets, its last one (no moves) as {accept}
    assert determinize(nfa, partition, AutomatonLimits(max_subset_states=n + 1)).n_states == n + 1
    with pytest.raises(LimitError, match=f"more than {n:,} states"):
        determinize(nfa, partition, AutomatonLimits(max_subset_states=n))


def test_most_random_trees_take_the_fast_path(monkeypatch):
    """So that the language test above checks the fast path (lanes of one copy and of several),
    not only the ordinary one."""
    lanes = [_built(_random_tree(np.random.default_rng(seed)), monkeypatch)[3] for seed in range(40)]
    assert sum(1 for copies in lanes if copies) >= 30
    assert sum(1 for copies in lanes if any(n > 1 for n in copies)) >= 10

"""The suffix-sharing NFA builder (``jsonschema.shared_nfa``): copies of a bounded repetition
laid out by shifting the last walked copy are the NFA that walking every copy builds, state
for state (epsilon lists, edges, aliases, embedded tables, start); and the limit still cuts."""

from __future__ import annotations

import numpy as np
import pytest

from indexc.automaton import regex_tree as rt
from indexc.automaton.normalize import normalize
from indexc.automaton.parse import parse_structure
from indexc.errors import LimitError
from indexc.jsonschema import lower_schema
from indexc.jsonschema.intersection import CharDFA
from indexc.jsonschema.shared_nfa import EmbeddedDFA, SharedNFABuilder
from indexc.jsonschema.to_automaton import expr_to_dfa

REGEXES = [
    r"(ab|c){3,400}",  # optional copies after mandatory ones
    r"x{300}",  # mandatory copies only
    r"(x(y|z){2,90}){0,40}w",  # nested chains: every outer copy holds an inner chain
    r'"([^"\\]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4}){0,600}"',  # a JSON string with maxLength
    r"((a|b)*c){5,200}",  # a loop inside each copy
]


def _tree(regex: str) -> rt.Node:
    return parse_structure(normalize(regex))


def _built(tree: rt.Node, clone: bool, max_states: int = 1_000_000):
    builder = SharedNFABuilder(max_states)
    builder.clone_copies = clone
    nfa = builder.build(tree)
    blocks = [(block.first, id(block.table), block.set_indices) for block in nfa.blocks]
    return nfa.epsilon, nfa.edges, nfa.start, nfa.accept, builder.aliases, blocks


@pytest.mark.parametrize("regex", REGEXES)
def test_shifted_copies_equal_walked_copies(regex):
    tree = _tree(regex)
    walked, shifted = _built(tree, clone=False), _built(tree, clone=True)
    assert len(walked[0]) > 300
    assert shifted == walked


def test_embedded_tables_are_copied_with_their_chain():
    # a two-state automaton ("a" then any number of "b") repeated: one table block per copy
    table = np.array([[1, -1], [-1, 1]], dtype=np.int32)
    embedded = EmbeddedDFA(CharDFA(table, np.array([False, True]), ()), (0, 1))
    tree = rt.Repeat(rt.Concat((embedded, rt.Chars(2))), 2, 300)
    walked, shifted = _built(tree, clone=False), _built(tree, clone=True)
    assert len(walked[5]) == 300
    assert shifted == walked


@pytest.mark.parametrize("clone", [False, True])
def test_the_limit_cuts_either_way(clone):
    tree = _tree(r"(ab|c){0,5000}")
    with pytest.raises(LimitError, match="over 10,000 NFA states"):
        _built(tree, clone=clone, max_states=10_000)


def test_a_long_string_schema_keeps_its_language():
    dfa, _ = expr_to_dfa(lower_schema('{"type": "string", "minLength": 2, "maxLength": 700}'), max_states=50_000)
    for length, ok in [(1, False), (2, True), (700, True), (701, False)]:
        assert dfa.matches(('"' + "é" * length + '"').encode("utf-8")) is ok

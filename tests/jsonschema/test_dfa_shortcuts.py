"""``to_automaton.tree_to_dfa`` skips work the reference pipeline does (a breadth-first
numbering of the subsets, the liveness searches of the subsets and of the byte DFA): on schemas
of every kind it gives the DFA the reference gives, which trims and renumbers at every step."""

from __future__ import annotations

import json

import numpy as np
import pytest

from indexc.automaton.atom_partition import AtomPartition
from indexc.automaton.determinize import AtomDFA, determinize
from indexc.automaton.limits import AutomatonLimits
from indexc.automaton.liveness import live_states, trim
from indexc.automaton.round_refinement import minimize_in_rounds
from indexc.automaton.utf8_expansion import expand_utf8
from indexc.jsonschema import JsonSchemaOptions, lower_schema
from indexc.jsonschema import to_automaton
from indexc.jsonschema.shared_nfa import SharedNFABuilder

SCHEMAS = [
    {"type": "object", "properties": {"name": {"type": "string", "maxLength": 12}, "n": {"type": "integer"}},
     "required": ["name"]},
    {"type": "array", "items": {"enum": ["red", "green", "blüe", "日本"]}, "maxItems": 3},
    {"type": "string", "pattern": "^[a-z]+[0-9]{2,4}$"},
    {"type": "string", "not": {"pattern": "^ab"}, "maxLength": 5},  # an intersection, embedded
    {"type": "object", "properties": {"a": {"type": "number", "minimum": 0}}},  # "any value" embedded
    {"anyOf": [{"type": "boolean"}, {"type": "string", "format": "date"}, {"type": "null"}]},
]
MAX_STATES = 20_000


def _builder_and_tree(schema: dict):
    lowered = lower_schema(json.dumps(schema), JsonSchemaOptions())
    limits = AutomatonLimits.for_max_states(MAX_STATES)
    builder = to_automaton.TreeBuilder(lowered.definitions, lowered.options.whitespace_regex, lowered.bounded,
                                       lowered.options.any_depth, "<test>", 20 * limits.max_nfa_states, limits)
    return builder, builder.build(lowered.root), limits


def _reference(schema: dict) -> tuple[np.ndarray, np.ndarray, bool]:
    """Every step trimmed and renumbered breadth-first; and whether every subset was live."""
    builder, tree, limits = _builder_and_tree(schema)
    nfa = SharedNFABuilder(limits.max_nfa_states).build(tree)
    partition = AtomPartition.of_sets(builder.char_sets)
    subsets = determinize(nfa, partition, limits)
    all_live = bool(live_states(subsets.transitions, subsets.accepting).all())
    minimal = AtomDFA(*minimize_in_rounds(*trim(subsets.transitions, subsets.accepting)))
    expanded = expand_utf8(minimal, partition, limits)
    transitions, accepting = trim(expanded.transitions, expanded.accepting)
    return transitions, accepting, all_live


@pytest.mark.parametrize("schema", SCHEMAS, ids=range(len(SCHEMAS)))
def test_shortcuts_give_the_reference_dfa(schema):
    transitions, accepting, all_live = _reference(schema)
    builder, tree, _ = _builder_and_tree(schema)
    assert all(atoms.size for atoms in AtomPartition.of_sets(builder.char_sets).set_atoms)
    assert all_live  # what _every_subset_live concludes from the sets alone
    dfa = to_automaton.tree_to_dfa(tree, builder.char_sets, max_states=MAX_STATES)
    assert np.array_equal(dfa.transitions, transitions) and np.array_equal(dfa.accepting, accepting)


def test_a_dead_subset_still_takes_the_search(monkeypatch):
    """Were a set empty, the subsets would be searched and trimmed (``live_part``)."""
    searched = []
    monkeypatch.setattr(to_automaton, "_every_subset_live", lambda partition: False)
    real_live_part = to_automaton.live_part
    monkeypatch.setattr(to_automaton, "live_part", lambda *args: searched.append(1) or real_live_part(*args))
    transitions, accepting, _ = _reference(SCHEMAS[0])
    builder, tree, _ = _builder_and_tree(SCHEMAS[0])
    dfa = to_automaton.tree_to_dfa(tree, builder.char_sets, max_states=MAX_STATES)
    assert searched and np.array_equal(dfa.transitions, transitions)

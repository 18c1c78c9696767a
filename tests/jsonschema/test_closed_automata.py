"""The per-process memo of closed "any JSON value" automata (``to_automaton._CLOSED_AUTOMATA``):
a warm compile gives the same DFA as a cold one, and options that change the automaton are
part of its key."""

from __future__ import annotations

import numpy as np
import pytest

from indexc.jsonschema import JsonSchemaOptions, lower_schema
from indexc.jsonschema import to_automaton
from indexc.jsonschema.to_automaton import expr_to_dfa

SCHEMA = '{"type": "object", "properties": {"a": {"type": "integer"}}}'
OPTIONS = [JsonSchemaOptions(), JsonSchemaOptions(any_depth=1), JsonSchemaOptions(whitespace_pattern=" ?")]


def _arrays(options: JsonSchemaOptions) -> tuple[bytes, bytes]:
    dfa, uses_any_value = expr_to_dfa(lower_schema(SCHEMA, options), max_states=50_000)
    assert uses_any_value
    return dfa.transitions.tobytes(), np.asarray(dfa.accepting).tobytes()


@pytest.fixture
def cold_memo():
    saved = dict(to_automaton._CLOSED_AUTOMATA)
    to_automaton._CLOSED_AUTOMATA.clear()
    yield to_automaton._CLOSED_AUTOMATA
    to_automaton._CLOSED_AUTOMATA.clear()
    to_automaton._CLOSED_AUTOMATA.update(saved)


def test_warm_compiles_equal_cold_ones_per_options(cold_memo):
    cold = []
    for options in OPTIONS:
        cold_memo.clear()
        cold.append(_arrays(options))
    assert len(set(cold)) == len(OPTIONS)  # the options do change the DFA
    cold_memo.clear()
    warm = [_arrays(options) for options in OPTIONS]  # each reuses nothing from the others
    assert len(cold_memo) == len(OPTIONS)
    assert warm == cold
    assert [_arrays(options) for options in reversed(OPTIONS)] == cold[::-1]  # all served from the memo


def test_memo_is_bounded(cold_memo):
    for spaces in range(1, to_automaton._CLOSED_AUTOMATA_KEPT + 3):
        _arrays(JsonSchemaOptions(any_depth=1, whitespace_pattern=f" {{0,{spaces}}}"))
    assert len(cold_memo) == to_automaton._CLOSED_AUTOMATA_KEPT

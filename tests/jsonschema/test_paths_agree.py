"""The compiler's DFA (assembled from the tree) equals the DFA of ``schema_to_regex``'s text."""

from __future__ import annotations

import numpy as np
import pytest

from indexc.automaton import compile_regex
from indexc.jsonschema import JsonSchemaOptions, lower_schema, schema_to_regex
from indexc.jsonschema.to_automaton import expr_to_dfa

SCHEMAS = [
    {"type": "object", "properties": {"a": {"type": "integer", "minimum": 3}, "b": {"enum": ["x", None]}},
     "required": ["a"], "additionalProperties": False},
    {"type": "array", "prefixItems": [{"type": "string", "format": "date"}], "items": {"type": "number"}, "maxItems": 3},
    {"type": "object", "properties": {"k": {"type": "string", "pattern": "^[a-z]+$", "maxLength": 4}}},
    {"anyOf": [{"type": "null"}, {"type": "string", "minLength": 2, "maxLength": 3}]},
]


@pytest.mark.parametrize("schema", SCHEMAS)
@pytest.mark.parametrize("options", [JsonSchemaOptions(), JsonSchemaOptions(whitespace_pattern=" ?", any_depth=1)])
def test_tree_and_text_give_the_same_minimal_dfa(schema, options):
    from_text = compile_regex(schema_to_regex(schema, options))
    from_tree, _ = expr_to_dfa(lower_schema(schema, options), max_states=100_000)
    assert np.array_equal(from_text.transitions, from_tree.transitions)
    assert np.array_equal(from_text.accepting, from_tree.accepting)

"""Objects: schema order, optional and required properties, additional and pattern properties, counts."""

from __future__ import annotations

import json

import pytest

from indexc.jsonschema import JsonSchemaError
from tests.jsonschema.helpers import accepts, accepts_all_spellings, dfa_of

PERSON = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "age": {"type": "integer"}, "email": {"type": "string"}},
    "required": ["name"],
    "additionalProperties": False,
}


def test_properties_in_schema_order_with_optional_ones_skipped():
    for value in ({"name": "a"}, {"name": "a", "age": 3}, {"name": "a", "email": "x"}, {"name": "é", "age": 1, "email": "x"}):
        assert accepts_all_spellings(PERSON, value), value


def test_missing_required_wrong_order_unknown_key_and_duplicates_are_refused():
    for value in ({"age": 3}, {"age": 3, "name": "a"}, {"name": "a", "x": 1}, {}):
        assert not accepts(PERSON, json.dumps(value)), value
    assert not accepts(PERSON, '{"name": "a", "name": "b"}')


def test_additional_properties_schema_and_listed_names_excluded():
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}, "additionalProperties": {"type": "string"}}
    assert accepts_all_spellings(schema, {"a": 1, "b": "x", "c": "y"})
    assert accepts_all_spellings(schema, {"ab": "x", "": "y"})
    assert not accepts(schema, '{"b": 1}')
    assert not accepts(schema, '{"a": "x"}')  # "a" cannot come back as an additional key


def test_additional_properties_default_allows_any_value_after_listed_ones():
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}}
    assert accepts_all_spellings(schema, {"a": 1, "extra": {"x": [1, None, True]}, "more": "s"})
    assert not accepts(schema, '{"a": "no"}')


def test_pattern_properties():
    schema = {"type": "object", "patternProperties": {"^x-": {"type": "integer"}}, "additionalProperties": False}
    assert accepts_all_spellings(schema, {"x-a": 1, "x-b": 2})
    assert not accepts(schema, '{"y": 1}') and not accepts(schema, '{"x-a": "s"}')


def test_a_required_name_outside_properties_takes_its_patterns_schema():
    """JSON Schema validates a key that ``properties`` does not list by every pattern matching it
    (else by ``additionalProperties``); MaskBench's o62947 requires ``label`` beside a ``^label``
    pattern and ``additionalProperties: false``, which matched nothing before."""
    label = {"type": "object", "required": ["id", "label"], "properties": {"id": {"type": "string"}},
             "patternProperties": {"^label(\\.[a-z]{2})?$": {"type": "string"}, "^la": {"maxLength": 2}},
             "additionalProperties": False}
    assert accepts_all_spellings(label, {"id": "a", "label": "x", "label.en": "y"})
    assert not accepts(label, '{"id": "a"}')  # still required
    assert not accepts(label, '{"id": "a", "label": 1}')  # the first pattern's type
    assert not accepts(label, '{"id": "a", "label": "xyz"}')  # and the second's maxLength: all of them
    by_additional = {"type": "object", "required": ["n"], "patternProperties": {"^x-": {"type": "string"}},
                     "additionalProperties": {"type": "integer"}}
    assert accepts(by_additional, '{"n": 1}') and not accepts(by_additional, '{"n": "s"}')
    nowhere = {"type": "object", "required": ["n"], "patternProperties": {"^x-": {}}, "additionalProperties": False}
    with pytest.raises(JsonSchemaError, match="matches no JSON value"):
        accepts(nowhere, '{"n": 1}')


def test_additional_properties_beside_pattern_properties_take_the_other_keys():
    schema = {"type": "object", "properties": {"id": {"type": "integer"}},
              "patternProperties": {"^x-": {"type": "integer"}}, "additionalProperties": {"type": "string"}}
    assert accepts_all_spellings(schema, {"id": 1, "x-a": 2, "name": "n", "é": "s"})
    assert not accepts(schema, '{"x-a": "s"}')  # a pattern key keeps its schema
    assert not accepts(schema, '{"name": 1}')
    assert not accepts(schema, '{"id": "s"}')  # a listed name is not an additional key
    every_key = {"type": "object", "patternProperties": {".{1,}": {"type": "string"}}, "additionalProperties": {"type": "integer"}}
    assert accepts(every_key, '{"a": "s", "": 1}') and not accepts(every_key, '{"a": 1}')


def test_min_max_properties_on_a_map_and_at_least_one():
    schema = {"type": "object", "additionalProperties": {"type": "integer"}, "minProperties": 1, "maxProperties": 2}
    assert accepts(schema, '{"a": 1}') and accepts(schema, '{"a": 1, "b": 2}')
    assert not accepts(schema, "{}") and not accepts(schema, '{"a": 1, "b": 2, "c": 3}')
    one = {"type": "object", "properties": {"a": {}, "b": {}}, "additionalProperties": False, "minProperties": 1}
    assert accepts(one, '{"b": 1}') and not accepts(one, "{}")


def test_required_name_outside_properties_uses_additional_properties():
    schema = {"type": "object", "required": ["id"], "additionalProperties": {"type": "integer"}}
    assert accepts(schema, '{"id": 1}') and accepts(schema, '{"id": 1, "x": 2}') and not accepts(schema, '{"x": 2}')


def test_many_optional_properties_stay_linear():
    def schema(n):
        return {"type": "object", "properties": {f"p{i}": {"type": "boolean"} for i in range(n)},
                "additionalProperties": False}

    small, large = dfa_of(schema(12)).n_states, dfa_of(schema(24)).n_states
    assert large < 2.2 * small  # linear in the number of properties, not 2**n
    assert accepts(schema(24), '{"p3": true, "p23": false}') and not accepts(schema(24), '{"p23": true, "p3": false}')


def test_automaton_of_many_optional_properties_is_built_linearly():
    from indexc.jsonschema import lower_schema
    from indexc.jsonschema.to_automaton import expr_to_dfa

    schema = {"type": "object", "properties": {f"p{i}": {"type": "integer"} for i in range(150)},
              "additionalProperties": False}
    dfa, _ = expr_to_dfa(lower_schema(schema), max_states=20_000)  # NFA limit 80,000: quadratic would not fit
    assert dfa.matches(b'{"p0": 1, "p149": 2}') and not dfa.matches(b'{"p149": 2, "p0": 1}')


def test_a_pattern_of_anything_beside_additional_anything_needs_no_complement():
    schema = {"type": "object", "patternProperties": {"^.{1,255}$": {}}}
    assert accepts(schema, '{"key1": {}, "key2": [1, {"a": null}], "": 3}')
    assert accepts(schema, '{"' + "k" * 300 + '": 1}') and not accepts(schema, '{"a" 1}')
    strict = {"type": "object", "patternProperties": {"^x": {"type": "integer"}, "^.{1,3}$": {}}}
    assert accepts(strict, '{"xa": 1, "abc": "s", "long key": true}') and not accepts(strict, '{"xa": "s"}')


def test_a_key_complement_too_large_for_a_regex_is_an_automaton_lexeme():
    # the complement of ^[0-9a-zA-Z_-]{1,255}$ has 257 states: beyond complement.MAX_STATES
    schema = {"type": "object", "properties": {"id": {"type": "integer"}},
              "patternProperties": {"^[0-9a-zA-Z_-]{1,255}$": {"type": "string"}},
              "additionalProperties": {"type": "boolean"}}
    assert accepts(schema, '{"id": 1, "name_1": "x", "with space": true, "": false}')
    assert accepts(schema, '{"' + "k" * 256 + '": true}')  # too long for the pattern: additional
    assert not accepts(schema, '{"name": true}')  # matches the pattern: must be a string
    assert not accepts(schema, '{"with space": "x"}')  # additional: must be a boolean
    assert not accepts(schema, '{"id": true}')  # a listed name is never an additional key


def test_the_grammar_path_builds_the_same_excluded_key_lexeme():
    from indexc.grammar.lexemes import build_lexer
    from indexc.jsonschema import lower_schema
    from indexc.jsonschema.to_grammar import schema_grammar

    schema = {"type": "object", "patternProperties": {"^[a-z]{1,200}$": {"type": "string"}},
              "additionalProperties": {"type": "boolean"}}
    grammar = schema_grammar(lower_schema(schema))
    (key,) = [t for t in grammar.terminals.values() if t.excluding]
    lexer = build_lexer([key], max_states=50_000, source="test")
    for text, expected in (('"A b"', True), ('"abc"', False), ('""', True), ('"a1"', True)):
        assert lexer.dfa.matches(text.encode()) == expected, text

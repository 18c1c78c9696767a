"""The grammar path's IR: recursive schemas as rules, checked with a reference Earley recogniser."""

from __future__ import annotations

import json

import pytest

from indexc.jsonschema import JsonSchemaOptions, lower_schema
from indexc.jsonschema.to_grammar import schema_grammar
from tests.jsonschema.earley_recognizer import recognizes
from tests.jsonschema.helpers import accepts

TREE = {
    "$defs": {"node": {"type": "object", "properties": {
        "value": {"type": "integer"},
        "children": {"type": "array", "items": {"$ref": "#/$defs/node"}},
    }, "required": ["value"], "additionalProperties": False}},
    "$ref": "#/$defs/node",
}


EXCLUDED_KEYS = {"type": "object", "patternProperties": {"^[a-z]{1,200}$": {"type": "string"}},
                 "additionalProperties": {"type": "boolean"}}


def grammar_of(schema, **options):
    grammar = schema_grammar(lower_schema(schema, JsonSchemaOptions(**options)))
    grammar.validate()
    return grammar


def test_recursive_schema_becomes_a_valid_grammar():
    grammar = grammar_of(TREE)
    for value in ({"value": 1}, {"value": 1, "children": [{"value": 2, "children": [{"value": 3}]}]}):
        for text in (json.dumps(value), json.dumps(value, separators=(",", ":"))):
            assert recognizes(grammar, text), text
    for text in ('{"children": []}', '{"value": 1, "children": [{"value": "x"}]}', '{"value": 1} '):
        assert not recognizes(grammar, text), text


def test_grammar_has_no_depth_bound_on_any_value():
    grammar = grammar_of({"type": "object"})
    assert recognizes(grammar, '{"a": [[[[{"b": []}]]]]}')


@pytest.mark.parametrize("schema, text", [
    ({"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 3}, "[1, 2]"),
    ({"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 3}, "[1]"),
    ({"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 3}, "[1,2,3,4]"),
    ({"type": "object", "properties": {"a": {"type": "string"}, "b": {"enum": [1, "x"]}}}, '{"b": "x"}'),
    ({"type": "object", "properties": {"a": {"type": "string"}, "b": {"enum": [1, "x"]}}}, '{"b": 2}'),
    ({"type": "string", "format": "date"}, '"2024-02-03"'),
    ({"anyOf": [{"type": "null"}, {"type": "number", "maximum": 3}]}, "2.5"),
    ({"anyOf": [{"type": "null"}, {"type": "number", "maximum": 3}]}, "3.5"),
    ({"type": "string", "pattern": "^[a-z]+:[a-z]+$", "maxLength": 5}, '"ab:cd"'),
    ({"type": "string", "pattern": "^[a-z]+:[a-z]+$", "maxLength": 5}, '"ab:cde"'),
    ({"type": "string", "pattern": "^[a-z]+:[a-z]+$", "maxLength": 5}, '"abcde"'),
    ({"type": "string", "format": "email", "pattern": "^x"}, '"xy@ab.cd"'),
    ({"type": "string", "format": "email", "pattern": "^x"}, '"yy@ab.cd"'),
    ({"type": "string", "minLength": 130, "maxLength": 200}, json.dumps("é" * 150)),
    ({"type": "string", "minLength": 130, "maxLength": 200}, json.dumps("é" * 201)),
    (EXCLUDED_KEYS, '{"abc": "x", "A b": true}'),
    (EXCLUDED_KEYS, '{"abc": true}'),
    (EXCLUDED_KEYS, '{"A": "x"}'),
])
def test_grammar_and_dfa_paths_agree_on_regular_schemas(schema, text):
    assert recognizes(grammar_of(schema), text) == accepts(schema, text)


def test_whitespace_is_explicit_and_follows_the_policy():
    schema = {"type": "array", "items": {"type": "integer"}}
    assert recognizes(grammar_of(schema), "[ 1 ,\n2 ]")
    assert not recognizes(grammar_of(schema), " [1]")
    assert not recognizes(grammar_of(schema, whitespace_flexible=False), "[1, 2]")
    assert not recognizes(grammar_of(schema, whitespace_pattern=" ?"), "[1,  2]")


def test_an_intersection_is_one_terminal_whose_lexer_dfa_is_the_product():
    from indexc.grammar.lexemes import build_lexer

    grammar = grammar_of({"type": "string", "pattern": "^[a-z]+:[a-z]+$", "maxLength": 5})
    (terminal,) = grammar.terminals.values()
    assert terminal.also
    lexer = build_lexer([terminal], max_states=10_000, source="test")
    for text, expected in (('"ab:cd"', True), ('"a:b"', True), ('"ab:cde"', False), ('"abcde"', False)):
        assert lexer.dfa.matches(text.encode()) == expected, text


@pytest.mark.parametrize("low,high", [(0, 9), (3, 12), (9, 9), (10, 25), (17, 17), (0, 40)])
def test_long_counts_take_logarithmic_rules_and_keep_the_language(low, high):
    grammar = grammar_of({"type": "array", "items": {"const": 1}, "minItems": low, "maxItems": high}, whitespace_flexible=False)
    for count in range(0, 42):
        text = "[" + ",".join(["1"] * count) + "]"
        assert recognizes(grammar, text) == (low <= count <= high), count


def test_a_65535_character_bound_is_a_small_grammar():
    grammar = grammar_of({"type": "string", "maxLength": 65535})
    assert len(grammar.rules) < 100

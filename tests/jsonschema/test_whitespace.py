"""Whitespace policy: flexible, compact, bounded pattern, custom separators, x-guidance."""

from __future__ import annotations

import json

from tests.jsonschema.helpers import accepts

SCHEMA = {"type": "object", "properties": {"a": {"type": "array", "items": {"type": "integer"}}}}
VALUE = {"a": [1, 2]}


def test_flexible_accepts_any_json_whitespace_inside_but_not_around():
    assert accepts(SCHEMA, json.dumps(VALUE, indent=4))
    assert accepts(SCHEMA, '{\t"a"\r\n:\n[ 1 ,2 ] }')
    assert not accepts(SCHEMA, " " + json.dumps(VALUE)) and not accepts(SCHEMA, json.dumps(VALUE) + "\n")


def test_compact_accepts_no_whitespace():
    assert accepts(SCHEMA, '{"a":[1,2]}', whitespace_flexible=False)
    assert not accepts(SCHEMA, '{"a": [1,2]}', whitespace_flexible=False)
    assert accepts({**SCHEMA, "x-guidance": {"whitespace_flexible": False}}, '{"a":[1,2]}')
    assert not accepts({**SCHEMA, "x-guidance": {"whitespace_flexible": False}}, '{"a": [1,2]}')


def test_bounded_whitespace_pattern_matches_at_most_once_per_place():
    options = {"whitespace_pattern": "[ \\n]{1,2}"}
    assert accepts(SCHEMA, '{"a":  [1, 2]}', **options)
    assert not accepts(SCHEMA, '{"a":   [1, 2]}', **options)
    assert not accepts(SCHEMA, '{"a":\t[1, 2]}', **options)
    assert accepts({"type": "array"}, "[  ]", **options) and not accepts({"type": "array"}, "[   ]", **options)


def test_custom_separators_from_x_guidance():
    schema = {**SCHEMA, "x-guidance": {"item_separator": "\\s{0,2},\\s{0,2}", "key_separator": "=",
                                       "whitespace_flexible": False}}
    assert accepts(schema, '{"a"=[1 ,  2]}') and not accepts(schema, '{"a":[1,2]}')
    assert not accepts(schema, '{"a"=[1,   2]}')


def test_explicit_options_win_over_x_guidance():
    schema = {**SCHEMA, "x-guidance": {"whitespace_flexible": False}}
    assert accepts(schema, '{"a": [1, 2]}', whitespace_flexible=True)

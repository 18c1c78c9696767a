"""Bad schemas: the error names what and where (JSON pointer, or line/column for bad JSON)."""

from __future__ import annotations

import pytest

from indexc.errors import IndexcError
from indexc.jsonschema import JsonSchemaError, JsonSchemaOptions, lower_schema, schema_to_regex


def error_of(schema, **options) -> JsonSchemaError:
    with pytest.raises(JsonSchemaError) as info:
        schema_to_regex(schema, JsonSchemaOptions(**options))
    assert isinstance(info.value, IndexcError)
    return info.value


def test_invalid_json_has_line_and_column():
    error = error_of('{\n  "type": "object",\n  "properties": {,}\n}')
    assert "line 3, column 18" in str(error)


def test_unsupported_keyword_names_keyword_and_pointer():
    error = error_of({"type": "object", "properties": {"a/b": {"not": {"enum": [1]}}}})
    assert "'not'" in str(error) and "#/properties/a~1b/not" in str(error)
    assert error.keyword == "not"
    error = error_of({"type": "array", "contains": {"type": "string"}})
    assert "'contains'" in str(error) and "#/contains" in str(error)


def test_lenient_mode_ignores_with_warnings():
    lowered = lower_schema({"type": "array", "uniqueItems": True, "items": {"if": {}, "then": {}}},
                           JsonSchemaOptions(lenient=True))
    assert any("uniqueItems" in w and "#/uniqueItems" in w for w in lowered.warnings)
    assert any("'if'" in w for w in lowered.warnings)


def test_unknown_keywords_and_formats_are_annotations():
    lowered = lower_schema({"type": "string", "format": "int32", "javaType": "x", "x-vendor": 1})
    assert lowered.warnings == ["format 'int32' is not checked (unknown formats are annotations) (at #/format)"]


@pytest.mark.parametrize("ref, expected", [
    ("#/$defs/missing", "points nowhere"),
    ("other.json#/a", "outside the document"),
    ("#nope", "no anchor"),
])
def test_bad_refs_name_the_pointer(ref, expected):
    error = error_of({"type": "object", "properties": {"a": {"$ref": ref}}})
    assert expected in str(error) and "#/properties/a/$ref" in str(error)


@pytest.mark.parametrize("schema", [
    {"type": "integer", "minimum": 5, "maximum": 4},
    {"type": "string", "minLength": 3, "maxLength": 2},
    {"allOf": [{"type": "string"}, {"type": "integer"}]},
    {"type": "object", "properties": {"a": False}, "required": ["a"]},
    {"enum": ["a"], "type": "integer"},
    False,
])
def test_empty_language_is_a_clear_error(schema):
    assert "matches no JSON value" in str(error_of(schema))


def test_not_a_schema():
    assert "must be an object or a boolean" in str(error_of('[1, 2]'))
    assert "type must be" in str(error_of({"type": 3}))

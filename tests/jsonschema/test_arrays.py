"""Arrays: items, prefixItems (and draft-4 tuple items), min/maxItems."""

from __future__ import annotations

from tests.jsonschema.helpers import accepts, accepts_all_spellings


def test_items_and_counts():
    schema = {"type": "array", "items": {"type": "integer"}, "minItems": 1, "maxItems": 3}
    for value in ([1], [1, 2, 3]):
        assert accepts_all_spellings(schema, value)
    for text in ("[]", "[1, 2, 3, 4]", '["a"]', "[1,]"):
        assert not accepts(schema, text), text


def test_prefix_items_then_items():
    schema = {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}], "items": {"type": "boolean"}}
    for value in ([], ["a"], ["a", 1], ["a", 1, True, False]):
        assert accepts_all_spellings(schema, value), value
    for text in ("[1]", '["a", "b"]', '["a", 1, 2]'):
        assert not accepts(schema, text), text


def test_draft4_tuple_items_with_additional_items_false():
    schema = {"type": "array", "items": [{"type": "integer"}, {"type": "integer"}], "additionalItems": False, "minItems": 2}
    assert accepts(schema, "[1, 2]") and not accepts(schema, "[1]") and not accepts(schema, "[1, 2, 3]")


def test_empty_array_whitespace_and_nesting():
    schema = {"type": "array", "items": {"type": "array", "items": {"type": "null"}}}
    assert accepts(schema, "[ ]") and accepts(schema, "[[], [null, null]]") and not accepts(schema, "[[1]]")

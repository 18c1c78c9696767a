"""``indexc.jsonschema.synthetic_instance``: the text the compiler's warm-up walk reads."""

from __future__ import annotations

import json
import re

from indexc.jsonschema.synthetic_instance import synthetic_instance, synthetic_text

LIST = {"$defs": {"node": {"type": "object", "required": ["v"], "additionalProperties": False,
                           "properties": {"v": {"type": "integer", "minimum": 3},
                                          "tags": {"type": "array", "items": {"enum": ["a", "b"]}},
                                          "next": {"$ref": "#/$defs/node"}}}},
        "$ref": "#/$defs/node"}


def test_every_property_in_schema_order_then_only_required_ones_once_a_ref_recurs():
    assert synthetic_instance(LIST) == {"v": 3, "tags": ["a"], "next": {"v": 3}}


def test_choices_take_their_first_option_and_scalars_their_bounds():
    schema = {"type": "object", "properties": {
        "s": {"type": "string", "minLength": 3}, "n": {"type": ["null", "number"], "minimum": 0.5},
        "o": {"anyOf": [{"type": "boolean"}, {"type": "string"}]}, "c": {"const": [1]},
        "t": {"type": "array", "prefixItems": [{"type": "null"}, {"type": "integer"}]},
        "m": {"$ref": "#/nowhere"}}}
    assert synthetic_instance(schema) == {"s": "xxx", "n": 0.5, "o": True, "c": [1], "t": [None, 1], "m": "x"}


def test_patterns_and_formats_give_the_shortest_matching_string():
    schema = {"type": "object", "properties": {"id": {"type": "string", "pattern": "^[A-F\\d]{4}$"},
                                               "when": {"type": "string", "format": "date-time"},
                                               "mail": {"type": "string", "format": "email"}}}
    value = synthetic_instance(schema)
    assert value["id"] == "0000"
    assert re.fullmatch(r"\d{4}-\d\d-\d\d[tT]\d\d:\d\d:\d\d([zZ]|[+-]\d\d:\d\d)", value["when"]), value
    assert re.fullmatch(r"[^@\s]+@[^@\s]+", value["mail"]), value


def test_an_object_without_properties_gets_one_entry_of_its_pattern_or_additional_properties():
    assert synthetic_instance({"type": "object", "patternProperties": {"^x-[a-z]+$": {"type": "integer"}}}) \
        == {"x-a": 1}
    assert synthetic_instance({"additionalProperties": {"type": "boolean"}}) == {"key": True}
    assert synthetic_instance({"type": "object", "additionalProperties": False}) == {}


def test_the_text_uses_the_constraints_separators():
    assert synthetic_text({"type": "array", "items": {"type": "object", "properties": {"a": {"const": 1}}}}) \
        == '[{"a": 1}]'
    assert synthetic_text({"properties": {"a": {"const": 1}, "b": {"const": 2}}}, item_separator=";",
                          key_separator="=", flexible_whitespace=False) == '{"a"=1;"b"=2}'
    assert json.loads(synthetic_text(LIST)) == synthetic_instance(LIST)


def test_a_wide_ref_dag_is_cut_by_the_value_budget():
    """Twelve levels of four properties naming the next level: 4**12 values in full, not here."""
    from indexc.jsonschema.synthetic_instance import MAX_VALUES

    levels = {f"l{i}": {"type": "object", "required": ["a"],
                        "properties": {name: {"$ref": f"#/$defs/l{i + 1}"} for name in "abcd"}} for i in range(12)}
    levels["l12"] = {"type": "integer"}
    value = synthetic_instance({"$defs": levels, "$ref": "#/$defs/l0"})

    def count(v):
        return 1 + sum(count(x) for x in v.values()) if isinstance(v, dict) else 1

    assert 1_000 < count(value) <= MAX_VALUES  # values and $ref steps both spend the budget; leaves still reached

"""$ref, allOf, anyOf, oneOf, enum, const, nullable, boolean schemas, sibling keywords."""

from __future__ import annotations

import json

import pytest

from indexc.jsonschema import JsonSchemaError, schema_to_regex
from tests.jsonschema.helpers import accepts, accepts_all_spellings


def test_local_refs_defs_definitions_and_pointer_escapes():
    schema = {
        "$defs": {"pos": {"type": "integer", "minimum": 1}},
        "definitions": {"a/b": {"type": "string"}},
        "type": "object",
        "properties": {"n": {"$ref": "#/$defs/pos"}, "s": {"$ref": "#/definitions/a~1b"}},
    }
    assert accepts_all_spellings(schema, {"n": 3, "s": "x"})
    assert not accepts(schema, '{"n": 0}') and not accepts(schema, '{"s": 1}')


def test_ref_siblings_are_intersected():
    schema = {"$defs": {"s": {"type": "string"}}, "$ref": "#/$defs/s", "maxLength": 2}
    assert accepts(schema, '"ab"') and not accepts(schema, '"abc"')


def test_all_of_merges_properties_in_order():
    schema = {"allOf": [
        {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]},
        {"properties": {"b": {"type": "string"}, "a": {"minimum": 0}}, "required": ["b"]},
    ]}
    assert accepts(schema, '{"a": 1, "b": "x"}')
    assert not accepts(schema, '{"a": -1, "b": "x"}') and not accepts(schema, '{"a": 1}')


def test_any_of_with_siblings():
    schema = {"type": "object", "properties": {"a": {}, "b": {}}, "additionalProperties": False,
              "anyOf": [{"required": ["a"]}, {"required": ["b"]}]}
    assert accepts(schema, '{"a": 1}') and accepts(schema, '{"b": 1}') and not accepts(schema, "{}")


def test_one_of_disjoint_by_type_and_by_automaton():
    by_type = {"oneOf": [{"type": "string"}, {"type": "integer"}]}
    assert accepts(by_type, '"x"') and accepts(by_type, "3")
    tagged = {"oneOf": [
        {"type": "object", "properties": {"k": {"const": "a"}, "v": {"type": "integer"}}, "required": ["k"], "additionalProperties": False},
        {"type": "object", "properties": {"k": {"const": "b"}, "v": {"type": "string"}}, "required": ["k"], "additionalProperties": False},
    ]}
    assert accepts(tagged, '{"k": "a", "v": 1}') and accepts(tagged, '{"k": "b", "v": "s"}')
    assert not accepts(tagged, '{"k": "a", "v": "s"}')


def test_overlapping_one_of_is_an_error_unless_lenient():
    schema = {"oneOf": [{"type": "integer"}, {"type": "number", "minimum": 0}]}
    with pytest.raises(JsonSchemaError, match=r"oneOf.*#/oneOf"):
        schema_to_regex(schema)
    assert accepts(schema, "3", lenient=True)
    assert accepts({**schema, "x-guidance": {"coerce_one_of": True}}, "3")


def test_enum_const_filtered_by_siblings():
    schema = {"type": "string", "enum": ["a", 1, "é", None]}
    assert accepts_all_spellings(schema, "é") and not accepts(schema, "1") and not accepts(schema, "null")
    assert accepts({"const": 1}, "1.0") and not accepts({"const": 1}, "2")
    nested = {"const": {"a": [1, "x"], "b": None}}
    assert accepts_all_spellings(nested, {"a": [1, "x"], "b": None})
    assert not accepts(nested, '{"b": null, "a": [1, "x"]}')  # key order as listed (policy)


def test_nullable_and_type_lists_and_boolean_schemas():
    assert accepts({"type": "string", "nullable": True}, "null")
    assert accepts({"type": ["integer", "null"]}, "null") and not accepts({"type": ["integer", "null"]}, '"x"')
    assert accepts(True, json.dumps({"deep": [1, {}, None]}))
    schema = {"type": "object", "properties": {"never": False, "ok": True}}
    assert accepts(schema, '{"ok": 1}') and not accepts(schema, '{"never": 1}')


def test_untyped_schema_allows_every_type_with_keywords_per_type():
    schema = {"minLength": 2, "minimum": 5}
    assert accepts(schema, '"ab"') and not accepts(schema, '"a"') and accepts(schema, "7") and not accepts(schema, "4")
    assert accepts(schema, "null") and accepts(schema, "[1]")


def test_recursive_schema_needs_the_grammar_path():
    schema = {"$defs": {"node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/node"}}}}, "$ref": "#/$defs/node"}
    with pytest.raises(JsonSchemaError, match="grammar path"):
        schema_to_regex(schema)


def test_any_value_nesting_bound_of_the_dfa_path():
    assert accepts(True, json.dumps({"a": [1, {"x": None}]}))  # depth 3: the default bound
    deep = json.dumps({"a": [1, {"x": [None]}]})
    assert not accepts(True, deep) and accepts(True, deep, any_depth=4)


def test_not_with_a_positive_form():
    assert not accepts({"type": "object", "properties": {"a": {"not": {}}}}, '{"a": 1}')
    no_null = {"type": ["string", "null"], "not": {"type": "null"}}
    assert accepts(no_null, '"x"') and not accepts(no_null, "null")
    no_b = {"type": "object", "properties": {"a": {}, "b": {}}, "not": {"required": ["b"]}}
    assert accepts(no_b, '{"a": 1}') and not accepts(no_b, '{"a": 1, "b": 2}')
    neither = {"type": "object", "not": {"anyOf": [{"required": ["x"]}, {"required": ["y"]}]},
               "additionalProperties": {"type": "integer"}}
    assert accepts(neither, '{"z": 1}') and not accepts(neither, '{"y": 1}')


def test_not_required_several_names_and_non_objects():
    """``required`` holds for every non-object, so ``not: {required: ...}`` rejects them all."""
    from itertools import combinations

    names = ["a", "b", "c"]
    untyped = {"properties": {n: {"type": "integer"} for n in names}, "not": {"required": ["a", "b"]}}
    assert not accepts(untyped, '"x"') and not accepts(untyped, "1") and not accepts(untyped, "null")
    nested = {"properties": untyped["properties"], "not": {"anyOf": [{"required": ["a"]}, {"required": ["b", "c"]}]}}
    assert not accepts(nested, "[]")
    for size in range(len(names) + 1):
        for present in combinations(names, size):
            text = json.dumps({name: 1 for name in present})
            assert accepts(untyped, text) == (not {"a", "b"} <= set(present)), text
            assert accepts(nested, text) == ("a" not in present and not {"b", "c"} <= set(present)), text


def test_enum_decides_every_other_keyword_value_by_value():
    schema = {"allOf": [{"enum": [[1, 1], [1, 2], {"a": 1}, {"a": 1, "b": 2}, 4.5, "x"]},
                        {"not": {"anyOf": [{"type": "string"}, {"type": "number", "multipleOf": 1.5}]}},
                        {"uniqueItems": True, "dependentRequired": {"a": ["b"]}}]}
    assert accepts(schema, "[1, 2]") and accepts(schema, '{"a": 1, "b": 2}')
    assert not accepts(schema, "[1, 1]") and not accepts(schema, '{"a": 1}')
    assert not accepts(schema, "4.5") and not accepts(schema, '"x"')


def test_json_key_has_json_equality():
    """``json_key`` (enums intersected by hashing) equal exactly where ``json_equal`` is."""
    from indexc.jsonschema.merge import json_equal, json_key

    values = [1, 1.0, True, False, 0, None, "1", [1, 2], [2, 1], [1.0, 2], {"a": 1, "b": [True]},
              {"b": [True], "a": 1.0}, {"a": 1}, {"a": "1"}, [], {}, "", [[1]], [[True]], 10 ** 20, 1e20]
    for a in values:
        for b in values:
            assert (json_key(a) == json_key(b)) == json_equal(a, b), (a, b)


def test_a_long_enum_keeps_exactly_its_valid_values():
    """Two long enums (``allOf``) intersected by ``json_key``: the values both list, with JSON's
    equality (1 and 1.0 one value, true not 1, keys in any order)."""
    long = [f"v{i}" for i in range(40)] + [1, True, {"a": [1, 2]}]
    schema = {"allOf": [{"enum": long}, {"enum": [f"v{i}" for i in range(0, 40, 2)] + [1.0, {"a": [1.0, 2]}, False]}]}
    assert accepts(schema, '"v0"') and accepts(schema, '"v38"') and not accepts(schema, '"v1"')
    assert accepts(schema, "1") and not accepts(schema, "true") and accepts(schema, '{"a": [1, 2]}')


def test_one_of_disjoint_by_object_structure_without_building_automata():
    closed = {"oneOf": [
        {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"], "additionalProperties": False},
        {"type": "object", "properties": {"b": {"type": "string"}}, "required": ["b"], "additionalProperties": False},
    ]}
    assert accepts(closed, '{"a": "x"}') and accepts(closed, '{"b": "y"}') and not accepts(closed, '{"a": "x", "b": "y"}')
    open_tagged = {"oneOf": [
        {"type": "object", "properties": {"kind": {"enum": ["x", "y"]}}, "required": ["kind"]},
        {"type": "object", "properties": {"kind": {"const": "z"}}, "required": ["kind"]},
    ]}
    assert accepts(open_tagged, '{"kind": "z", "other": [1]}')


def test_dependencies_as_branches():
    schema = {"type": "object", "properties": {"card": {"type": "string"}, "zip": {"type": "string"}, "n": {"type": "integer"}},
              "dependentRequired": {"card": ["zip"]}, "dependencies": {"n": {"properties": {"zip": {"const": "9"}}}},
              "additionalProperties": False}
    assert accepts(schema, '{"card": "c", "zip": "1"}') and accepts(schema, '{"zip": "1"}') and accepts(schema, "{}")
    assert not accepts(schema, '{"card": "c"}')
    assert accepts(schema, '{"zip": "9", "n": 1}') and not accepts(schema, '{"zip": "1", "n": 1}')


_A = {"properties": {"a": {"type": "integer"}}}
_B = {"type": "integer"}


@pytest.mark.parametrize("schema,first,second", [
    ({"allOf": [_A], "properties": {"b": _B}}, '{"a": 1, "b": 2}', '{"b": 2, "a": 1}'),
    ({"properties": {"b": _B}, "allOf": [_A]}, '{"b": 2, "a": 1}', '{"a": 1, "b": 2}'),
    ({"type": "object", "allOf": [_A], "properties": {"b": _B}}, '{"a": 1, "b": 2}', '{"b": 2, "a": 1}'),
    ({"$ref": "#/$defs/x", "properties": {"b": _B}, "$defs": {"x": _A}}, '{"a": 1, "b": 2}', '{"b": 2, "a": 1}'),
    ({"properties": {"b": _B}, "$ref": "#/$defs/x", "$defs": {"x": _A}}, '{"b": 2, "a": 1}', '{"a": 1, "b": 2}'),
])
def test_merged_properties_follow_the_order_the_keys_are_written(schema, first, second):
    # llguidance's order (checked against llguidance 1.x): each part where its key stands
    assert accepts(schema, first) and not accepts(schema, second)


@pytest.mark.parametrize("branch_limit", [None, 1_000_000])
def test_one_of_branches_that_share_values_in_different_key_orders_are_not_proved_disjoint(branch_limit, monkeypatch):
    # {"id", "win", "lose"} matches both branches, but as texts the two branches order its keys
    # differently, so a text-level product finds no common text: the automaton proof is not
    # used on branches that can hold objects, however large the branch limit
    import indexc.jsonschema.one_of as one_of

    if branch_limit is not None:
        monkeypatch.setattr(one_of, "MAX_BRANCH_STATES", branch_limit)
    schema = {"type": "object", "oneOf": [
        {"type": "object", "required": ["id", "win"], "properties": {"id": {"type": "string"}}},
        {"type": "object", "required": ["id", "lose"], "properties": {"id": {"type": "string"}}}]}
    with pytest.raises(JsonSchemaError, match="oneOf"):
        schema_to_regex(schema)


def test_one_of_automaton_proof_still_separates_object_free_branches():
    schema = {"oneOf": [{"type": "string", "pattern": "^a+$"}, {"type": "string", "pattern": "^b+$"}]}
    assert accepts(schema, '"aa"') and accepts(schema, '"b"') and not accepts(schema, '"ab"')


def test_one_of_required_sets_means_exactly_one_complete_set():
    """Every subset of four keys, against "exactly one branch's required keys are all present"."""
    from itertools import combinations

    names = ["a", "b", "c", "d"]
    branches = [["a", "b"], ["c"], ["b", "d"]]
    schema = {"properties": {n: {"type": "integer"} for n in names}, "oneOf": [{"required": r} for r in branches]}
    for size in range(len(names) + 1):
        for present in combinations(names, size):
            complete = sum(all(key in present for key in keys) for keys in branches)
            text = json.dumps({name: 1 for name in present})
            assert accepts(schema, text) == (complete == 1), text
    assert not accepts(schema, '"x"') and not accepts(schema, "1")  # a non-object matches every branch


def test_one_of_required_sets_where_a_branch_is_never_alone():
    nested = {"type": "object", "oneOf": [{"required": ["a"]}, {"required": ["a", "b"]}]}
    assert accepts(nested, '{"a": 1}') and accepts(nested, '{"a": 1, "c": 2}')
    assert not accepts(nested, '{"a": 1, "b": 2}') and not accepts(nested, "{}")
    same = {"type": "object", "oneOf": [{"required": ["a"]}, {"required": ["a"], "description": "same"}]}
    with pytest.raises(JsonSchemaError, match=r"oneOf"):  # never exactly one: refused as before
        schema_to_regex(same)


def test_one_of_untyped_object_branches_are_read_as_objects():
    """A non-object matches both untyped branches, so oneOf rejects it; objects are told apart by ``k``."""
    tagged = {"oneOf": [{"required": ["k"], "properties": {"k": {"enum": ["a"]}, "n": {"type": "integer"}}},
                        {"$ref": "#/$defs/b"}],
              "$defs": {"b": {"required": ["k"], "properties": {"k": {"const": "b"}}, "additionalProperties": False}}}
    assert accepts(tagged, '{"k": "a", "n": 1}') and accepts(tagged, '{"k": "b"}')
    for text in ('"x"', "1", "null", "[]", "{}", '{"k": "c"}', '{"k": "b", "n": 1}', '{"k": "a", "n": "x"}'):
        assert not accepts(tagged, text), text
    with_string_keyword = {"oneOf": [{"required": ["k"], "properties": {"k": {"const": "a"}}},
                                     {"required": ["k"], "properties": {"k": {"const": "b"}}, "minLength": 2}]}
    with pytest.raises(JsonSchemaError, match=r"oneOf"):  # "x...": a string of 2+ matches branch 0 and 1
        schema_to_regex(with_string_keyword)


def test_not_pattern_excludes_the_strings_it_matches():
    schema = {"type": "string", "minLength": 1, "not": {"pattern": "^[.,*\\\\\\-\\s{}()]+$"}}  # MaskBench o65415
    assert accepts(schema, '"Ann"') and accepts(schema, '"a-b"') and accepts(schema, '"-x"')
    for text in ('"-"', '"..."', '"( )"', '"\\\\"', '""', "1"):
        assert not accepts(schema, text), text
    untyped = {"not": {"pattern": "a"}, "allOf": [{"not": {"pattern": "^b"}}]}  # two, merged; non-strings out
    assert accepts(untyped, '"xyz"') and accepts(untyped, '"cb"')
    for text in ('"xa"', '"bc"', '"\\u0061"', "null", "{}"):
        assert not accepts(untyped, text), text


def test_not_enum_of_strings_excludes_exactly_those_strings():
    schema = {"type": ["string", "integer"], "not": {"enum": ["test", "a.b", "(x)*", "é", "\\"]}}  # one backslash
    for text in ('"tests"', '"atb"', '"x"', '"(x)"', '"e"', "1"):
        assert accepts(schema, text), text
    for text in ('"test"', '"a.b"', '"(x)*"', '"é"', '"\\u00e9"', '"\\\\"', '"\\u005c"'):
        assert not accepts(schema, text), text
    assert not accepts({"type": "string", "not": {"const": "x"}}, '"x"')
    typed = {"type": "string", "not": {"type": "string", "enum": ["null", "int"]}}  # avro-avsc's primitiveType
    assert accepts(typed, '"record"') and not accepts(typed, '"int"')


def test_not_enum_values_with_regex_and_control_characters_are_literal():
    schema = {"type": "string", "not": {"enum": ["a&b", "x~y", "p q", "#1", "a-b", "\n", "é"]}}
    for text in ('"a&b"', '"x~y"', '"p q"', '"#1"', '"a-b"', '"\\n"', '"\\u000a"', '"é"'):
        assert not accepts(schema, text), text
    for text in ('"ab"', '"a"', '"x"', '"pq"', '"1"', '"ab-"', '"e"', '"\\t"'):
        assert accepts(schema, text), text

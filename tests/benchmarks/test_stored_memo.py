"""``bench/warmup_bound.py``: the synthetic instance it warms a memo with, and one measured case."""

from __future__ import annotations

import json

from bench.warmup_bound import measure, render_table, synthetic_instance

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


def test_a_recursive_schema_is_measured_cold_and_warmed(tmp_path):
    case = tmp_path / "list.json"
    instances = [{"v": 3, "tags": ["a", "b"], "next": {"v": 4, "next": {"v": 5}}}, {"v": 7}]
    case.write_text(json.dumps({"description": "", "meta": {}, "schema": LIST,
                                "tests": [{"data": d, "valid": True, "description": ""} for d in instances]}))
    row = measure("maskbench", str(case))
    assert row["path"] == "cfg" and row["warm_up_masks"] == row["warm_up_tokens"] > 10
    assert len(row["cold_us"]) == len(row["warmed_us"]) > 20
    table = render_table([{"kind": "maskbench", "name": "list", **row}])
    assert f"| list | {len(row['cold_us']):,} |" in table and "**MaskBench, 1 grammar-path files**" in table

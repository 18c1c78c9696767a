"""``bench/parser_floor.py``: a cold walk and its replay with the parser's work done, per case."""

from __future__ import annotations

import json

from bench.parser_floor import measure, render_table

# A recursive schema (a tree of named nodes), so that it takes the grammar path.
NODE_PROPERTIES = {"name": {"type": "string"}, "kids": {"type": "array", "items": {"$ref": "#/$defs/node"}}}
TREE = {"$defs": {"node": {"type": "object", "properties": NODE_PROPERTIES, "required": ["name"],
                           "additionalProperties": False}},
        "$ref": "#/$defs/node"}


def test_a_grammar_is_walked_cold_then_with_its_parser_warm():
    row = measure("grammar", "sql")
    assert row["path"] == "cfg" and len(row["cold_us"]) == len(row["floor_us"]) == row["masks"] > 0
    assert 0 < row["computed"] <= row["masks"]
    assert len(row["repeat"]) == row["masks"] and sum(row["repeat"]) < row["computed"]  # the first computed row is new
    table = render_table([{"kind": "grammar", "name": "sql", **row}])
    assert f"| sql | {row['masks']} |" in table


def test_a_maskbench_file_walks_each_instance_up_to_its_rejection(tmp_path):
    tests = [{"valid": True, "data": {"name": "a", "kids": [{"name": "b", "kids": []}]}},
             {"valid": False, "data": {"name": "a", "size": 3}}]
    path = tmp_path / "Handmade---tree.json"
    path.write_text(json.dumps({"schema": TREE, "tests": tests}))
    row = measure("maskbench", str(path))
    assert row["path"] == "cfg" and len(row["cold_us"]) == len(row["floor_us"]) == row["masks"]
    valid_chars = len(json.dumps(tests[0]["data"]))  # at least one token per ~4 characters, at most one per character
    assert valid_chars // 6 < row["masks"] < 2 * valid_chars
    table = render_table([{"kind": "maskbench", "name": path.name, **row}])
    assert "**MaskBench, 1 grammar-path files**" in table


def test_a_schema_on_the_dfa_path_is_reported_as_lookups(tmp_path):
    path = tmp_path / "Handmade---flat.json"
    path.write_text(json.dumps({"schema": {"type": "object", "properties": {"a": {"type": "integer"}}},
                                "tests": [{"valid": True, "data": {"a": 1}}]}))
    row = measure("maskbench", str(path))
    assert row == {"path": "dfa"}
    assert "dfa path (lookups)" in render_table([{"kind": "maskbench", "name": path.name, **row}])


def test_the_last_column_counts_slow_cold_masks_that_repeat_an_earlier_row():
    row = {"kind": "maskbench", "name": "x.json", "path": "cfg", "masks": 4,
           "cold_us": [300.0, 250.0, 90.0, 1200.0], "floor_us": [50.0, 40.0, 30.0, 20.0],
           "repeat": [False, True, True, True]}
    line = next(line for line in render_table([row]).splitlines() if line.startswith("| x.json |"))
    assert line.endswith("| 3 / 0 | 1 / 0 | 2 |")  # 250 and 1,200 repeat and are slow; 90 repeats, fast

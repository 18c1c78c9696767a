"""``bench.maskbench.recursive``: which schemas the grammar bench's recursive row runs, and ``--files @LIST``."""

from __future__ import annotations

import json

import pytest

from bench.maskbench.cli import _file_patterns
from bench.maskbench.recursive import is_recursive

TREE = {"$defs": {"node": {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}},
        "$ref": "#/$defs/node"}
MUTUAL = {"$defs": {"a": {"type": "array", "items": {"$ref": "#/$defs/b"}}, "b": {"anyOf": [{"type": "null"}, {"$ref": "#/$defs/a"}]}},
          "$ref": "#/$defs/a"}
SHARED = {"$defs": {"leaf": {"type": "string"}}, "type": "object",
          "properties": {"x": {"$ref": "#/$defs/leaf"}, "y": {"$ref": "#/$defs/leaf"}}}


@pytest.mark.parametrize("schema", [TREE, MUTUAL])
def test_a_ref_cycle_is_recursive(schema):
    assert is_recursive(json.dumps(schema))


@pytest.mark.parametrize("schema", [SHARED, {"type": "object"}, {"type": "array", "items": {}}, True])
def test_shared_refs_and_free_form_values_are_not(schema):
    """A definition used twice is no cycle; nor is "any JSON value" (bounded on the DFA path)."""
    assert not is_recursive(json.dumps(schema))


def test_files_at_list_reads_one_pattern_a_line(tmp_path):
    listing = tmp_path / "list.txt"
    listing.write_text("# a comment\nA.json\n\n  B*.json  \n", encoding="utf-8")
    assert _file_patterns(f"@{listing}") == ["A.json", "B*.json"]
    assert _file_patterns("A.json,B*.json") == ["A.json", "B*.json"]
    with pytest.raises(SystemExit, match="missing.txt"):
        _file_patterns(f"@{tmp_path / 'missing.txt'}")

"""``bench/stored_memo.py``: one recursive schema measured without and with its stored memo."""

from __future__ import annotations

import json

from bench.stored_memo import measure, render_table
from tests.jsonschema.test_synthetic_instance import LIST


def test_a_recursive_schema_is_measured_without_and_with_its_stored_memo(tmp_path):
    case = tmp_path / "list.json"
    instances = [{"v": 3, "tags": ["a", "b"], "next": {"v": 4, "next": {"v": 5}}}, {"v": 7}]
    case.write_text(json.dumps({"description": "", "meta": {}, "schema": LIST,
                                "tests": [{"data": d, "valid": True, "description": ""} for d in instances]}))
    row = measure("maskbench", str(case))
    assert row["path"] == "cfg" and row["warm_up_walked"] == row["warm_up_tokens"] > 10
    assert row["warm_up_configurations"] > 5  # 9 since whitespace is glued into the brackets (session 25), 11+ before
    assert len(row["without_us"]) == len(row["with_us"]) > 20
    table = render_table([{"kind": "maskbench", "name": "list", **row}])
    assert f"| list | {len(row['with_us']):,} |" in table and "**1 grammar-path cases pooled**" in table


def test_a_grammar_is_measured_with_its_sampled_warm_up():
    """A Lark or GBNF grammar's warm-up is its sampled sentences (``DEFAULT_WARM_UP_SAMPLES``
    tokens, all of them walked)."""
    from indexc.limits import DEFAULT_WARM_UP_SAMPLES

    row = measure("grammar", "sql")
    assert row["warm_up_walked"] == row["warm_up_tokens"] == DEFAULT_WARM_UP_SAMPLES
    assert row["warm_up_configurations"] > 0 and len(row["without_us"]) == len(row["with_us"]) > 10

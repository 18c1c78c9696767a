"""``bench/bench_grammar.py``: one engine on one grammar, measured in process, and its table row."""

from __future__ import annotations

import pytest

from bench.bench_grammar import measure, render_table


@pytest.mark.parametrize("engine", ["indexc", "llguidance"])
def test_measure_walks_the_sample_document_twice(engine):
    row = measure(engine, "sql")
    assert row["accepted"], row["failure"]
    assert len(row["cold_mask_us"]) == len(row["warm_mask_us"]) == row["tokens"] + 1  # + the EOS check
    assert len(row["advance_us"]) == row["tokens"]
    assert row["cold_walk_ms"] * 1000 == pytest.approx(sum(row["cold_mask_us"]) + sum(row["advance_us"]), abs=1)
    assert row["compile_ms"] > 0 and row["load_first_mask_ms"] > 0
    assert (row["bytes"] is None) == (engine == "llguidance")  # llguidance has no serialized form
    table = render_table([{"grammar": "sql", "engine": engine, **row}])
    assert f"| sql | {engine} | {row['tokens']} |" in table and table.rstrip().endswith(f"| {row['cold_walk_ms']:,.2f} | yes |")
    if engine == "indexc":  # a process that only loads the artifact walked the document too
        served = row["served"]
        assert served["accepted"], served
        assert len(served["cold_mask_us"]) == row["tokens"] + 1 and served["load_first_mask_ms"] > 0
        assert f"| {served['load_first_mask_ms']:,.2f}, " in table
    else:
        assert "served" not in row and "| — |" in table


def test_a_rejected_document_says_where():
    """llguidance's greedy lexer cannot read ``a=b\\n`` in arithmetic.gbnf (``ws`` before a required
    newline), which indexc's all-splits lexing accepts (docs/grammar-path.md)."""
    theirs, ours = measure("llguidance", "arithmetic"), measure("indexc", "arithmetic")
    assert ours["accepted"] and not theirs["accepted"]
    assert theirs["failure"].startswith("token #")
    table = render_table([{"grammar": "arithmetic", "engine": "llguidance", **theirs}])
    assert "| no: token #" in table

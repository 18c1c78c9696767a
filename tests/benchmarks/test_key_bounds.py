"""``bench/key_bounds.py``: what a coarser candidate key would serve, and whether it is sound."""

from __future__ import annotations

from bench.key_bounds import CANDIDATES, count, measure, render_table

FIRST, SECOND = list(CANDIDATES)


def test_served_counts_slow_repeats_of_a_key_with_the_same_row_and_conflicts_different_rows():
    row_a, row_b = b"a" * 16, b"b" * 16
    logged = [(300.0, row_a, ["k1", "x"]),   # first of k1 / x
              (250.0, row_a, ["k1", "x"]),   # k1 again, same row, slow: served by both
              (90.0, row_a, ["k1", "y"]),    # same row, fast: not counted as served
              (400.0, row_b, ["k1", "x"]),   # k1 again, another row: a conflict for both
              (500.0, row_b, ["k2", "y"])]   # y's first row was a: a conflict for the second only
    found = count(logged)
    assert found["computed"] == 5 and found["slow"] == 4
    assert found[FIRST] == {"served": 1, "conflicts": 1}
    assert found[SECOND] == {"served": 1, "conflicts": 2}


def test_a_grammar_is_walked_and_keyed_by_every_candidate():
    row = measure("grammar", "sql")
    assert row["path"] == "cfg" and 0 < row["computed"] and 0 <= row["slow"] <= row["computed"]
    for name in CANDIDATES:
        assert 0 <= row[name]["served"] <= row["slow"] and row[name]["conflicts"] >= 0
    table = render_table([{"kind": "grammar", "name": "sql", **row}])
    assert f"| sql | {row['computed']:,} | {row['slow']:,} |" in table

"""``bench/key_bounds.py``: what a coarser candidate key would serve, and whether it is sound."""

from __future__ import annotations

from bench.key_bounds import CANDIDATES, count, measure, render_table

FIRST, SECOND, *OTHERS = list(CANDIDATES)


def test_served_counts_slow_repeats_of_a_key_with_the_same_row_and_conflicts_different_rows():
    row_a, row_b = b"a" * 16, b"b" * 16
    keys = [["k1", "x"], ["k1", "x"], ["k1", "y"], ["k1", "x"], ["k2", "y"]]  # the first two candidates' keys
    logged = [(us, row, pair + [n] * len(OTHERS))  # the others: a new key each time, never served
              for n, (us, row, pair) in enumerate(zip([300.0, 250.0, 90.0, 400.0, 500.0],
                                                      [row_a, row_a, row_a, row_b, row_b], keys))]
    # 2nd: k1 / x again, same row, slow: served by both; 3rd: same row but fast; 4th: k1 / x
    # again with another row: a conflict for both; 5th: y's first row was a: a conflict for the second
    found = count(logged)
    assert found["computed"] == 5 and found["slow"] == 4
    assert found[FIRST] == {"served": 1, "conflicts": 1}
    assert found[SECOND] == {"served": 1, "conflicts": 2}
    assert all(found[name] == {"served": 0, "conflicts": 0} for name in OTHERS)


def test_a_grammar_is_walked_and_keyed_by_every_candidate():
    row = measure("grammar", "sql")
    assert row["path"] == "cfg" and 0 < row["computed"] and 0 <= row["slow"] <= row["computed"]
    for name in CANDIDATES:
        assert 0 <= row[name]["served"] <= row["slow"] and row[name]["conflicts"] >= 0
    table = render_table([{"kind": "grammar", "name": "sql", **row}])
    assert f"| sql | {row['computed']:,} | {row['slow']:,} |" in table

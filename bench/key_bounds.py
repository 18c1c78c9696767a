"""How many slow cold masks a coarser memo key could serve, at most: candidate keys on real walks.

``bench/parser_floor.py`` counts the cold masks over 200 µs whose rows repeat an earlier
computed mask (session 16: 1,892 of 2,413 on the 39 grammar-path MaskBench files): the work a
key as coarse as the mask would save.  This tool asks of a *candidate* key how much of that it
would find, and whether it is sound on the data.  Each case runs its cold walks in one fresh
process (the floor's protocol and cases); every mask the walker computes (``_computed``) is timed
and its row hashed, then keyed by each candidate.  Per candidate:

- **served**: computed masks over 200 µs (in ``_computed``) whose key an earlier computed mask
  had, with the same row: what a memo by that key would have served at a lookup's cost;
- **conflicts**: computed masks whose key an earlier one had with a *different* row: the key is
  not sound as it stands (any conflict), and a sound refinement serves at most ``served``.

The candidates (``CANDIDATES``), each the exact future key (``futures.future_key``) made coarser:

- ``no chunk position``: the lexer state dropped from each thread of a long terminal (a chunk of
  a long string: ``horizon``) and from every thread of the same origin (the string's tail): the
  position inside a 32-character chunk, where far from the string's bounds every position has
  one mask (any long terminal counts: the SQL grammar, folded into one long terminal, shows
  conflicts, as it should);
- ``origins to one level``: each thread's scan set (or origin) replaced by that set's expected
  terminals and accepting flag: nesting depths and instances that a token cannot tell apart.

    .venv/bin/python -m bench.key_bounds [--grammars c ...] [--maskbench NAME ... | @LIST] [--json OUT]
"""

from __future__ import annotations

import hashlib
import sys
import time
from pathlib import Path
from typing import Callable

REPO = Path(__file__).resolve().parents[1]
if __package__ in (None, ""):  # run as a script: make ``bench`` and ``tests`` importable
    sys.path.insert(0, str(REPO))

from bench.parser_floor import SLOW_US, compiled_case, run_cases  # noqa: E402
from indexc_runtime.grammar.futures import thread_keys  # noqa: E402


def no_chunk_position(walker, config: int) -> tuple:
    """The future key without the lexer states of a long string's threads (see the module note)."""
    configs, horizon = walker._configs, walker._horizon
    threads = configs.threads[config]
    long_origins = {origin for origin, terminal, _ in threads
                    if terminal in horizon.candidates and horizon._lengths.is_long(terminal)}
    keyed = thread_keys(configs, walker._lexer, threads, horizon)
    return (frozenset((terminal, None if origin in long_origins else state, key)
                      for (origin, _, _), (terminal, state, key) in zip(threads, keyed)), configs.accepting[config])


def origins_to_one_level(walker, config: int) -> tuple:
    """Each thread's (terminal, state) and its scan set's (or origin's) expected terminals and
    accepting flag, in place of the set (see the module note)."""
    configs, lexer = walker._configs, walker._lexer
    sets = configs.sets
    keyed = set()
    for origin, terminal, state in configs.threads[config]:
        after = origin if terminal in configs.ignored or not lexer.boundary_masks(state) else sets.scan(origin, terminal)
        keyed.add((terminal, state, None if after < 0 else (sets.expected[after], sets.accepting[after])))
    return frozenset(keyed), configs.accepting[config]


def terminals_only(walker, config: int) -> tuple:
    """``origins to one level`` without the lexer states: each thread's terminal and its scan
    set's expected terminals and accepting flag (a bound on any key that keeps no more)."""
    keyed, accepting = origins_to_one_level(walker, config)
    return frozenset((terminal, after) for terminal, _, after in keyed), accepting


def same_part_one(walker, config: int) -> tuple:
    """The precomputed masks the mask starts from and the undecided sets its walk looks at
    (``MaskWalker._precomputed_masks``), and the accepting flag: the same open tokens, whatever
    the configuration (a bound on any key that stops before the walk)."""
    return walker._precomputed_masks(config), walker._configs.accepting[config]


CANDIDATES: dict[str, Callable] = {"no chunk position": no_chunk_position,
                                   "origins to one level": origins_to_one_level,
                                   "terminals only": terminals_only,
                                   "same part 1": same_part_one}


def main(argv: list[str]) -> int:
    return run_cases(argv, __doc__, "bench.key_bounds", measure, render_table, lambda row: "done")


def measure(kind: str, name: str) -> dict:
    """Compile one case, walk it cold, and count per candidate (this process)."""
    import numpy as np

    from indexc_runtime.grammar import walker as walker_module

    found = compiled_case(kind, name)
    if isinstance(found, dict):
        return found
    index, documents, _ = found
    index.use_stored_memo = False  # the live path's keys: every mask computed, none read from the file's memo
    logged: list[tuple[float, bytes, list]] = []
    computed = walker_module.MaskWalker._computed

    def logging(walker, config):
        started = time.perf_counter_ns()
        result = computed(walker, config)
        spent = (time.perf_counter_ns() - started) / 1000.0
        digest = hashlib.blake2b(result[0].tobytes(), digest_size=16).digest()
        logged.append((spent, digest, [key(walker, config) for key in CANDIDATES.values()]))
        return result

    walker_module.MaskWalker._computed = logging
    try:
        for ids in documents:
            matcher, row = index.matcher(), np.zeros((1, index.mask_words), dtype=np.int32)
            for token in ids:
                matcher.fill_bitmask(row, row=0)
                if not (int(row[0, token >> 5]) >> (token & 31)) & 1:
                    break
                matcher.advance(token)
    finally:
        walker_module.MaskWalker._computed = computed
    return {"path": "cfg", **count(logged)}


def count(logged: list[tuple[float, bytes, list]]) -> dict:
    """``computed``, ``slow`` and per candidate ``served`` / ``conflicts`` (the module note) from
    (µs, row digest, candidate keys) per computed mask, in walk order."""
    found = {"computed": len(logged), "slow": sum(spent > SLOW_US[0] for spent, _, _ in logged)}
    for k, name in enumerate(CANDIDATES):
        first_row: dict = {}
        served = conflicts = 0
        for spent, digest, keys in logged:
            if keys[k] not in first_row:
                first_row[keys[k]] = digest
            elif first_row[keys[k]] == digest:
                served += spent > SLOW_US[0]
            else:
                conflicts += 1
        found[name] = {"served": served, "conflicts": conflicts}
    return found


def render_table(rows: list[dict]) -> str:
    """One line per case and a total over the MaskBench files: slow computed masks, and per
    candidate what it would serve / its conflicts."""
    columns = ["case", "computed", "over 200 µs", *(f"{name}: served / conflicts" for name in CANDIDATES)]
    lines = ["| " + " | ".join(columns) + " |", "|" + "|".join("---" for _ in columns) + "|"]
    total = {"computed": 0, "slow": 0, **{name: {"served": 0, "conflicts": 0} for name in CANDIDATES}}
    files = 0
    for row in rows:
        lines.append("| " + " | ".join([row["name"], *_cells(row)]) + " |")
        if row["kind"] == "maskbench" and "computed" in row:
            files += 1
            total["computed"] += row["computed"]
            total["slow"] += row["slow"]
            for name in CANDIDATES:
                for part in ("served", "conflicts"):
                    total[name][part] += row[name][part]
    if files:
        lines.append("| " + " | ".join([f"**MaskBench, {files} grammar-path files**", *_cells(total)]) + " |")
    return "\n".join(lines)


def _cells(row: dict) -> list[str]:
    blanks = [""] * len(CANDIDATES)
    if "error" in row:
        return ["error: " + row["error"].replace("|", "\\|")[:120], "", *blanks]
    if "computed" not in row:
        return [f"{row['path']} path (lookups)", "", *blanks]
    return [f"{row['computed']:,}", f"{row['slow']:,}",
            *(f"{row[name]['served']:,} / {row[name]['conflicts']:,}" for name in CANDIDATES)]


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

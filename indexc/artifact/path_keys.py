"""``path_key_sections``: the lexeme-path rows of the warm-up texts, keyed by language (format 13).

After the warm-up walk (``warm_memo``), the texts (given and sampled) are read again at every byte
on the walk's memo, as the item keys' pass does (``warm_memo.byte_positions``): a tokenizer may
stop at any byte, and the warm-up's own tokens rarely stop where a model's do.  Each thread of a
decomposed lexer state gets its key (``indexc_runtime.grammar.path_keys``: the state and the
language digest of the set its paths are scanned from), and each new key its held groups, by the
runtime's own ``StatePaths.held_groups`` on that memo.  Measured before it was built (session 33,
a prototype keyed by the format 8 digest): of the 30 masks of lark.lark's sample that scan paths,
27 had their keys met at some byte of the sampled texts (lark-other: 87 of 102).

**The states the met origins expect** (``EXPECTED_STATES``, session 34): then every origin met is
keyed again with every decomposed state of each terminal it expects (or ignores), in the order the
origins were met.  A thread of such a state from that origin needs only other bytes than the text
had, and its row is exact whatever they are; the sampler cannot be counted on for them: no
lark.lark sentence puts a name first in a rule body (``docs/grammar-path.md``, "Session 34"), but
its texts meet the sets after ``rule:`` and ``(``, which expect one.  Every path row lark.lark's
two samples computed (masks 11 and 16; lark-other's 17, 26, 37, 73, 76 and 102) was among these
keys; lark.lark: 347 -> 1,024 keys (the budget; 5,013 more threads considered), +35 KB, the pass
34-40 -> 153-155 ms.

Limits, explicit and reported in the header's ``stats.path_keys`` (keys stored, threads met,
threads whose digest was over the budget, threads of expected states considered): at most
``MAX_PATH_KEYS`` keys, and the byte pass stops after ``MAX_PATH_KEY_PASS_STEPS`` parser steps or when the memo holds half its limits; a
``GrammarLimitExceeded`` ends the pass (the keys made before it are kept).  Cost: lark.lark,
361 keys from 2,048 sampled tokens (1,009 threads met), 67-99 ms of a 2.8-3.2 s compile on session
33's slow host; C 776 keys.  Since session 34 the warm-up walk itself reads its rows by key
(``keyed_path_rows``), and the pass reads the rows the walk made: lark.lark's rows scanned, walk
and pass, 598 + 347 -> 281 + 66, and ``warm_memo`` (min of 5 in one process) 464-496 -> 366-394 ms.
The stored memo holds the same sets, numbered in another order (the keys' scans make some first).

Self-check: every path row the warm-up walk computed (the walker's memo, by thread) whose key was
stored must be the stored row: two sets with one digest and two rows would be a wrong key, an
internal error (as ``warm_memo._languages``'), not a file.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from indexc_runtime.grammar.errors import GrammarLimitExceeded
from indexc_runtime.grammar.languages import SetLanguages
from indexc_runtime.grammar.path_keys import Key, PathKeys, PathRows, empty_arrays, sections_of

MAX_PATH_KEYS = 1024
MAX_PATH_KEY_PASS_STEPS = 40_960  # parser steps of the byte pass (``warm_memo.byte_positions``)
EXPECTED_STATES = True  # then every decomposed state of a terminal the met origins expect is keyed too


@dataclass(frozen=True)
class PathKeySections:
    sections: dict[str, np.ndarray]
    stats: dict  # the header's ``stats.path_keys`` (empty: none computed)
    table: dict[Key, np.ndarray]  # what was stored, for ``verify``'s comparison

    @classmethod
    def none(cls) -> "PathKeySections":
        return cls(empty_arrays(), {}, {})


def keyed_path_rows(index, memo) -> PathRows | None:
    """Rows by key for ``memo``'s walker, every decomposed state keyed, none stored (None: no
    decomposed state): the warm-up walk's threads then share the rows of one key, and the byte
    pass reads them again (lark.lark's rows scanned, walk and pass: 598 + 347 -> 281 + 66)."""
    paths = index._lexeme_paths
    if not len(paths):
        return None
    rows = PathRows(PathKeys.empty(), paths, memo.configs, SetLanguages(memo.sets, by_rest=True),
                    index._lexer.state_terminal, states=paths.states)
    memo.walker.use_path_keys(rows)
    return rows


def path_key_sections(index, memo, positions, rows: PathRows | None) -> PathKeySections:
    """The path keys of the threads at ``positions`` (configurations of ``memo``, in text order),
    their rows read from ``rows`` (``keyed_path_rows``, which the warm-up walk filled) or scanned."""
    paths = index._lexeme_paths
    if not len(paths) or rows is None:
        return PathKeySections.none()
    configs = memo.configs
    computed = rows.computed()
    table: dict[Key, np.ndarray] = {}
    met: set[tuple[int, int]] = set()
    origins: dict[int, None] = {}  # the threads' origins, in the order met
    over_budget = 0

    def add(state: int, origin: int) -> None:
        nonlocal over_budget
        met.add((state, origin))
        key = rows.key(state, origin)
        if key is None:
            over_budget += 1
        elif key not in table:
            table[key] = computed[key] if key in computed else paths.of(state).held_groups(origin, configs)

    try:
        for config in positions:
            for origin, _, state in configs.threads[config]:
                origins[origin] = None
                if state in paths.states and (state, origin) not in met:
                    add(state, origin)
            if len(table) >= MAX_PATH_KEYS:
                break
    except GrammarLimitExceeded:
        pass  # the keys made before the limit are kept
    met_threads = len(met)
    if EXPECTED_STATES:
        try:
            for state, origin in _expected_threads(origins, configs, paths.states, index._lexer.state_terminal):
                if len(table) >= MAX_PATH_KEYS:
                    break
                if (state, origin) not in met:
                    add(state, origin)
        except GrammarLimitExceeded:
            pass
    _check_walked_rows(memo, rows, table)
    stats = {"keys": len(table), "threads": met_threads, "over_budget": over_budget, "expected": len(met) - met_threads}
    return PathKeySections(sections_of(table), stats, table)


def _expected_threads(origins, configs, states, state_terminal) -> Iterator[tuple[int, int]]:
    """(state, origin) for each of ``origins`` (in order) and each decomposed state of a terminal
    it expects or ignores (``Configs.followers``), terminals and states ascending."""
    by_terminal = _decomposed_by_terminal(states, state_terminal)
    for origin in origins:
        for terminal in sorted(configs.followers(origin) & by_terminal.keys()):
            for state in by_terminal[terminal]:
                yield state, origin


def _decomposed_by_terminal(states, state_terminal) -> dict[int, list[int]]:
    """The decomposed states of each terminal, ascending."""
    found: dict[int, list[int]] = {}
    for state in sorted(states):
        found.setdefault(int(state_terminal[state]), []).append(state)
    return found


def _check_walked_rows(memo, rows: PathRows, table: dict[Key, np.ndarray]) -> None:
    """The warm-up walk's own path rows (``MaskWalker``'s memo, by state and origin) against the
    rows stored under their keys."""
    paths = rows.paths
    for (state, origin), row in memo.walker.walked_path_rows():
        key = rows.key(state, origin)
        if key in table and not np.array_equal(paths.of(state).row_of(table[key], row.size), row):
            raise ValueError(f"internal error: path key of lexer state {state} holds two rows: the key is not exact")

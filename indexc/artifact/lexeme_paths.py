"""``lexeme_path_sections``: each lexer state's undecided tokens grouped by their lexeme paths (format 12).

What a path is, what is stored and how the walker reads it: ``indexc_runtime.grammar.lexeme_paths``.
Here the writer picks the states and decomposes them with the runtime's own function over the
file's version 6 sections, planned in memory (so that ``verify``, which decomposes them again,
finds the same arrays).

Which states: every state with an undecided set of ``MIN_PATH_UNDECIDED`` tokens up to
``MAX_PATH_UNDECIDED_SHARE`` of the trie's (RFC-XML's all-splits text states hold 121k of 128k:
their loop exits decide them), in state order, until the states decomposed hold ``MAX_PATH_WORK``
undecided tokens.  A state past a limit of its own (``lexeme_paths.MAX_PATHS``, ``MAX_GROUPS``,
``MAX_CONFIGS``, ``MAX_THREADS``, ``MAX_PAIRS_PER_TOKEN``: reading its pairs would cost more than
walking its tokens) is left out and counted.  Header
``stats.lexeme_paths``: states decomposed, left out at a limit, path nodes, pairs and groups.
"""

from __future__ import annotations

import numpy as np

from indexc.artifact.warm_memo import index_in_memory
from indexc_runtime.grammar.format import GRAMMAR_SECTIONS_V6
from indexc_runtime.grammar.item_bounds import follow_terminals
from indexc_runtime.grammar.lexeme_paths import Decomposer, StatePaths, sections_of
from indexc_runtime.grammar.undecided import UNRESTRICTED

MAX_PATH_UNDECIDED_SHARE = 0.5  # of the trie's tokens: a state holding more is walked (its loop exits decide it)
# ... and at least this many: a thread's first path row costs ~0.1-0.2 ms past its scans (the
# state's slices, its groups, a row), where the walk steps an open token in ~1 us
MIN_PATH_UNDECIDED = 256
MAX_PATH_WORK = 4_000_000  # undecided tokens of the states decomposed, summed; past it no state is begun


def lexeme_path_sections(fields: dict, arrays: dict[str, np.ndarray]) -> tuple[dict[str, np.ndarray], dict, dict]:
    """The ``path_*`` sections of the states chosen (see the module note), the header's stats and
    the decomposition by state (the writer's self-check compares the file with it)."""
    index = index_in_memory(fields, arrays, GRAMMAR_SECTIONS_V6, 6)
    undecided = index._undecided
    most = index.n_live_tokens * MAX_PATH_UNDECIDED_SHARE
    decomposer = Decomposer(index, follow_terminals(index._rules))
    decomposed: dict[int, StatePaths] = {}
    work, skipped = 0, 0
    for state in range(index.n_states):
        set_id = undecided.of(state)
        if set_id == UNRESTRICTED or not MIN_PATH_UNDECIDED <= undecided.size(set_id) <= most:
            continue
        if work >= MAX_PATH_WORK:
            skipped += 1
            continue
        work += undecided.size(set_id)
        paths = decomposer.decompose(state)
        if paths is None:
            skipped += 1
        else:
            decomposed[state] = paths
    sections = sections_of(decomposed)
    stats = {"states": len(decomposed), "skipped": skipped, "nodes": int(sections["path_nodes"].shape[0]),
             "pairs": int(sections["path_pair_terminal"].size), "groups": int(sections["path_group_pair_offsets"].size - 1)}
    return sections, stats if decomposed or skipped else {}, decomposed

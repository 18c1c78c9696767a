"""Independent references for the automaton tests (deliberately simple, not fast)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from indexc.automaton import DEAD, ByteDFA

DATA = Path(__file__).resolve().parents[1] / "data"

HTTPS = r"(https?:\/\/)?([\da-z\.-]+)\.([a-z\.]{2,6})([\/\w \.-]*)*\/?"


def bench_patterns() -> dict[str, str]:
    """The outlines-core benchmark regexes (bundled copy) plus the https regex."""
    patterns = json.loads((DATA / "regex" / "outlines_core_bench_regexes.json").read_text())["patterns"]
    return {**patterns, "https": HTTPS}


def run_many(dfa: ByteDFA, sequences: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Vectorised ``dfa.matches``: row i of ``sequences`` holds ``lengths[i]`` bytes."""
    state = np.zeros(len(sequences), dtype=np.int64)
    for j in range(sequences.shape[1]):
        step = (j < lengths) & (state != DEAD)
        state[step] = dfa.transitions[state[step], sequences[step, j]]
    ok = state != DEAD
    ok[ok] = dfa.accepting[state[ok]]
    return ok


def utf8_matrix(code_points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """UTF-8 encodings of many scalar values as a (n, 4) byte matrix and lengths."""
    cp = np.asarray(code_points, dtype=np.int64)
    lengths = np.select([cp < 0x80, cp < 0x800, cp < 0x10000], [1, 2, 3], 4)
    out = np.zeros((len(cp), 4), dtype=np.int64)
    cont = lambda shift: 0x80 | ((cp >> shift) & 0x3F)  # noqa: E731
    one, two, three, four = (lengths == k for k in (1, 2, 3, 4))
    out[one, 0] = cp[one]
    out[two, 0], out[two, 1] = 0xC0 | (cp[two] >> 6), cont(0)[two]
    out[three, 0], out[three, 1], out[three, 2] = 0xE0 | (cp[three] >> 12), cont(6)[three], cont(0)[three]
    out[four, 0] = 0xF0 | (cp[four] >> 18)
    out[four, 1], out[four, 2], out[four, 3] = cont(12)[four], cont(6)[four], cont(0)[four]
    return out, lengths


def well_formed_utf8_char(grid: np.ndarray) -> np.ndarray:
    """Rows of a (n, length) byte grid that are exactly one UTF-8 character, by the table of
    well-formed sequences in RFC 3629, section 4 (an oracle independent of the compiler)."""
    length = grid.shape[1]
    tail = lambda j, lo=0x80, hi=0xBF: (grid[:, j] >= lo) & (grid[:, j] <= hi)  # noqa: E731
    tails = lambda first: np.all([tail(j) for j in range(first, length)], axis=0)  # noqa: E731
    lead = grid[:, 0]
    if length == 1:
        return lead <= 0x7F
    if length == 2:
        return (lead >= 0xC2) & (lead <= 0xDF) & tail(1)
    if length == 3:
        second = (
            ((lead == 0xE0) & tail(1, 0xA0, 0xBF))
            | (((lead >= 0xE1) & (lead <= 0xEC)) | (lead == 0xEE) | (lead == 0xEF)) & tail(1)
            | ((lead == 0xED) & tail(1, 0x80, 0x9F))
        )
        return second & tails(2)
    second = (
        ((lead == 0xF0) & tail(1, 0x90, 0xBF))
        | ((lead >= 0xF1) & (lead <= 0xF3) & tail(1))
        | ((lead == 0xF4) & tail(1, 0x80, 0x8F))
    )
    return second & tails(2)


def all_scalars() -> np.ndarray:
    cps = np.arange(0x110000)
    return cps[(cps < 0xD800) | (cps > 0xDFFF)]


def reference_equivalence_classes(dfa: ByteDFA) -> int:
    """Number of classes of Myhill-Nerode equivalence, by naive round-based refinement in
    plain Python (with an explicit dead state), independent of ``minimize``."""
    n = dfa.n_states
    columns = sorted({tuple(col) for col in dfa.transitions.T.tolist()})
    table = [[col[s] for col in columns] for s in range(n)]
    # index n is the dead state (its own class); DEAD = -1 indexes it too.
    label = [int(a) for a in dfa.accepting] + [2]
    while True:
        signature = [(label[s], tuple(label[t] for t in table[s])) for s in range(n)]
        signature.append((2, ()))
        ids: dict[tuple, int] = {}
        new = [ids.setdefault(sig, len(ids)) for sig in signature]
        if len(ids) == len(set(label)):
            return len(ids) - 1  # minus the dead state
        label = new


def live_everywhere(dfa: ByteDFA) -> bool:
    """Every state reaches an accepting state (plain fixpoint)."""
    live = set(np.flatnonzero(dfa.accepting).tolist())
    changed = True
    while changed:
        changed = False
        for s in range(dfa.n_states):
            if s not in live and any(t in live for t in set(dfa.transitions[s].tolist()) if t != DEAD):
                live.add(s)
                changed = True
    return len(live) == dfa.n_states

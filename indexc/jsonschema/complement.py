"""Keys that match none of the ``patternProperties`` and are none of the listed names.

``additionalProperties`` beside ``patternProperties`` applies to the keys the patterns do
*not* match: a complement, which the regex dialect cannot write.  It is computed on automata
instead: the patterns (search semantics) and the listed names become one regex over decoded
characters, ``indexc.automaton`` builds its minimal character-level DFA over atoms, the DFA
is completed with a sink and its accepting states flipped, and state elimination writes the
complement back as a regex whose edge labels are ``json_text.encoded_char`` of the atoms'
code points (so escaped spellings are handled like everywhere else).  State elimination can
grow exponentially with the number of states; complements over ``MAX_STATES`` states, or
whose regex exceeds ``MAX_REGEX_CHARS``, are refused (None), which is rare: key patterns are
small (``^x-``, ``^[a-z_]+$``, ``.{1,}``).
"""

from __future__ import annotations

import numpy as np

from indexc.automaton.atom_partition import UNIVERSE_END
from indexc.automaton.code_point_sets import CodePointSet
from indexc.automaton.compile import compile_atom_dfa
from indexc.automaton.limits import AutomatonLimits
from indexc.automaton.liveness import trim
from indexc.automaton.minimize import minimize
from indexc.errors import IndexcError
from indexc.jsonschema.expr import has_top_level_bar
from indexc.jsonschema.json_text import ALL_CHARS, encoded_char, regex_char
from indexc.jsonschema.patterns import ecma_to_python, search_semantics

MAX_STATES = 48
MAX_REGEX_CHARS = 200_000
NOTHING = ""  # sentinel distinct from None: the complement is empty


class Unrepresentable(Exception):
    """The complement exists but is too large to write as a regex here."""


def keys_outside(patterns: list[str], names: list[str]) -> str | None:
    """JSON-text regex (inside the quotes) of the keys matching no pattern and no name.

    Returns None when the complement is empty; raises ``Unrepresentable`` when it is too big
    or a pattern cannot be read.
    """
    alternatives = [f"(?:{search_semantics(ecma_to_python(p))})" for p in patterns]
    alternatives += ["".join(regex_char(ord(c)) for c in name) or "(?:)" for name in names]
    try:
        atom_dfa, partition = compile_atom_dfa("|".join(alternatives), limits=AutomatonLimits.for_max_states(4096),
                                               source="patternProperties")
    except IndexcError as error:
        raise Unrepresentable(str(error)) from None
    known = atom_sets(partition)
    other = ALL_CHARS.difference(CodePointSet(np.empty((0, 2), np.int64)).union(*known))
    columns = known + ([other] if not other.is_empty() else [])
    transitions, accepting = _complemented(atom_dfa.transitions, atom_dfa.accepting, len(columns))
    trimmed = trim(transitions, accepting)
    if trimmed is None:
        return None
    transitions, accepting = minimize(*trimmed)
    if len(transitions) > MAX_STATES:
        raise Unrepresentable(f"the complement of the key patterns has {len(transitions)} states")
    return _eliminate(transitions, accepting, columns)


def atom_sets(partition) -> list[CodePointSet]:
    """The code points of each atom of ``partition`` (Unicode scalars only)."""
    ends = np.append(partition.starts[1:], UNIVERSE_END) - 1
    sets = []
    for atom in range(partition.n_atoms):
        chosen = partition.interval_atom == atom
        pairs = np.stack([partition.starts[chosen], ends[chosen]], axis=1)
        sets.append(CodePointSet(pairs).scalars().intersection(ALL_CHARS))
    return sets


def _complemented(transitions: np.ndarray, accepting: np.ndarray, n_columns: int) -> tuple[np.ndarray, np.ndarray]:
    n, k = transitions.shape
    sink = n
    full = np.full((n + 1, n_columns), sink, dtype=np.int32)
    full[:n, :k] = np.where(transitions < 0, sink, transitions)
    return full, np.append(~accepting.astype(bool), True)


def _eliminate(transitions: np.ndarray, accepting: np.ndarray, columns: list[CodePointSet]) -> str:
    """State elimination: DFA -> regex (start 0); edge labels are encoded character classes."""
    n = len(transitions)
    start, final = n, n + 1
    edges: dict[tuple[int, int], str] = {(start, 0): ""}
    for state in range(n):
        for target in np.unique(transitions[state]):
            if target < 0:
                continue
            chars = CodePointSet(np.empty((0, 2), np.int64)).union(
                *[columns[c] for c in np.flatnonzero(transitions[state] == target)])
            edges[(state, int(target))] = _group(encoded_char(chars))
        if accepting[state]:
            edges[(state, final)] = ""
    remaining = set(range(n))
    while remaining:
        k = min(remaining, key=lambda s: sum(1 for (a, b) in edges if a == s or b == s))
        remaining.discard(k)
        loop = edges.pop((k, k), None)
        star = "" if loop is None else f"(?:{loop})*"
        ins = [(a, r) for (a, b), r in edges.items() if b == k]
        outs = [(b, r) for (a, b), r in edges.items() if a == k]
        for a, _ in ins:
            del edges[(a, k)]
        for b, _ in outs:
            del edges[(k, b)]
        for a, r_in in ins:
            for b, r_out in outs:
                path = _group(r_in) + star + _group(r_out)
                edges[(a, b)] = path if (a, b) not in edges else f"{edges[(a, b)]}|{path}"
                if len(edges[(a, b)]) > MAX_REGEX_CHARS:
                    raise Unrepresentable("the complement of the key patterns is too large as a regex")
    return edges.get((start, final), "")


def _group(text: str) -> str:
    return f"(?:{text})" if has_top_level_bar(text) else text

"""One artifact's automaton as the diff reads it: the runtime's tables, with the dead state explicit.

The diff reads artifacts exactly as a server does, through ``indexc_runtime.load`` (with
``verify=True``: every checksum and bound), so it compares what would be served, not what
the compiler meant to write.  Transitions become one int64 table with an extra *dead* row
(index ``n_states``, looping to itself): the lock-step walk then needs no special case for
"one side died", and a dead state has the empty mask and never accepts.

Only DFA artifacts (header ``index_kind`` ``"dfa"``) are diffable.  A grammar artifact's masks
depend on a live Earley parse as well as on its lexer tables, so comparing its tables state by
state would say nothing true about the masks it serves; it is refused with that reason.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

import indexc_runtime
from indexc.errors import IndexcError

DFA_INDEX_KIND = "dfa"


class DiffError(IndexcError):
    """An artifact cannot be compared (unreadable, a kind the diff cannot walk, vocabularies unknown)."""


@dataclass(frozen=True)
class ArtifactTables:
    path: str
    index: indexc_runtime.Index
    byte_classes: np.ndarray  # int64 (256,)
    transitions: np.ndarray  # int64 (n_states + 1, n_classes); row n_states and -1 entries -> n_states
    accepting: np.ndarray  # bool (n_states + 1,); the dead state does not accept
    state_mask: np.ndarray  # int64 (n_states + 1,); -1 for the dead state (no tokens)
    header: dict

    @property
    def dead(self) -> int:
        return self.index.n_states

    @property
    def fingerprint(self) -> str:
        return self.index.fingerprint


def read_tables(path: str) -> ArtifactTables:
    """Load and verify an artifact; ``DiffError`` if it cannot be read or is not a DFA artifact."""
    try:
        index = indexc_runtime.load(path, verify=True)
    except (indexc_runtime.ArtifactError, OSError) as exc:
        raise DiffError(f"cannot read the artifact: {exc}", source=str(path)) from None
    header = index.header
    kind = header.get("index_kind")
    if kind != DFA_INDEX_KIND:
        raise DiffError(f"a {kind!r} artifact is not diffable yet: its masks come from a live parser as well as "
                        "its tables, and only DFA artifacts (regexes, regular JSON Schemas) can be walked in "
                        "lock-step", source=str(path))
    n = index.n_states
    dead = n
    stored = np.asarray(index.section("class_transitions"), dtype=np.int64).reshape(n, index.n_classes)
    next_state = stored - 1 if index.format_version >= 2 else stored.copy()  # v2: next + 1, v1: -1 dead
    next_state[next_state < 0] = dead
    transitions = np.vstack([next_state, np.full((1, index.n_classes), dead, dtype=np.int64)])
    accepting = np.append(np.asarray(index.section("accepting"), dtype=bool), False)
    state_mask = np.append(np.asarray(index.section("state_mask"), dtype=np.int64), -1)
    byte_classes = np.asarray(index.section("byte_classes"), dtype=np.int64)
    return ArtifactTables(str(path), index, byte_classes, transitions, accepting, state_mask, header)

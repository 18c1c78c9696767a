"""One artifact's automaton as the diff reads it: the runtime's tables, with the dead state explicit.

The diff reads artifacts exactly as a server does, through ``indexc_runtime.load`` (with
``verify=True``: every checksum and bound), so it compares what would be served, not what
the compiler meant to write.  Transitions become one int64 table with an extra *dead* row
(index ``n_states``, looping to itself): the lock-step walk then needs no special case for
"one side died", and a dead state has the empty mask and never accepts.

A grammar artifact (header ``index_kind`` ``"grammar"``) has no such table: its masks depend on
a live Earley parse as well as on its lexer tables, so its states are read through its parser
instead (``parser_tables``), and ``read_tables`` returns that view for it.

Both views answer the same questions: the bounded walk's (``bounded_product``: ``start``,
``dead``, ``byte_classes``, ``step``) and the comparison's (``compare``: ``masks_of`` and
``accepting_of`` for the states a walk met, a mask id per state, -1 for the dead state's empty
mask; ``mask_token_ids`` of a mask id).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

import indexc_runtime
from indexc.diff.errors import DiffError
from indexc.diff.parser_tables import ParserTables
from indexc.diff.progress import Progress
from indexc_runtime.grammar import GRAMMAR_INDEX_KIND

DFA_INDEX_KIND = "dfa"


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

    @property
    def start(self) -> int:
        return self.index.start_state

    def step(self, state: int, byte: int) -> int:
        return int(self.transitions[state, self.byte_classes[byte]])

    def masks_of(self, states: np.ndarray, progress: Progress | None = None) -> np.ndarray:
        return self.state_mask[states]  # a table read: nothing slow to report

    def accepting_of(self, states: np.ndarray) -> np.ndarray:
        return self.accepting[states]

    def mask_token_ids(self, mask: int) -> np.ndarray:
        return self.index.mask_token_ids(mask)


DiffTables = ArtifactTables | ParserTables  # what ``read_tables`` returns: a DFA's tables or a grammar's parser


def read_tables(path: str) -> DiffTables:
    """Load and verify an artifact; ``DiffError`` if it cannot be read or is of an unknown kind."""
    try:
        index = indexc_runtime.load(path, verify=True)
    except (indexc_runtime.ArtifactError, OSError) as exc:
        raise DiffError(f"cannot read the artifact: {exc}", source=str(path)) from None
    header = index.header
    kind = header.get("index_kind")
    if kind == GRAMMAR_INDEX_KIND:
        return ParserTables.of(str(path), index, header)
    if kind != DFA_INDEX_KIND:
        raise DiffError(f"a {kind!r} artifact cannot be diffed (known kinds: {DFA_INDEX_KIND!r}, "
                        f"{GRAMMAR_INDEX_KIND!r})", source=str(path))
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

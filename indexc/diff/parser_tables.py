"""One grammar artifact as the diff reads it: its parser stepped byte by byte, its masks as served.

A grammar artifact's states are the parser's configurations (the lexer threads alive after a
text), made on demand by a private parser memo (``indexc_runtime``'s ``ByteWalk``): the same
steps and the same masks as a serving matcher, stored memo included.  Configurations are
interned by content, so a pair of texts that leave the parser in one configuration is one
state here, and the lock-step walk can tell a state it has met from a new one.

Masks are rows computed by the live walk, not ids into the file, so each distinct row gets a
number here (``masks_of``) and the comparison groups pairs by those numbers as it groups a DFA
artifact's stored mask ids.  The dead state is ``ByteWalk.DEAD`` (-1): the empty mask, never
accepting.  The private memo keeps the serving limits (``GrammarLimits``: 100,000
configurations); a walk that reaches one is a ``DiffError`` that says so, not a partial report.

Cost: a state's first mask is computed as a cold serving mask is (a lookup where the file
stored it, else ~0.05-3 ms with Llama-3); a step is a table read once made.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from indexc.diff.errors import DiffError
from indexc.diff.progress import PROGRESS_EVERY, Progress
from indexc_runtime.grammar import GrammarLimitExceeded
from indexc_runtime.grammar.byte_walk import ByteWalk


@dataclass
class ParserTables:
    path: str
    index: object  # indexc_runtime.grammar.GrammarIndex
    header: dict
    walk: ByteWalk
    rows: list[np.ndarray] = field(default_factory=list, init=False)  # distinct mask rows, by number
    _number_of_row: dict[bytes, int] = field(default_factory=dict, init=False, repr=False)
    _mask_of_state: dict[int, int] = field(default_factory=dict, init=False, repr=False)

    @classmethod
    def of(cls, path: str, index, header: dict) -> "ParserTables":
        return cls(path, index, header, index.byte_walk())

    @property
    def fingerprint(self) -> str:
        return self.index.fingerprint

    @property
    def start(self) -> int:
        return self.walk.start

    @property
    def dead(self) -> int:
        return ByteWalk.DEAD

    @property
    def byte_classes(self) -> np.ndarray:
        return self.walk.byte_classes

    def step(self, state: int, byte: int) -> int:
        try:
            return self.walk.step(state, byte)
        except GrammarLimitExceeded as exc:
            raise self._over_limit(exc) from None

    def masks_of(self, states: np.ndarray, progress: Progress | None = None) -> np.ndarray:
        """Each state's mask row number (``progress("masks", done, total)`` told every
        ``PROGRESS_EVERY``: each new configuration's mask is a cold serving mask)."""
        found = np.empty(states.size, dtype=np.int64)
        for number, state in enumerate(states.tolist()):
            found[number] = self._mask_of(state)
            if progress is not None and (number + 1) % PROGRESS_EVERY == 0:
                progress("masks", number + 1, states.size)
        return found

    def accepting_of(self, states: np.ndarray) -> np.ndarray:
        return np.array([self.walk.accepting(state) for state in states.tolist()], dtype=bool)

    def _mask_of(self, state: int) -> int:
        """The number of the state's mask row (-1: the dead state's empty mask)."""
        if state == ByteWalk.DEAD:
            return -1
        number = self._mask_of_state.get(state)
        if number is None:
            try:
                row = self.walk.mask(state)
            except GrammarLimitExceeded as exc:
                raise self._over_limit(exc) from None
            number = self._number_of_row.setdefault(row.tobytes(), len(self.rows))
            if number == len(self.rows):
                self.rows.append(row)
            self._mask_of_state[state] = number
        return number

    def _over_limit(self, exc: GrammarLimitExceeded) -> DiffError:
        return DiffError(f"its parser reached a limit after {len(self.walk):,} configurations ({exc}); "
                         "compare fewer state pairs (--max-pairs)", source=self.path)

    def mask_token_ids(self, mask: int) -> np.ndarray:
        """Sorted token ids of mask row ``mask`` (eos included where the state accepts)."""
        bits = np.unpackbits(self.rows[mask].view(np.uint8), bitorder="little")[: self.index.vocab_size]
        return np.flatnonzero(bits).astype(np.int32)

"""Each lexer state's *undecided tokens* (format 5), as places in the trie's token order.

The compiler (``indexc.grammar.undecided_tokens``) stores, per lexer state, the tokens that may
finish the state's lexeme, a whole next lexeme and start a third: the only ones its in-lexeme
and boundary masks cannot decide.  The walk's coverage test counts every other token as
decided (``coverage.Coverage.of_undecided``), so the walk only goes where an undecided token
the masks do not allow is.  The sets are stored as ascending places in the trie's token
order, the layout the coverage test reads; the token ids are one gather from the trie's
sorted tokens.  Sizes with Llama-3: JSON's 334 lexer states share 40 sets of at most 216
tokens, C's largest is 3,551 (an operator then a word: ``-body``), RFC-XML's text states'
122k (all splits: a word may end anywhere and another start).

A set's places are bounded on its first use (``ArtifactError``), not at load: a fresh
process's load reads none of them.  A version 2-4 file has none: every state is
``UNRESTRICTED``, every token undecided, as before.
"""

from __future__ import annotations

import numpy as np

from indexc_runtime.container import Container

UNRESTRICTED = -1  # a state without a set: every token is left to the walk


class UndecidedSets:
    """The sets of one artifact, shared by its walkers (immutable once a set is read)."""

    def __init__(self, of_state, offsets, positions, sorted_tokens: np.ndarray, container: Container | None):
        self._of_state = of_state  # memoryview of 1 + set per lexer state, or None (version 2-4)
        self._offsets = offsets
        self._positions = positions
        self._sorted_tokens = sorted_tokens
        self._container = container
        self._members: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self._rows: dict[int, np.ndarray] = {}

    @classmethod
    def from_container(cls, c: Container, of_state, sorted_tokens: np.ndarray) -> "UndecidedSets":
        """``of_state``: the ``undecided_set`` items, already bounded by the lexer's checks (or None)."""
        if of_state is None:
            return cls(None, None, None, sorted_tokens, None)
        return cls(of_state, c.items("undecided_offsets"), c.array("undecided_positions"), sorted_tokens, c)

    def of(self, state: int) -> int:
        """The undecided set of a lexer state, or ``UNRESTRICTED``."""
        return UNRESTRICTED if self._of_state is None else self._of_state[state] - 1

    def check_all(self) -> None:
        """Every set's places at once (``verify``)."""
        if self._container is not None:
            self._container.check_below("undecided_positions", self._positions, self._sorted_tokens.size)

    def is_empty(self, set_id: int) -> bool:
        return self._offsets[set_id] == self._offsets[set_id + 1]

    def size(self, set_id: int) -> int:
        return self._offsets[set_id + 1] - self._offsets[set_id]

    def row(self, set_id: int, words: int) -> np.ndarray:
        """The set as a bit row in trie order (uint32 words), kept: what a wide set gives the
        coverage test (``Coverage.of_masks``)."""
        found = self._rows.get(set_id)
        if found is None:
            flags = np.zeros(32 * words, dtype=np.uint8)
            flags[self._places(set_id)] = 1
            found = self._rows[set_id] = np.packbits(flags, bitorder="little").view(np.uint32)
        return found

    def members(self, set_id: int) -> tuple[np.ndarray, np.ndarray]:
        """(places in the trie's token order, their token ids), checked on first use, kept."""
        found = self._members.get(set_id)
        if found is None:
            places = self._places(set_id)
            found = self._members[set_id] = (places, self._sorted_tokens[places])
        return found

    def _places(self, set_id: int) -> np.ndarray:
        """The set's places in the trie's token order, bounded.  A wide set's row (``row``) needs
        no token ids: their gather was ~0.43 ms of a fresh process's first use of RFC-XML's 122k
        set, the row itself ~0.2 ms."""
        places = self._positions[self._offsets[set_id]:self._offsets[set_id + 1]]
        if places.size and (int(places.min()) < 0 or int(places.max()) >= self._sorted_tokens.size):
            raise self._container.error(f"set {set_id} holds a place outside the trie's "
                                        f"{self._sorted_tokens.size} tokens", "undecided_positions")
        return places

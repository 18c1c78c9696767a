"""Each lexer state's *undecided tokens* (format 5), as places in the trie's token order.

The compiler (``indexc.grammar.undecided_tokens``) stores, per lexer state, the tokens that may
finish the state's lexeme, a whole next lexeme and start a third: the only ones its in-lexeme
and boundary masks cannot decide.  The walk's coverage test counts every other token as
decided (``coverage.OpenPlaces``), so the walk only goes where an undecided token
the masks do not allow is.  The sets are stored as ascending places in the trie's token
order, the layout the coverage test reads; the token ids are one gather from the trie's
sorted tokens.  Sizes with Llama-3 (the third lexeme run to the token's end,
``indexc.grammar.undecided_tokens``): JSON's 334 lexer states share 17 sets of at most 74
tokens, C's largest is 3,426 (an operator then a word: ``-body``), RFC-XML's text states'
121k (all splits: a word may end anywhere and another start).

A set's places are bounded on its first use (``ArtifactError``), not at load: a fresh
process's load reads none of them.  A version 2-4 file has none: every state is
``UNRESTRICTED``, every token undecided, as before.

Format 6 stores a wide set as its bit row in trie order instead (``undecided_rows``, where
the row is not larger than the places): the row is what the coverage test reads for a wide
set (``Coverage.of_masks``), and building it from 122k places was ~0.2-0.3 ms of a fresh
process's mask, most of it reading the 488 KB of places (session 10, RFC-XML's cold walk: the
mask after ``<title>`` paid two of them).  Such a set's members are its row's set bits.
"""

from __future__ import annotations

import numpy as np

from indexc_runtime.container import Container

UNRESTRICTED = -1  # a state without a set: every token is left to the walk


class UndecidedSets:
    """The sets of one artifact, shared by its walkers (immutable once a set is read)."""

    def __init__(self, of_state, offsets, positions, sorted_tokens: np.ndarray, container: Container | None,
                 row_of_set=None, stored_rows: np.ndarray | None = None):
        self._of_state = of_state  # memoryview of 1 + set per lexer state, or None (version 2-4)
        self._offsets = offsets
        self._positions = positions
        self._sorted_tokens = sorted_tokens
        self._container = container
        self._row_of_set = row_of_set  # memoryview: the stored row of each set, -1 for places (version 6), or None
        self._stored_rows = stored_rows  # uint32 (rows, ceil(n_trie_tokens / 32)) (version 6), or None
        self._members: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self._rows: dict[int, np.ndarray] = {}
        self._probes: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        self._sizes: dict[int, int] = {}

    @classmethod
    def from_container(cls, c: Container, of_state, sorted_tokens: np.ndarray) -> "UndecidedSets":
        """``of_state``: the ``undecided_set`` items, already bounded by the lexer's checks (or None).
        A version 6 file's ``undecided_row`` is bounded here (a few items a grammar)."""
        if of_state is None:
            return cls(None, None, None, sorted_tokens, None)
        row_of_set = stored_rows = None
        if "undecided_row" in c.header.sections:
            row_of_set, stored_rows = c.items("undecided_row"), c.array("undecided_rows")
            if len(row_of_set) and (min(row_of_set) < -1 or max(row_of_set) >= len(stored_rows)):
                raise c.error(f"values must lie in [-1, {len(stored_rows) - 1}]", "undecided_row")
        return cls(of_state, c.items("undecided_offsets"), c.array("undecided_positions"), sorted_tokens, c,
                   row_of_set, stored_rows)

    @property
    def n_sets(self) -> int:
        return 0 if self._offsets is None else len(self._offsets) - 1

    def of(self, state: int) -> int:
        """The undecided set of a lexer state, or ``UNRESTRICTED``."""
        return UNRESTRICTED if self._of_state is None else self._of_state[state] - 1

    def check_all(self) -> None:
        """Every set's places and stored rows at once (``verify``)."""
        if self._container is not None:
            self._container.check_below("undecided_positions", self._positions, self._sorted_tokens.size)
            for set_id in range(len(self._offsets) - 1):
                if self._stored_row(set_id) is not None:
                    self._from_stored_row(set_id)

    def is_empty(self, set_id: int) -> bool:
        return self._offsets[set_id] == self._offsets[set_id + 1] and self._stored_row(set_id) is None

    def size(self, set_id: int) -> int:
        if self._stored_row(set_id) is None:
            return self._offsets[set_id + 1] - self._offsets[set_id]
        found = self._sizes.get(set_id)
        if found is None:
            found = self._sizes[set_id] = int(np.bitwise_count(self.row(set_id, 0)).sum())
        return found

    def row(self, set_id: int, words: int) -> np.ndarray:
        """The set as a bit row in trie order (uint32 words, at least ``words``), kept: what a wide
        set gives the coverage test (``Coverage.of_masks``).  A version 6 file stores the rows of
        its wide sets (``_from_stored_row``: RFC-XML's text sets, ~0.2-0.3 ms each to build from
        their places in a fresh process, most of it reading 488 KB of places)."""
        found = self._rows.get(set_id)
        if found is None:
            if self._stored_row(set_id) is not None:
                found = self._from_stored_row(set_id)
            else:
                flags = np.zeros(32 * words, dtype=np.uint8)
                flags[self._places(set_id)] = 1
                found = np.packbits(flags, bitorder="little").view(np.uint32)
            self._rows[set_id] = found
        return found

    def probes(self, set_id: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(places, each token's word, its bit in the word), kept: what ``OpenPlaces`` tests
        against a configuration's mask row in one gather (``intp`` words: int32 indices gather
        ~1.7x slower)."""
        found = self._probes.get(set_id)
        if found is None:
            places, tokens = self.members(set_id)
            found = self._probes[set_id] = (places.astype(np.intp), (tokens >> 5).astype(np.intp),
                                            np.left_shift(np.uint32(1), (tokens & 31).astype(np.uint32)))
        return found

    def members(self, set_id: int) -> tuple[np.ndarray, np.ndarray]:
        """(places in the trie's token order, their token ids), checked on first use, kept."""
        found = self._members.get(set_id)
        if found is None:
            if self._stored_row(set_id) is not None:
                row = self.row(set_id, 0)
                places = np.flatnonzero(np.unpackbits(row.view(np.uint8), bitorder="little")).astype(np.int32)
            else:
                places = self._places(set_id)
            found = self._members[set_id] = (places, self._sorted_tokens[places])
        return found

    def _stored_row(self, set_id: int) -> int | None:
        """The row of ``undecided_rows`` holding the set (version 6), or None: its places hold it."""
        if self._row_of_set is None or self._row_of_set[set_id] < 0:
            return None
        return self._row_of_set[set_id]

    def _from_stored_row(self, set_id: int) -> np.ndarray:
        """A stored row, checked (no places beside it, no bit past the trie's tokens) and copied
        with the spare zero word the coverage rows end with (``TrieOrderMasks.words``)."""
        stored = self._stored_rows[self._stored_row(set_id)]
        if self._offsets[set_id] != self._offsets[set_id + 1]:
            raise self._container.error(f"set {set_id} has both a row and places", "undecided_row")
        n_tokens = self._sorted_tokens.size
        if n_tokens % 32 and int(stored[-1]) >> (n_tokens % 32):
            raise self._container.error(f"row of set {set_id} has bits past the {n_tokens} trie tokens",
                                        "undecided_rows")
        found = np.zeros(stored.size + 1, dtype=np.uint32)
        found[: stored.size] = stored
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

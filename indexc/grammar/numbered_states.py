"""``NumberedStates``: the states of a worklist construction, numbered as they are first met.

The boundary products (``boundary_masks``) and the undecided-token automaton
(``undecided_tokens``) are subset constructions over the lexer's tables: a state is a key
(the lexer state, the set of running states, ...), numbered the first time a transition
reaches it and pushed on the worklist, its row of transitions filled when it is popped.  Both
give up on a part that grows past a bound (one pair, one terminal) and forget the states that
part added, from a mark: ``forget``.
"""

from __future__ import annotations

from typing import Hashable


class NumberedStates:
    """Keys to state numbers, each state's key and its row of transitions (filled by the caller)."""

    def __init__(self) -> None:
        self.ids: dict[Hashable, int] = {}
        self.keys: list[Hashable | None] = []
        self.rows: list[list[int]] = []

    def __len__(self) -> int:
        return len(self.rows)

    def reserve(self, row: list[int]) -> int:
        """A state with no key (the undecided automaton's ``ALL``), its row given."""
        self.keys.append(None)
        self.rows.append(row)
        return len(self.rows) - 1

    def number(self, key: Hashable, stack: list[int]) -> int:
        """The state of ``key``; a new one is pushed on ``stack`` with an empty row."""
        found = self.ids.get(key)
        if found is None:
            found = self.ids[key] = len(self.rows)
            self.keys.append(key)
            self.rows.append([])
            stack.append(found)
        return found

    def forget(self, mark: int) -> None:
        """Drop the states numbered from ``mark`` on (a part that grew too large)."""
        for key in self.keys[mark:]:
            del self.ids[key]
        del self.keys[mark:]
        del self.rows[mark:]

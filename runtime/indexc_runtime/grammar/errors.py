"""The grammar path's one extra error: an explicit limit of the live parser was reached.

The Earley parser and the live trie walk can, on a hostile or very ambiguous grammar, grow
without bound (Earley sets of thousands of items, millions of walk steps for one mask).  The
limits in ``GrammarLimits`` stop that with ``GrammarLimitExceeded`` (a ``RuntimeError``: the
artifact is fine, the request is too big for the limits), naming the limit and its value, so a
server can refuse one sequence instead of hanging.
"""

from __future__ import annotations

from dataclasses import dataclass


class GrammarLimitExceeded(RuntimeError):
    """A limit of ``GrammarLimits`` was reached; ``limit`` names it."""

    def __init__(self, limit: str, value: int, what: str):
        self.limit = limit
        self.value = value
        super().__init__(f"grammar limit {limit}={value:,} reached: {what} (raise it with GrammarLimits)")


@dataclass(frozen=True)
class GrammarLimits:
    max_set_items: int = 20_000  # items in one Earley set
    max_sets: int = 100_000  # distinct Earley sets an index's shared memo keeps (parser rows; a fresh memo at half)
    max_threads: int = 4_096  # lexer threads (Earley origin, lexeme, DFA state) at one text position
    max_configs: int = 100_000  # distinct parser configurations the shared memo keeps (a fresh memo at half)
    walk_budget: int = 2_000_000  # (trie node, configuration) pairs visited for one mask

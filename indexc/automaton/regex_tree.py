"""The regex as a small syntax tree over character sets.

Four node kinds are enough once the lexical layer is resolved (``normalize``): a set of
characters (by index into the normalised pattern's ``char_sets``), a concatenation, an
alternation and a bounded or unbounded repetition.  The empty string is ``Concat(())``.

``nfa_size`` is the number of NFA states the Thompson construction will create for a tree;
it is computed with Python integers *before* anything is built, so ``(a{1,1000}){1,1000}``
(a million states) is refused in microseconds instead of being expanded.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Chars:
    set_index: int


@dataclass(frozen=True)
class Concat:
    parts: tuple[Node, ...]


@dataclass(frozen=True)
class Alternation:
    options: tuple[Node, ...]


@dataclass(frozen=True)
class Repeat:
    body: Node
    min: int
    max: int | None  # None: unbounded
    lazy: bool = False  # written ``*?``: the same language, another match end (``indexc.grammar.lazy_ends``)


Node = Chars | Concat | Alternation | Repeat

EMPTY = Concat(())


def nfa_size(node: Node) -> int:
    """States that ``nfa.build_nfa`` creates for ``node`` (exact, never expands anything)."""
    if isinstance(node, Chars):
        return 2
    if isinstance(node, Concat):
        return sum(nfa_size(p) for p in node.parts) + 1
    if isinstance(node, Alternation):
        return sum(nfa_size(o) for o in node.options) + 2
    return nfa_size(node.body) * repeat_copies(node) + 2


def repeat_copies(node: Repeat) -> int:
    """How many copies of the body a repetition expands to."""
    if node.max is None:
        return max(node.min, 1)
    return node.max

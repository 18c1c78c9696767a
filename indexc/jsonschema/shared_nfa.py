"""Thompson construction that shares suffixes: regex tree -> NFA, built back to front.

``indexc.automaton.nfa`` builds each occurrence of a subtree afresh, which is right for a
regex read from text (there is no sharing to exploit) but quadratic for the trees
``lowering`` assembles: an object whose ``n`` properties are all optional is ``x1 S2 | x2 S3
| ... | xn``, where the suffix ``S(i) = (, xi)? S(i+1)`` is one shared subtree that the tree
mentions ``O(n)`` times.  Here each fragment is built *into a continuation* (the state that
follows it), and a subtree already built into the same continuation is reused, so every
``S(i)`` exists once: the NFA is linear in ``n`` (a 119-property object: from over 80,000
states, refused, to a few thousand).  The language is unchanged: a fragment's states are
only ever entered from its entry and only leave to its continuation.

The output is ``indexc.automaton.nfa.NFA``, so the automaton's subset construction,
minimisation and UTF-8 expansion run on it unchanged.  Bounded repetitions use the same
nested form as the automaton's builder (``x{2,4} = x x (x (x)?)?``), for the same reason
(closures stay small).  An ``EmbeddedDFA`` leaf (the product automaton of an
``Intersection`` lexeme, or the closed "any JSON value") gets one state per DFA state, whose
moves are the DFA's table itself (``nfa.TableBlock``): no edge list per copy, and the subset
construction groups the table's rows once for all its copies (Github_hard o12291 copies
32,175 such states, 249,777 moves).

A sequence's or a repetition's entry only moves on, by one epsilon move, to its first part:
such an entry is an alias of that state, not a state (``SharedNFABuilder.alias``), which
leaves the epsilon closures of the subset construction 20-30% fewer states to walk.  The
alias still keys the memo as a state of its own would: keying by the state it stands for
would share more (the closed "any JSON value" NFA: 8,183 -> 1,048 states, 2,632 -> 476
subsets, for the same minimal DFA) but would also move some schemas under the auto-mode
limits that today send them to the grammar path (4 of 120 MaskBench files), which changes
their artifacts; that is a routing decision, not an optimisation, so it is not made here.

A bounded repetition is a chain of copies of its body, each built into the previous one, so
after the first (which continues to the chain's follow and may reuse fragments built
elsewhere) every copy shares nothing with the rest of the NFA and has the same layout: once
two copies in a row have the same shape, the others are the last one shifted by its size
(``SharedNFABuilder._copies``), in numpy, with no walk of the tree.  The NFA is the same
state for state (the tests build both ways and compare).  Github_easy o9901 (three strings
of ``maxLength`` 1,024, lowered to nested 32 x 32 chains: 340,687 NFA states) builds in ~0.24
s instead of ~0.95 s (process time, garbage collector paused, as the compile runs); schemas
without long repetitions build as before (short chains, under 256 states to copy, are walked:
the numpy calls would cost more).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import accumulate, chain

import numpy as np

from indexc.automaton import regex_tree as rt
from indexc.automaton.nfa import NFA, TableBlock
from indexc.errors import NFASizeError
from indexc.jsonschema.intersection import CharDFA


@dataclass(frozen=True, eq=False)
class EmbeddedDFA:
    """A ready automaton as a leaf of the tree (an ``Intersection`` lexeme): its states are
    copied into the NFA, its column ``c`` read as the shared character set ``set_indices[c]``."""

    dfa: CharDFA
    set_indices: tuple[int, ...]


# Copies of a repetition are shifted rather than walked once this many states and aliases are
# left to make (below it, the clone's numpy calls cost more than the walk: ``\\u[0-9a-f]{4}``).
_CLONE_FROM = 256


class SharedNFABuilder:
    """Fragments are named by *handles*: a state's number, or for a pass-through entry (a
    sequence's, a repetition's, a one-option alternation's, whose only move is one epsilon
    move) a negative alias of the state it moves to.  The alias is what the memo keys on, so
    the fragments built into it are the same copies as when it was a state of its own (the
    NFA's size and where the limit cuts do not change), but no state is built for it: the
    epsilon closures walk 20-30% fewer states (9,898 of 43,297 for Github_medium o42810)."""

    def __init__(self, max_states: int, source: str = "<schema>"):
        self.nfa = NFA()
        self.max_states = max_states
        self.source = source
        self.memo: dict[tuple[int, int], int] = {}
        self.keep_alive: list[rt.Node] = []
        self.aliases: list[int] = []  # handle -1 - i stands for state aliases[i]
        self.clone_copies = True  # lay out repeated copies by shifting (``_copies``); off: walk each

    def build(self, tree: rt.Node) -> NFA:
        accept = self.state()
        self.nfa.accept = accept
        self.nfa.start = self.resolve(self.into(tree, accept))
        return self.nfa

    def state(self, edge: tuple[int, int] | None = None) -> int:
        """A new state, with ``edge`` (a character set and its target) if given."""
        epsilon = self.nfa.epsilon
        if len(epsilon) + 1 + len(self.aliases) > self.max_states:  # ``_count``, inlined: the hot path
            self._count(len(epsilon) + 1)
        epsilon.append([])
        self.nfa.edges.append([] if edge is None else [edge])
        return len(epsilon) - 1

    def states(self, count: int) -> list[int]:
        """``count`` new states, numbered consecutively."""
        epsilon, edges = self.nfa.epsilon, self.nfa.edges
        first = len(epsilon)
        self._count(first + count)
        epsilon.extend([] for _ in range(count))
        edges.extend([] for _ in range(count))
        return list(range(first, first + count))

    def _count(self, states_after: int) -> None:
        """``LimitError`` if ``states_after`` states (and the aliases) exceed the limit."""
        if states_after + len(self.aliases) > self.max_states:
            raise NFASizeError(f"the schema's automaton needs over {self.max_states:,} NFA states", source=self.source)

    def alias(self, handle: int) -> int:
        """A new handle for a pass-through entry that moves on to ``handle``."""
        aliases = self.aliases
        if len(self.nfa.epsilon) + 1 + len(aliases) > self.max_states:  # ``_count``, inlined
            self._count(len(self.nfa.epsilon) + 1)
        aliases.append(handle if handle >= 0 else aliases[-1 - handle])
        return -len(aliases)

    def resolve(self, handle: int) -> int:
        """The NFA state a handle stands for."""
        return handle if handle >= 0 else self.aliases[-1 - handle]

    def into(self, node: rt.Node, follow: int) -> int:
        """Handle of the entry of ``node``'s fragment, which continues to ``follow`` (a handle)."""
        key = (id(node), follow)
        entry = self.memo.get(key)
        if entry is None:
            entry = self.memo[key] = self._fragment(node, follow)
            self.keep_alive.append(node)
        return entry

    def _fragment(self, node: rt.Node, follow: int) -> int:
        if isinstance(node, rt.Chars):
            return self.state((node.set_index, follow if follow >= 0 else self.aliases[-1 - follow]))
        if isinstance(node, rt.Concat):
            current = follow
            for part in reversed(node.parts):
                current = self.into(part, current)
            return self.alias(current)
        if isinstance(node, rt.Alternation):
            if len(node.options) == 1:
                return self.alias(self.into(node.options[0], follow))
            entry = self.state()
            self.nfa.epsilon[entry].extend([self.resolve(self.into(option, follow)) for option in node.options])
            return entry
        if isinstance(node, EmbeddedDFA):
            return self._embedded(node, follow)
        return self._repeat(node, follow)

    def _embedded(self, node: EmbeddedDFA, follow: int) -> int:
        """One NFA state per DFA state, moving as the DFA's rows (a ``TableBlock``, no edge
        lists); accepting states go on to ``follow``."""
        first = self.states(node.dfa.n_states)[0]
        self.nfa.blocks.append(TableBlock(first, node.dfa.transitions, node.set_indices))
        follow_state = self.resolve(follow)
        epsilon = self.nfa.epsilon
        for accepting in np.flatnonzero(node.dfa.accepting).tolist():
            epsilon[first + accepting].append(follow_state)
        return first

    def _repeat(self, node: rt.Repeat, follow: int) -> int:
        current = follow
        if node.max is None:
            loop = self.state()  # x* : loop -> x -> loop, loop -> follow
            self.nfa.epsilon[loop].append(self.resolve(follow))
            self.nfa.epsilon[loop].append(self.resolve(self._fresh(node.body, loop)))
            current = loop
        else:  # nested optional copies, innermost first
            def optional_copy(inner: int) -> int:
                optional = self.state()
                self.nfa.epsilon[optional].append(self.resolve(follow))
                self.nfa.epsilon[optional].append(self.resolve(self._fresh(node.body, inner)))
                return optional
            current = self._copies(node.max - node.min, optional_copy, current)
        current = self._copies(node.min, lambda inner: self._fresh(node.body, inner), current)
        return self.alias(current)

    def _fresh(self, body: rt.Node, follow: int) -> int:
        """A copy of ``body`` into ``follow`` (memoised per continuation like everything else)."""
        return self.into(body, follow)

    def _copies(self, count: int, copy: Callable[[int], int], current: int) -> int:
        """``current = copy(current)``, ``count`` times; the handle of the last copy's entry.

        A copy built into the previous copy shares nothing with the rest of the NFA (every memo
        key names a continuation inside the chain), so two copies in a row with the same shape
        lay out every further copy: it is the last one shifted (``_clone``), which costs no
        tree walk.  The first copy may reuse fragments built elsewhere (it continues to the
        chain's follow), so it can differ; shapes are compared, not assumed."""
        if count < 3 or not self.clone_copies:  # no copy is left once two have been compared
            for _ in range(count):
                current = copy(current)
            return current
        previous_shape = None
        for done in range(count):
            mark = self._mark()
            current = copy(current)
            shape = tuple(after - before for after, before in zip(self._mark(), mark))
            left = count - done - 1
            if shape == previous_shape:  # the layout of every further copy
                if left * (shape[0] + shape[1]) >= _CLONE_FROM:
                    return self._clone(mark, shape, current, left)
                for _ in range(left):  # too few states to pay for the numpy calls
                    current = copy(current)
                return current
            previous_shape = shape
        return current

    def _mark(self) -> tuple[int, int, int]:
        return len(self.nfa.epsilon), len(self.aliases), len(self.nfa.blocks)

    def _clone(self, mark: tuple[int, int, int], shape: tuple[int, int, int], last: int, copies: int) -> int:
        """Append ``copies`` copies of the states, aliases and blocks made since ``mark`` (the
        last copy of a chain, whose predecessor has the same ``shape``).  A reference into the
        predecessor or the copy moves by one copy's size each time; any other (the chain's
        follow) stays.  Returns the handle ``last`` stands for in the last new copy."""
        first_state, first_alias, first_block = mark
        n_states, n_aliases, n_blocks = shape
        self._count(len(self.nfa.epsilon) + copies * (n_states + n_aliases))  # the new aliases count as states
        moved_from = first_state - n_states  # references at or above this belong to the chain
        shifts = np.arange(1, copies + 1, dtype=np.int64) * n_states
        epsilon, edges = self.nfa.epsilon, self.nfa.edges
        for shifted in _shifted_lists(epsilon[first_state:], moved_from, shifts):
            epsilon.extend(shifted)
        copied_edges = edges[first_state:]
        labels = [label for state_edges in copied_edges for label, _ in state_edges]
        targets = [[target for _, target in state_edges] for state_edges in copied_edges]
        spans = _spans(targets)
        for shifted in _shifted(targets, moved_from, shifts):
            moves = list(zip(labels, shifted))  # one tuple per edge, made in one call
            edges.extend([moves[lo:hi] for lo, hi in spans])
        self.aliases.extend(_shifted([self.aliases[first_alias:]], moved_from, shifts).reshape(-1).tolist())
        blocks = self.nfa.blocks[first_block:]
        for shift in shifts.tolist():
            self.nfa.blocks.extend(TableBlock(block.first + shift, block.table, block.set_indices) for block in blocks)
        if last >= 0:
            return last + int(shifts[-1]) if last >= moved_from else last
        alias_index = -1 - last
        return -1 - (alias_index + copies * n_aliases) if alias_index >= first_alias else last


def _shifted(lists: list[list[int]], moved_from: int, shifts: np.ndarray) -> np.ndarray:
    """Per shift (a row), the values of ``lists`` end to end, each ``>= moved_from`` increased by it."""
    flat = np.fromiter(chain.from_iterable(lists), dtype=np.int64, count=sum(map(len, lists)))
    return flat[None, :] + shifts[:, None] * (flat >= moved_from)


def _spans(lists: list[list[int]]) -> list[tuple[int, int]]:
    """Where each of ``lists`` lies in their concatenation."""
    bounds = list(accumulate(map(len, lists), initial=0))
    return list(zip(bounds, bounds[1:]))


def _shifted_lists(lists: list[list[int]], moved_from: int, shifts: np.ndarray) -> list[list[list[int]]]:
    """Per shift, ``lists`` with every value ``>= moved_from`` increased by the shift."""
    spans = _spans(lists)
    return [[row[lo:hi] for lo, hi in spans] for row in _shifted(lists, moved_from, shifts).tolist()]

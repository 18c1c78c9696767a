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
``Intersection`` lexeme) is copied state for state.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from indexc.automaton import regex_tree as rt
from indexc.automaton.nfa import NFA
from indexc.errors import LimitError
from indexc.jsonschema.intersection import CharDFA


@dataclass(frozen=True, eq=False)
class EmbeddedDFA:
    """A ready automaton as a leaf of the tree (an ``Intersection`` lexeme): its states are
    copied into the NFA, its column ``c`` read as the shared character set ``set_indices[c]``."""

    dfa: CharDFA
    set_indices: tuple[int, ...]


class SharedNFABuilder:
    def __init__(self, max_states: int, source: str = "<schema>"):
        self.nfa = NFA()
        self.max_states = max_states
        self.source = source
        self.memo: dict[tuple[int, int], int] = {}
        self.keep_alive: list[rt.Node] = []

    def build(self, tree: rt.Node) -> NFA:
        accept = self.state()
        self.nfa.accept = accept
        self.nfa.start = self.into(tree, accept)
        return self.nfa

    def state(self) -> int:
        if self.nfa.n_states >= self.max_states:
            raise LimitError(f"the schema's automaton needs over {self.max_states:,} NFA states", source=self.source)
        return self.nfa.add_state()

    def into(self, node: rt.Node, follow: int) -> int:
        """Entry state of ``node``'s fragment, which continues to ``follow``."""
        key = (id(node), follow)
        entry = self.memo.get(key)
        if entry is None:
            entry = self.memo[key] = self._fragment(node, follow)
            self.keep_alive.append(node)
        return entry

    def _fragment(self, node: rt.Node, follow: int) -> int:
        if isinstance(node, rt.Chars):
            entry = self.state()
            self.nfa.edges[entry].append((node.set_index, follow))
            return entry
        if isinstance(node, rt.Concat):
            current = follow
            for part in reversed(node.parts):
                current = self.into(part, current)
            entry = self.state()
            self.nfa.epsilon[entry].append(current)
            return entry
        if isinstance(node, rt.Alternation):
            entry = self.state()
            self.nfa.epsilon[entry].extend(self.into(option, follow) for option in node.options)
            return entry
        if isinstance(node, EmbeddedDFA):
            return self._embedded(node, follow)
        return self._repeat(node, follow)

    def _embedded(self, node: EmbeddedDFA, follow: int) -> int:
        """One NFA state per DFA state, one edge per live cell; accepting states go on to ``follow``."""
        states = [self.state() for _ in range(node.dfa.n_states)]
        sources, columns, targets = node.dfa.live_cells()
        for source, column, target in zip(sources.tolist(), columns.tolist(), targets.tolist()):
            self.nfa.edges[states[source]].append((node.set_indices[column], states[target]))
        for accepting in np.flatnonzero(node.dfa.accepting).tolist():
            self.nfa.epsilon[states[accepting]].append(follow)
        return states[0]

    def _repeat(self, node: rt.Repeat, follow: int) -> int:
        current = follow
        if node.max is None:
            loop = self.state()  # x* : loop -> x -> loop, loop -> follow
            self.nfa.epsilon[loop].append(follow)
            self.nfa.epsilon[loop].append(self._fresh(node.body, loop))
            current = loop
            mandatory = node.min
        else:
            for _ in range(node.max - node.min):  # nested optional copies, innermost first
                optional = self.state()
                self.nfa.epsilon[optional].append(follow)
                self.nfa.epsilon[optional].append(self._fresh(node.body, current))
                current = optional
            mandatory = node.min
        for _ in range(mandatory):
            current = self._fresh(node.body, current)
        entry = self.state()
        self.nfa.epsilon[entry].append(current)
        return entry

    def _fresh(self, body: rt.Node, follow: int) -> int:
        """A copy of ``body`` into ``follow`` (memoised per continuation like everything else)."""
        return self.into(body, follow)

"""Thompson construction: regex tree -> NFA with epsilon moves and character-set edges.

States are integers; ``epsilon[q]`` lists the epsilon successors of ``q`` and ``edges[q]``
its ``(set_index, target)`` moves.  One start and one accepting state.  A run of states may
instead take its moves from a DFA table (``TableBlock``: the JSON Schema path embeds ready
automata, copied many times); such states have no ``edges`` of their own, so the copy costs
no Python object per move and the subset construction groups a table's rows once for all
its copies.

Bounded repetition is expanded by copying the body, in the *nested* form
``x{2,5} = x x (x (x (x)?)?)?``: after skipping one optional copy the match is over, so the
epsilon closure of any state reaches at most one "skip" edge per open repetition.  The flat
form ``x x x? x? x?`` is equivalent but its closures grow with the count, which makes the
subset construction quadratic (``[^"]{0,5000}`` would hold 5000 NFA states per DFA state).
The size is checked against ``AutomatonLimits.max_nfa_states`` before any copy is made.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from indexc.automaton.limits import AutomatonLimits
from indexc.automaton.regex_tree import Alternation, Chars, Concat, Node, Repeat, nfa_size, repeat_copies
from indexc.errors import LimitError


@dataclass(frozen=True, eq=False)
class TableBlock:
    """States ``first .. first + n - 1`` moving as the rows of a DFA table: state ``first + s``
    moves on set ``set_indices[c]`` to ``first + table[s, c]`` (none where the cell is ``DEAD``).
    Copies of one automaton share ``table`` and ``set_indices`` (the same objects)."""

    first: int
    table: np.ndarray  # int32 (n, columns), DEAD = -1
    set_indices: tuple[int, ...]

    @property
    def n_states(self) -> int:
        return int(self.table.shape[0])


@dataclass
class NFA:
    epsilon: list[list[int]] = field(default_factory=list)
    edges: list[list[tuple[int, int]]] = field(default_factory=list)
    start: int = 0
    accept: int = 0
    blocks: list[TableBlock] = field(default_factory=list)

    @property
    def n_states(self) -> int:
        return len(self.epsilon)

    def add_state(self) -> int:
        self.epsilon.append([])
        self.edges.append([])
        return len(self.epsilon) - 1


def build_nfa(tree: Node, limits: AutomatonLimits, *, source: str = "<regex>") -> NFA:
    """The Thompson NFA of ``tree``; ``LimitError`` if it would exceed the NFA limit."""
    size = nfa_size(tree)
    if size > limits.max_nfa_states:
        raise LimitError(
            f"the regex expands to {size:,} NFA states (limit {limits.max_nfa_states:,}): "
            "bounded repetitions multiply the size of what they repeat; reduce the counts "
            "or raise --max-states",
            source=source,
        )
    nfa = NFA()
    nfa.start, nfa.accept = _build(nfa, tree)
    return nfa


def _build(nfa: NFA, node: Node) -> tuple[int, int]:
    """Add the fragment of ``node``; returns its (entry, exit) states."""
    if isinstance(node, Chars):
        entry, exit_ = nfa.add_state(), nfa.add_state()
        nfa.edges[entry].append((node.set_index, exit_))
        return entry, exit_
    if isinstance(node, Concat):
        entry = current = nfa.add_state()
        for part in node.parts:
            part_entry, part_exit = _build(nfa, part)
            nfa.epsilon[current].append(part_entry)
            current = part_exit
        return entry, current
    entry, exit_ = nfa.add_state(), nfa.add_state()
    if isinstance(node, Alternation):
        for option in node.options:
            option_entry, option_exit = _build(nfa, option)
            nfa.epsilon[entry].append(option_entry)
            nfa.epsilon[option_exit].append(exit_)
        return entry, exit_
    _build_repeat(nfa, node, entry, exit_)
    return entry, exit_


def _build_repeat(nfa: NFA, node: Repeat, entry: int, exit_: int) -> None:
    current = entry
    copies = repeat_copies(node)
    for k in range(copies):
        optional = node.max is not None and k >= node.min
        if optional:
            nfa.epsilon[current].append(exit_)
        copy_entry, copy_exit = _build(nfa, node.body)
        nfa.epsilon[current].append(copy_entry)
        if node.max is None and k == copies - 1:
            nfa.epsilon[copy_exit].append(copy_entry)  # the last copy loops
        current = copy_exit
    nfa.epsilon[current].append(exit_)
    if node.max is None and node.min == 0:
        nfa.epsilon[entry].append(exit_)

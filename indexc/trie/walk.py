"""Seed 000's non-recursive trie walk, driven by a byte recognizer: the reference walker.

The walk visits the nodes in id (DFS) order.  At node p the recognizer is asked to take p's
byte on top of the state of p's parent: if it can, p is *reached* (its tokens are allowed) and
the walk steps into p's subtree (``p + 1``); if not, the whole subtree is skipped
(``p + subtree_size[p]``).  The recognizer keeps one state per pushed byte, a stack that always
holds the states of the path from the root to the current node's parent; ``num_parents`` says
how many to pop when the walk leaves a subtree, without ever looking at ``parent`` or
``depth``:

- after a reached leaf, pop ``num_parents[p]`` (the leaf itself and the ancestors it closes);
- after a refused node, pop ``num_parents[p] - 1`` (the node itself was never pushed);
- after a reached inner node, pop nothing (its first child is next).

As in llguidance's ``add_bias_inner``, the pop is carried to the start of the next step, and
after the last node the walk pops back to the root state.  This is the per-token-step walk the
CFG live path needs (one state stack, each node's byte read once); the masks stage computes many
states at once with a level-by-level numpy frontier instead.  In Python it costs 0.3-0.4 µs
per visited node plus ~4 ms to turn three arrays into lists (105 ms for all 274,520 nodes of
Llama-3), about 10x the numpy frontier's cost per (state, node) pair, so it serves tests and
as a reference, not a hot path.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, Protocol, TypeVar

import numpy as np

from indexc.trie.model import TokenTrie

State = TypeVar("State")


class ByteRecognizer(Protocol):
    """A stack of recognizer states, one per byte of the current prefix."""

    def try_push_byte(self, byte: int) -> bool:
        """Take ``byte`` after the current prefix; push the new state and say True if alive."""
        ...

    def pop_bytes(self, count: int) -> None:
        """Forget the last ``count`` pushed bytes."""
        ...


def walk_nodes(trie: TokenTrie, recognizer: ByteRecognizer) -> np.ndarray:
    """Ids of the nodes whose prefix the recognizer accepts byte by byte, in DFS order."""
    byte = trie.byte.tolist()
    subtree_size = trie.subtree_size.tolist()
    num_parents = trie.num_parents.tolist()
    reached: list[int] = []
    pending_pops = 0
    p = 1
    while p < len(byte):
        if pending_pops:
            recognizer.pop_bytes(pending_pops)
        if recognizer.try_push_byte(byte[p]):
            reached.append(p)
            pending_pops = num_parents[p] if subtree_size[p] == 1 else 0
            p += 1
        else:
            pending_pops = num_parents[p] - 1
            p += subtree_size[p]
    if pending_pops:
        recognizer.pop_bytes(pending_pops)
    return np.array(reached, dtype=np.int32)


def walk_tokens(trie: TokenTrie, recognizer: ByteRecognizer) -> np.ndarray:
    """Sorted ids of the tokens whose bytes the recognizer accepts (every byte keeps it alive)."""
    nodes = walk_nodes(trie, recognizer)
    starts = trie.token_start[nodes].astype(np.int64)
    counts = trie.token_end[nodes] - starts
    run_first = np.cumsum(counts) - counts
    slots = np.repeat(starts - run_first, counts) + np.arange(int(counts.sum()))
    return np.sort(trie.sorted_tokens[slots])


class ByteFilter:
    """A recognizer with no state: each byte is allowed or not on its own.

    "Everything allowed" reaches every token; forbidding a byte reaches exactly the tokens
    without it.  ``depth`` counts pushed bytes, so a walk can be checked to end at the root.
    """

    def __init__(self, allowed_byte: Callable[[int], bool]):
        self.allowed_byte = allowed_byte
        self.depth = 0

    def try_push_byte(self, byte: int) -> bool:
        if not self.allowed_byte(byte):
            return False
        self.depth += 1
        return True

    def pop_bytes(self, count: int) -> None:
        if count > self.depth:
            raise ValueError(f"pop of {count} bytes with {self.depth} pushed")
        self.depth -= count


class StateStack(Generic[State]):
    """A recognizer from a step function: ``step(state, byte)`` is the next state or None (dead).

    A byte DFA is ``StateStack(lambda s, b: t[s, b] if t[s, b] >= 0 else None, 0)``; the stack
    (``states``) holds the start state and one state per pushed byte.
    """

    def __init__(self, step: Callable[[State, int], State | None], start: State):
        self.step = step
        self.states: list[State] = [start]

    def try_push_byte(self, byte: int) -> bool:
        nxt = self.step(self.states[-1], byte)
        if nxt is None:
            return False
        self.states.append(nxt)
        return True

    def pop_bytes(self, count: int) -> None:
        if count >= len(self.states):
            raise ValueError(f"pop of {count} bytes with {len(self.states) - 1} pushed")
        del self.states[len(self.states) - count :]

"""Literal muting: the states inside long deterministic literals leave the byte classes.

The problem (seed 002): a literal splits byte classes for the whole automaton.  In
``\\{"name":"[^"]*","age":\\d+\\}`` the letters n, a, m, e, g each get a class of their own
because one state of the literal tells them apart, so the class trie (tokens grouped by class
sequence) stays almost as big as the byte trie, for every state.

The exact version used here.  A *literal state* has exactly one live byte and does not
accept; a run of them spells a literal.  States in runs of at least ``min_length`` literal
states are *muted*: the classes of the walk are computed from the rows of the other states
only (so ``n a m e g`` fall back into one class), and the walk leaves class mode the moment it
reaches a muted state: the class node it stands on is expanded back into the byte-trie nodes
it merges (all of which reach that state: the path so far only crossed unmuted states, whose
rows the classes respect) and from there on the walk follows the byte trie with the exact
byte table.  Tokens that run into a literal are few, so the byte-level part stays small.

What this does to the masks: nothing.  Unlike seed 002's "ghost token" rewrite, which keeps
only the literal's canonical tokenization, every token whose bytes keep the match alive is
still allowed (the tests check the masks are identical with muting on and off).  What it
changes is the work: the number of classes and class-trie nodes.  The artifact's own byte
classes (used by ``advance``) are still computed over all states.
"""

from __future__ import annotations

import numpy as np

from indexc.automaton.byte_dfa import DEAD, ByteDFA


def muted_states(dfa: ByteDFA, min_length: int) -> np.ndarray:
    """Bool per state: a literal state in a run of at least ``min_length`` literal states."""
    live = dfa.transitions != DEAD
    literal = (live.sum(axis=1) == 1) & ~dfa.accepting.astype(bool)
    if min_length <= 0 or not literal.any():
        return np.zeros(dfa.n_states, dtype=bool) if min_length > 0 else literal
    successor = np.where(literal, dfa.transitions.max(axis=1), DEAD)  # the single live target
    states = np.flatnonzero(literal)
    targets = successor[states]
    inner = literal[np.maximum(targets, 0)] & (targets >= 0)
    # forward[s]: literal states from s to the end of its run; backward[s]: from the run's start.
    forward = literal.astype(np.int64)
    backward = literal.astype(np.int64)
    # Only whether a run reaches min_length matters, and after k rounds both counts are exact up
    # to k + 1: min_length rounds decide it (was n_states rounds: a 50 kB literal took 70 s).
    for _ in range(min_length):
        new_forward = forward.copy()
        new_forward[states[inner]] = 1 + forward[targets[inner]]
        new_backward = backward.copy()
        np.maximum.at(new_backward, targets[inner], 1 + backward[states[inner]])
        if np.array_equal(new_forward, forward) and np.array_equal(new_backward, backward):
            break
        forward, backward = new_forward, new_backward
    return literal & (forward + backward - 1 >= min_length)

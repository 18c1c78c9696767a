"""Slices (seed 001): a state's self-loop accepts whole groups of tokens at once.

A state s that loops on a wide set of bytes C (``transitions[s, b] == s`` for b in C: the
body of a JSON string, ``.*``, ``[a-z ]*``) allows every token made only of C bytes: from s
such a token never leaves s.  That set, T(C), is the state's *slice*: computed once per
distinct C on the byte trie (breadth first from the root, taking only edges in C, so the cost
is the size of the slice) and shared by every state with that loop.

The walk still visits the paths inside C (it must find the tokens that leave C part-way),
but it records no hit while a path has stayed at s: the state's hit set holds only the
tokens *outside* its slice, plus the slice's id.  What it buys: hit sets of slice states
shrink from ~10^4-10^5 nodes to the few that leave the loop, so deduplication compares small
keys, and a mask is expanded as one copy of the slice's flag row plus a scatter of the few
other tokens instead of a scatter of 10^5 ids.  What it does to the masks: nothing (T(C) is
exactly the tokens the walk would have recorded there; the tests compare with slices off).

Only loops with at least ``min_tokens`` tokens in their slice are kept: a small slice costs
more to carry than to walk.

Measured (bench/bench_ablation.py, Llama-3): in this ahead-of-time regex compile slices do
not pay, so they are off by default (``--slices`` turns them on).  The class trie already
folds a loop's tokens into a handful of class nodes (``[^"]*``: one chain of class nodes), so
the walk saves little, while finding each slice is one more breadth-first pass down the trie:
email 30 -> 45 ms in two runs; the other regexes of the bench within run-to-run noise.  Their
place is the live path of grammars (seed 001), where every step would otherwise walk the
trie at serving time.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from indexc.automaton.byte_dfa import ByteDFA
from indexc.arrays import expand_runs
from indexc.trie import TokenTrie


@dataclass(frozen=True)
class Slices:
    slice_of_state: np.ndarray  # int64 (n_states,): slice id or -1
    tokens: tuple[np.ndarray, ...]  # per slice: sorted token ids made only of its loop bytes
    loop_bytes: tuple[np.ndarray, ...]  # per slice: bool (256,), the loop's byte set C

    @property
    def count(self) -> int:
        return len(self.tokens)

    @classmethod
    def none(cls, n_states: int) -> "Slices":
        return cls(np.full(n_states, -1, dtype=np.int64), (), ())


def find_slices(dfa: ByteDFA, trie: TokenTrie, *, min_tokens: int) -> Slices:
    """The slices of ``dfa``'s self-loops that hold at least ``min_tokens`` tokens."""
    loops = dfa.transitions == np.arange(dfa.n_states)[:, None]  # (n_states, 256) bool
    slice_of_state = np.full(dfa.n_states, -1, dtype=np.int64)
    candidates = np.flatnonzero(loops.sum(axis=1) > 0)
    if candidates.size == 0:
        return Slices.none(dfa.n_states)
    distinct, inverse = np.unique(loops[candidates], axis=0, return_inverse=True)
    tokens: list[np.ndarray] = []
    loop_bytes: list[np.ndarray] = []
    for k, byte_set in enumerate(distinct):
        members = _tokens_within(trie, byte_set)
        if members.size >= min_tokens:
            slice_of_state[candidates[inverse.reshape(-1) == k]] = len(tokens)
            tokens.append(members)
            loop_bytes.append(byte_set)
    return Slices(slice_of_state, tuple(tokens), tuple(loop_bytes))


def _tokens_within(trie: TokenTrie, byte_set: np.ndarray) -> np.ndarray:
    """Sorted ids of the tokens whose bytes all lie in ``byte_set`` (breadth first from the root)."""
    found = [np.zeros(0, np.int64)]
    frontier = np.zeros(1, dtype=np.int64)
    while frontier.size:
        first = trie.child_offsets[frontier].astype(np.int64)
        _, position = expand_runs(first, trie.child_offsets[frontier + 1] - first)
        frontier = trie.children[position].astype(np.int64)
        frontier = frontier[byte_set[trie.byte[frontier]]]
        starts = trie.token_start[frontier].astype(np.int64)
        _, at = expand_runs(starts, trie.token_end[frontier].astype(np.int64) - starts)
        found.append(at)
    return np.sort(trie.sorted_tokens[np.concatenate(found)]).astype(np.int32)

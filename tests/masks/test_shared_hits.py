"""``compute.SharedHits``: a long mask's token flags counted from a similar mask's counts,
against the tokens of its own contents' nodes."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from indexc.masks.compute import SharedHits, StartHits, _csr

N_CLASS_NODES = 40
N_BYTE_NODES = 15


class OneTokenANode:
    """A ``HitExpander`` stand-in with one token per node: class node ``i`` ends token ``i``,
    byte node ``b`` token ``N_CLASS_NODES + b`` (what ``SharedHits`` asks of the real one)."""

    owner = np.concatenate((np.arange(N_CLASS_NODES), np.full(N_BYTE_NODES, N_CLASS_NODES)))

    def class_node_flags(self, present: np.ndarray) -> np.ndarray:
        return present[:N_CLASS_NODES + 1][self.owner]

    def set_class_nodes(self, flags: np.ndarray, nodes: np.ndarray, value: bool) -> None:
        flags[nodes] = value

    def mark_byte_nodes(self, flags: np.ndarray, nodes: np.ndarray) -> None:
        flags[N_CLASS_NODES + nodes] = True


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_sets=st.integers(1, 12), n_keys=st.integers(1, 12))
def test_token_flags_are_the_tokens_of_the_key_contents(seed, n_sets, n_keys):
    rng = np.random.default_rng(seed)
    sets = []  # hit sets: class nodes >= 0 and byte nodes < 0, overlapping one another
    for _ in range(n_sets):
        nodes = rng.choice(np.arange(-N_BYTE_NODES, N_CLASS_NODES), size=int(rng.integers(0, 20)), replace=False)
        sets.append(np.sort(nodes).astype(np.int64))
    hits = StartHits([_csr(tuple(sets))])
    if not len(hits):
        return
    # keys in families: a few bases, each key a base with some contents dropped or added
    bases = [rng.random(len(hits)) < 0.6 for _ in range(3)]
    keys = []
    for _ in range(n_keys):
        held = bases[int(rng.integers(3))] ^ (rng.random(len(hits)) < 0.15)
        key = np.flatnonzero(held)
        keys.append(np.concatenate((key, key[:2])) if key.size else np.array([0]))  # repeats allowed
    shared = SharedHits(hits, keys, N_CLASS_NODES)
    expander = OneTokenANode()
    for key in keys + keys[::-1]:
        flags = shared.token_flags(key, expander)
        nodes = np.unique(hits.of(key))
        expected = np.zeros(N_CLASS_NODES + N_BYTE_NODES, dtype=bool)
        expected[nodes[nodes >= 0]] = True
        expected[N_CLASS_NODES + (-1 - nodes[nodes < 0])] = True
        assert np.array_equal(flags, expected)
        assert set((-1 - nodes[nodes < 0]).tolist()) <= set(shared.byte_nodes.tolist())

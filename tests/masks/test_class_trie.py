"""The class trie against a dictionary-built reference, and the per-trie cache of its byte-trie view."""

from __future__ import annotations

import gc

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from indexc.masks import class_trie
from indexc.masks.class_trie import breadth_first, build_class_trie
from indexc.trie import build_trie
from indexc.vocab import vocabulary_from_tokens

TOKENS = st.lists(st.binary(min_size=1, max_size=5), min_size=1, max_size=40, unique=True)
CLASSES = st.lists(st.integers(0, 3), min_size=256, max_size=256)


def _reference(tokens: list[bytes], class_of_byte: np.ndarray, dead_byte: np.ndarray, dead_pair: np.ndarray):
    """{class sequence: sorted token ids} of the kept tokens' prefixes, and the pruned count:
    a prefix survives iff no byte of it is dead and no adjacent pair of it is dead."""
    nodes: dict[tuple, list[int]] = {(): []}
    pruned = 0
    for token_id, token in enumerate(tokens):
        path: tuple = ()
        for depth, byte in enumerate(token):
            if dead_byte[byte] or (depth and dead_pair[token[depth - 1], byte]):
                pruned += 1
                break
            path += (int(class_of_byte[byte]),)
            nodes.setdefault(path, [])
        else:
            nodes[path].append(token_id)
    return nodes, pruned


def _sequences(trie) -> list[tuple]:
    """The class sequence of each class node, read back from the CSR arrays."""
    sequences = [()]
    for node in range(1, trie.n_nodes):
        parent = int(np.searchsorted(trie.child_offsets, node, side="right")) - 1
        sequences.append(sequences[parent] + (int(trie.node_class[node]),))
    return sequences


@settings(max_examples=60, deadline=None)
@given(tokens=TOKENS, classes=CLASSES, dead=st.sets(st.integers(0, 255), max_size=60),
       dead_pairs=st.sets(st.tuples(st.integers(0, 255), st.integers(0, 255)), max_size=200),
       with_byte_nodes=st.booleans())
def test_class_trie_matches_the_reference(tokens, classes, dead, dead_pairs, with_byte_nodes):
    _check_against_the_reference(tokens, classes, dead, dead_pairs, with_byte_nodes)


@settings(max_examples=60, deadline=None)
@given(tokens=TOKENS, classes=CLASSES, dead=st.sets(st.integers(0, 255), max_size=60),
       dead_pairs=st.sets(st.tuples(st.integers(0, 255), st.integers(0, 255)), max_size=200),
       with_byte_nodes=st.booleans())
def test_vectorised_levels_match_the_reference(tokens, classes, dead, dead_pairs, with_byte_nodes):
    """Every level through the vectorised path (read whole or by the frontier's children),
    including a frontier whose children are all dead."""
    small_level = class_trie.SMALL_LEVEL
    class_trie.SMALL_LEVEL = 0
    try:
        _check_against_the_reference(tokens, classes, dead, dead_pairs, with_byte_nodes)
    finally:
        class_trie.SMALL_LEVEL = small_level


def test_a_wide_frontier_with_no_live_child():
    """More than ``SMALL_LEVEL`` first bytes, every second byte dead after them: an empty level."""
    tokens = [bytes([b, 200]) for b in range(class_trie.SMALL_LEVEL + 10)]
    trie = build_trie(vocabulary_from_tokens(tokens))
    dead_pair = np.zeros((256, 256), dtype=bool)
    dead_pair[:, 200] = True
    built = build_class_trie(trie, np.arange(256, dtype=np.uint8) % 5, 5, np.zeros(256, dtype=bool), dead_pair)
    assert built.n_nodes == 1 + 5 and built.pruned_tokens == len(tokens) and built.tokens.size == 0


def _check_against_the_reference(tokens, classes, dead, dead_pairs, with_byte_nodes):
    vocab = vocabulary_from_tokens(tokens)
    trie = build_trie(vocab)
    class_of_byte = np.array(classes, dtype=np.uint8)
    dead_byte = np.zeros(256, dtype=bool)
    dead_byte[list(dead)] = True
    dead_pair = np.zeros((256, 256), dtype=bool)
    for first, second in dead_pairs:
        dead_pair[first, second] = True
    built = build_class_trie(trie, class_of_byte, 4, dead_byte, dead_pair, with_byte_nodes=with_byte_nodes)
    expected, pruned = _reference(tokens, class_of_byte, dead_byte, dead_pair)

    sequences = _sequences(built)
    assert sorted(sequences, key=lambda s: (len(s), s)) == sequences  # breadth first, children by class
    assert set(sequences) == set(expected)
    for node, sequence in enumerate(sequences):
        ids = built.tokens[built.token_offsets[node]:built.token_offsets[node + 1]]
        assert sorted(ids.tolist()) == expected[sequence]
        if with_byte_nodes:
            for byte_node in built.byte_nodes[built.byte_node_offsets[node]:built.byte_node_offsets[node + 1]]:
                prefix = trie.prefix_of(int(byte_node))
                assert tuple(int(class_of_byte[b]) for b in prefix) == sequence
    assert built.pruned_tokens == pruned
    rank = {sequence: i for i, sequence in enumerate(sorted(sequences))}  # children by class: pre-order
    assert built.preorder.tolist() == [rank[sequence] for sequence in sequences]
    for node, sequence in enumerate(sequences):  # subtree sizes and heights from the sequences below
        below = [other for other in sequences if other[:len(sequence)] == sequence]
        assert built.subtree_sizes[node] == len(below)
        assert built.heights[node] == max(len(other) for other in below) - len(sequence)
    if with_byte_nodes:  # every surviving byte node stands for exactly one class node
        assert built.byte_nodes.size == np.unique(built.byte_nodes).size


def test_the_view_is_built_once_per_trie():
    trie = build_trie(vocabulary_from_tokens([b"ab", b"ac", b"b"]))
    assert breadth_first(trie) is breadth_first(trie)


def test_another_trie_never_reuses_a_view():
    """Equal contents or not, a different trie object gets its own view, built from its own arrays."""
    first = build_trie(vocabulary_from_tokens([b"ab", b"ac", b"b"]))
    second = build_trie(vocabulary_from_tokens([b"xyz", b"x"]))
    twin = build_trie(vocabulary_from_tokens([b"ab", b"ac", b"b"]))
    views = [breadth_first(trie) for trie in (first, second, twin)]
    assert views[0] is not views[2]
    assert views[1].n_positions == second.n_nodes
    assert np.array_equal(views[1].node, second.level_nodes)
    assert np.array_equal(views[1].byte, second.byte[second.level_nodes])


def test_the_cache_is_bounded_and_forgets_dead_tries():
    count = class_trie.MAX_CACHED_TRIES + 2
    tries = [build_trie(vocabulary_from_tokens([bytes([65 + i]), b"zz"])) for i in range(count)]
    for each in tries:
        breadth_first(each)
    assert len(class_trie._BREADTH_FIRST) <= class_trie.MAX_CACHED_TRIES
    assert id(tries[-1]) in class_trie._BREADTH_FIRST
    last = id(tries[-1])
    del tries, each
    gc.collect()
    assert last not in class_trie._BREADTH_FIRST


@settings(max_examples=30, deadline=None)
@given(tokens=TOKENS, classes=st.lists(CLASSES, min_size=2, max_size=3), dead=st.sets(st.integers(0, 255), max_size=60),
       dead_pairs=st.sets(st.tuples(st.integers(0, 255), st.integers(0, 255)), max_size=200))
def test_a_pruning_kept_for_the_trie_serves_other_alphabets(tokens, classes, dead, dead_pairs):
    """``kept_levels`` is found once per trie and dead sets; class tries of other alphabets built
    from the kept levels still match the reference, and other dead sets are pruned afresh."""
    trie = build_trie(vocabulary_from_tokens(tokens))
    dead_byte = np.zeros(256, dtype=bool)
    dead_byte[list(dead)] = True
    dead_pair = np.zeros((256, 256), dtype=bool)
    for first, second in dead_pairs:
        dead_pair[first, second] = True
    kept = class_trie.kept_levels(trie, dead_byte, dead_pair)
    for class_map in classes:
        assert class_trie.kept_levels(trie, dead_byte, dead_pair) is kept
        built = build_class_trie(trie, np.array(class_map, dtype=np.uint8), 4, dead_byte, dead_pair)
        expected, pruned = _reference(tokens, np.array(class_map, dtype=np.uint8), dead_byte, dead_pair)
        assert set(_sequences(built)) == set(expected) and built.pruned_tokens == pruned
    unpruned = class_trie.kept_levels(trie)
    assert unpruned is not kept and sum(level.size for level in unpruned.nodes) == trie.n_nodes - 1
    assert len(class_trie._KEPT) <= class_trie.MAX_CACHED_PRUNINGS


def test_tokens_with_the_same_bytes_all_reach_their_class_node():
    """Two ids with equal bytes end at one byte node: the class trie lists both there (the
    token ranges' path, not the one token a node's ``token_id`` names)."""
    tokens = [b"ab", b"ab", b"a", b"b"]
    trie = build_trie(vocabulary_from_tokens(tokens))
    built = build_class_trie(trie, np.zeros(256, dtype=np.uint8), 1, np.zeros(256, dtype=bool))
    expected, _ = _reference(tokens, np.zeros(256, dtype=np.uint8), np.zeros(256, dtype=bool),
                             np.zeros((256, 256), dtype=bool))
    sequences = _sequences(built)
    for node, sequence in enumerate(sequences):
        ids = built.tokens[built.token_offsets[node]:built.token_offsets[node + 1]]
        assert sorted(ids.tolist()) == expected[sequence]
    assert sorted(built.tokens.tolist()) == [0, 1, 2, 3]

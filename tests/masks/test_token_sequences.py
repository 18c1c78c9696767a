"""Class sequences of tokens, and the numbering that tells which tokens share one."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from indexc.masks.token_sequences import class_sequence_groups, class_sequences
from indexc.trie import build_trie
from indexc.vocab import vocabulary_from_tokens


@settings(max_examples=60, deadline=None)
@given(tokens=st.lists(st.binary(min_size=1, max_size=6), min_size=1, max_size=40, unique=True),
       classes=st.lists(st.integers(0, 3), min_size=256, max_size=256))
def test_equal_numbers_iff_equal_class_sequences(tokens, classes):
    vocab = vocabulary_from_tokens(tokens + [tokens[0]])  # a duplicate token: same bytes, another id
    class_of_byte = np.array(classes, dtype=np.uint8)
    ids = np.arange(vocab.size, dtype=np.int64)
    groups = class_sequence_groups(build_trie(vocab), class_of_byte, ids)
    offsets, data = class_sequences(vocab, ids, class_of_byte)
    sequences = [data[offsets[i]:offsets[i + 1]].tobytes() for i in range(ids.size)]
    for i in range(ids.size):
        for j in range(ids.size):
            assert (groups[i] == groups[j]) == (sequences[i] == sequences[j]), (tokens[i % len(tokens)], i, j)


BYTE_CLASSES = st.lists(st.integers(0, 5), min_size=256, max_size=256)  # a class per byte value


def _tokens(min_bytes: int, min_count: int):
    return st.lists(st.binary(min_size=min_bytes, max_size=6), min_size=min_count, max_size=60, unique=True)


@settings(max_examples=60, deadline=None)
@given(tokens=_tokens(1, 1), classes=BYTE_CLASSES, data=st.data())
def test_class_sequences_of_any_ids(tokens, classes, data):
    """Every id set (many ascending ids, few, out of order) gives each token's bytes' classes, in the ids' order."""
    vocab = vocabulary_from_tokens(tokens)
    class_of_byte = np.array(classes, dtype=np.uint8)
    ids = np.array(data.draw(st.lists(st.integers(0, vocab.size - 1), unique=True)), dtype=np.int64)
    if data.draw(st.booleans()):
        ids.sort()
    offsets, rows = class_sequences(vocab, ids, class_of_byte)
    assert offsets.dtype == np.int64 and rows.dtype == np.uint8 and offsets.size == ids.size + 1
    for k, token_id in enumerate(ids.tolist()):
        expected = class_of_byte[np.frombuffer(vocab.token_bytes[token_id], dtype=np.uint8)]
        assert np.array_equal(rows[offsets[k]:offsets[k + 1]], expected)


@settings(max_examples=60, deadline=None)
@given(tokens=_tokens(0, 8), classes=BYTE_CLASSES, data=st.data())
def test_class_sequences_of_most_ids(tokens, classes, data):
    """Most ids, ascending (a JSON Schema's live tokens): the few left out (empty ones too) take no bytes."""
    vocab = vocabulary_from_tokens(tokens)
    class_of_byte = np.array(classes, dtype=np.uint8)
    left_out = data.draw(st.sets(st.integers(0, vocab.size - 1), max_size=vocab.size // 5))
    ids = np.array([i for i in range(vocab.size) if i not in left_out], dtype=np.int64)
    offsets, rows = class_sequences(vocab, ids, class_of_byte)
    expected = [class_of_byte[np.frombuffer(vocab.token_bytes[i], dtype=np.uint8)] for i in ids.tolist()]
    assert np.array_equal(rows, np.concatenate(expected) if expected else np.zeros(0, np.uint8))
    assert np.array_equal(np.diff(offsets), [e.size for e in expected])

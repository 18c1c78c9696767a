"""Lexicographic order and neighbour common prefixes against Python's own bytes ordering."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from indexc.trie.byte_order import lexicographic_order


def order_and_lcp(strings: list[bytes]) -> tuple[list[int], list[int]]:
    lengths = np.array([len(s) for s in strings], dtype=np.int64)
    buf = np.frombuffer(b"".join(strings), dtype=np.uint8)
    order, lcp = lexicographic_order(buf, np.cumsum(lengths) - lengths, lengths)
    return order.tolist(), lcp.tolist()


def common_prefix(a: bytes, b: bytes) -> int:
    k = 0
    while k < min(len(a), len(b)) and a[k] == b[k]:
        k += 1
    return k


def expected(strings: list[bytes]) -> tuple[list[int], list[int]]:
    order = sorted(range(len(strings)), key=lambda i: (strings[i], i))
    lcp = [common_prefix(strings[a], strings[b]) for a, b in zip(order, order[1:])]
    return order, [0] * bool(order) + lcp


def test_zero_bytes_sort_after_the_end_of_a_string():
    strings = [b"a\x00", b"a", b"", b"a\x00\x00\x00\x00\x00\x00\x00", b"a\x00\x00\x00\x00\x00\x00", b"\x00"]
    assert order_and_lcp(strings) == expected(strings)


def test_equal_strings_keep_index_order():
    strings = [b"same-long-token", b"b", b"same-long-token", b"a", b"same-long-token"] * 5
    order, lcp = order_and_lcp(strings)
    assert (order, lcp) == expected(strings)


def test_empty_input():
    assert order_and_lcp([]) == ([], [])


# Few distinct bytes and lengths past several 7-byte chunks: long ties, all chunk boundaries.
tie_prone = st.lists(st.sampled_from([0x00, 0x01, 0x7F, 0x80, 0xFF]), max_size=30).map(bytes)


@settings(max_examples=120, deadline=None)
@given(st.lists(st.one_of(tie_prone, st.binary(max_size=20)), max_size=60))
def test_matches_python_sort(strings):
    assert order_and_lcp(strings) == expected(strings)

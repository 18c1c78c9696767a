"""The product of two byte DFAs: the texts both accept, checked against both DFAs."""

from __future__ import annotations

import itertools

import numpy as np

from indexc.automaton import compile_regex
from indexc.automaton.liveness import trim
from indexc.automaton.product import product, reachable_pairs


def _accepts(transitions: np.ndarray, accepting: np.ndarray, text: bytes) -> bool:
    state = 0
    for byte in text:
        state = int(transitions[state, byte])
        if state < 0:
            return False
    return bool(accepting[state])


def test_product_accepts_exactly_what_both_accept():
    a, b = compile_regex("[ab]*a"), compile_regex("(ab|a)+")
    transitions, accepting = product(a.transitions, a.accepting.astype(bool), b.transitions,
                                     b.accepting.astype(bool), max_pairs=1000)
    for n in range(6):
        for letters in itertools.product(b"abc", repeat=n):
            text = bytes(letters)
            both = all(d.run(text, 0) >= 0 and d.accepting[d.run(text, 0)] for d in (a, b))
            assert _accepts(transitions, accepting, text) == both, text
    assert trim(transitions, accepting) is not None


def test_reachable_pairs_stop_at_the_limit_and_start_at_code_zero():
    a, b = compile_regex("[0-9]{0,30}"), compile_regex("[0-9]{0,40}")
    assert reachable_pairs(a.transitions, b.transitions, max_pairs=5) is None
    codes = reachable_pairs(a.transitions, b.transitions, max_pairs=1000)
    assert codes[0] == 0 and np.all(np.diff(codes) > 0)


def _pairs_by_python(a: np.ndarray, b: np.ndarray) -> list[int]:
    """The reachable pair codes by a plain breadth-first search over bytes (the reference)."""
    width = b.shape[0]
    seen, queue = {0}, [0]
    for code in queue:
        s, t = divmod(code, width)
        for byte in range(256):
            s2, t2 = int(a[s, byte]), int(b[t, byte])
            if s2 >= 0 and t2 >= 0 and s2 * width + t2 not in seen:
                seen.add(s2 * width + t2)
                queue.append(s2 * width + t2)
    return sorted(seen)


def test_a_deep_product_reaches_the_same_pairs_as_a_plain_search():
    """Thousands of levels of a few pairs each: the shape that made the search quadratic."""
    a, b = compile_regex("[0-9x]{0,1500}"), compile_regex("(x[0-9]|[0-9]x){0,700}")
    codes = reachable_pairs(a.transitions, b.transitions, max_pairs=100_000)
    assert codes.tolist() == _pairs_by_python(a.transitions, b.transitions)
    assert len(codes) > 1500

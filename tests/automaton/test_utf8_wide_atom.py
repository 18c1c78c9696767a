"""The UTF-8 expansion's shortcut for a partition where one atom holds every non-ASCII scalar
(``utf8_expansion._wide_atom``): the same minimal byte DFA as the block tree's relabelling,
exactly UTF-8's sequences, and the same state limit."""

from __future__ import annotations

import numpy as np
import pytest

from indexc.automaton import compile_regex
from indexc.automaton import utf8_expansion
from indexc.automaton.compile import compile_atom_dfa
from indexc.automaton.limits import AutomatonLimits
from indexc.automaton.liveness import trim
from indexc.errors import LimitError

WIDE = [r'"(?:[^"\\]|\\.)*"', r"a[^x]b|c.", r"[^a-z]{2,5}", r"(?:x|[^\u0000-\u001f\"]y)*z", r"(?s:.)+",
        r"[\u0080-\U0010ffff]x"]
NOT_WIDE = [r"[^é]", r"[a-zé]+", r"[\u0100-\uffff]", r"\w+", r"[^x]|[\u0100-\u0101]y"]


def _expansions(pattern: str, monkeypatch, limits: AutomatonLimits = AutomatonLimits()):
    atom_dfa, partition = compile_atom_dfa(pattern, limits=limits)
    fast = utf8_expansion.expand_utf8(atom_dfa, partition, limits)
    with monkeypatch.context() as patched:
        patched.setattr(utf8_expansion, "_wide_atom", lambda partition: None)
        tree = utf8_expansion.expand_utf8(atom_dfa, partition, limits)
    return partition, fast, tree


@pytest.mark.parametrize("pattern", WIDE)
def test_the_shortcut_gives_the_block_trees_dfa(pattern, monkeypatch):
    partition, fast, tree = _expansions(pattern, monkeypatch)
    assert utf8_expansion._wide_atom(partition) is not None
    assert fast.n_states == tree.n_states  # both minimal
    (a, a_accepting), (b, b_accepting) = trim(fast.transitions, fast.accepting), trim(tree.transitions, tree.accepting)
    assert np.array_equal(a, b) and np.array_equal(a_accepting, b_accepting)


@pytest.mark.parametrize("pattern", NOT_WIDE)
def test_a_split_non_ascii_range_takes_the_block_tree(pattern):
    _, partition = compile_atom_dfa(pattern, limits=AutomatonLimits())
    assert utf8_expansion._wide_atom(partition) is None


def _accepts(dfa, data: bytes) -> bool:
    state = 0
    for byte in data:
        state = int(dfa.transitions[state, byte])
        if state < 0:
            return False
    return bool(dfa.accepting[state])


def test_exactly_the_utf8_of_every_scalar():
    dfa = compile_regex(r"[^x]")  # takes the shortcut: one atom holds all of non-ASCII
    for code_point in (0x80, 0x7FF, 0x800, 0xFFF, 0x1000, 0xD7FF, 0xE000, 0xFFFF, 0x10000, 0x3FFFF, 0x40000,
                       0xFFFFF, 0x100000, 0x10FFFF):
        assert _accepts(dfa, chr(code_point).encode("utf-8")), hex(code_point)
    for invalid in (b"\xc0\x80", b"\xc1\xbf", b"\xe0\x80\x80", b"\xe0\x9f\xbf", b"\xed\xa0\x80", b"\xed\xbf\xbf",
                    b"\xf0\x80\x80\x80", b"\xf0\x8f\xbf\xbf", b"\xf4\x90\x80\x80", b"\xf5\x80\x80\x80", b"\x80", b"x"):
        assert not _accepts(dfa, invalid), invalid


def test_the_state_limit_holds_on_the_shortcut(monkeypatch):
    limits = AutomatonLimits.for_max_states(8)
    atom_dfa, partition = compile_atom_dfa(r"[^x]", limits=limits)  # 2 character states, 1 target: 9 byte states
    with pytest.raises(LimitError, match="needs more than 8 states"):
        utf8_expansion.expand_utf8(atom_dfa, partition, limits)
    monkeypatch.setattr(utf8_expansion, "_wide_atom", lambda partition: None)
    with pytest.raises(LimitError, match="needs more than 8 states"):
        utf8_expansion.expand_utf8(atom_dfa, partition, limits)

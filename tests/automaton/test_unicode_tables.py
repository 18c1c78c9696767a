"""The Unicode tables against the ``re`` module of the same interpreter, on every code point."""

from __future__ import annotations

import re
from functools import cache

import numpy as np
import pytest

from indexc.automaton import compile_regex
from indexc.automaton.case_folding import _case_keys, case_key, fold_case
from indexc.automaton.code_point_sets import CodePointSet
from indexc.automaton.unicode_classes import class_escape_set
from tests.automaton.helpers import all_scalars, run_many, utf8_matrix

SCALARS = all_scalars()


@cache
def scalars_text() -> str:
    return "".join(map(chr, SCALARS.tolist()))


def re_members(pattern: str) -> np.ndarray:
    """Boolean per scalar: does ``re`` match it with ``pattern`` (one C-speed scan)."""
    text = scalars_text()
    found = np.zeros(len(SCALARS), dtype=bool)
    for m in re.finditer(pattern, text):
        found[m.start():m.end()] = True
    return found


@pytest.mark.parametrize("letter", "dwsDWS")
def test_class_escapes_equal_re_on_every_scalar(letter):
    expected = re_members(rf"\{letter}+")
    assert np.array_equal(class_escape_set(letter).contains_all(SCALARS), expected)


@pytest.mark.parametrize("pattern", [r"\w", r"\d", r"\s", r"[^\W\d_]", r".", r"(?s).", r"[^a-zA-Z0-9]"])
def test_byte_dfa_of_a_class_accepts_exactly_the_utf8_of_its_members(pattern):
    """Every scalar's UTF-8 encoding through the byte DFA, against ``re``."""
    dfa = compile_regex(pattern)
    sequences, lengths = utf8_matrix(SCALARS)
    assert np.array_equal(run_many(dfa, sequences, lengths), re_members(pattern))


def test_byte_dfa_rejects_invalid_utf8():
    """``(?s).`` accepts exactly the UTF-8 encodings of scalars: checked on every 1-, 2- and
    3-byte sequence, and on every (lead, second byte) of 4-byte sequences with boundary
    values for the last two bytes."""
    dfa = compile_regex(r"(?s).")
    byte = np.arange(256, dtype=np.uint8)
    for length in (1, 2, 3):
        grid = np.stack(np.meshgrid(*[byte] * length, indexing="ij"), axis=-1).reshape(-1, length)
        accepted = run_many(dfa, grid, np.full(len(grid), length))
        assert all(_is_one_scalar(bytes(row.tolist())) for row in grid[accepted])
        assert accepted.sum() == {1: 0x80, 2: 0x800 - 0x80, 3: 0x10000 - 0x800 - 0x800}[length]
    edge = np.array([0x00, 0x7F, 0x80, 0x9F, 0xA0, 0xBF, 0xC0, 0xFF], dtype=np.uint8)
    grid = np.stack(np.meshgrid(byte[0xF0:], byte, edge, edge, indexing="ij"), axis=-1).reshape(-1, 4)
    accepted = run_many(dfa, grid, np.full(len(grid), 4))
    expected = np.array([_is_one_scalar(bytes(row.tolist())) for row in grid])
    assert np.array_equal(accepted, expected)


def _is_one_scalar(data: bytes) -> bool:
    try:
        return len(data.decode("utf-8")) == 1
    except UnicodeDecodeError:
        return False


def test_case_keys_equal_re_ignorecase_for_every_cased_character():
    related, keys = _case_keys()
    text = "".join(map(chr, related.tolist()))
    same_key: dict[int, set[int]] = {}
    for c, k in zip(related.tolist(), keys.tolist()):
        same_key.setdefault(k, set()).add(c)
    for c in related.tolist():
        matched = {ord(m) for m in re.findall("(?i)" + re.escape(chr(c)), text)}
        assert matched == same_key[case_key(c)], hex(c)


def test_fold_case_of_a_range():
    folded = fold_case(CodePointSet.from_pairs([(ord("a"), ord("z"))]))
    expected = {c for c in range(0x10000) if re.fullmatch("(?i)[a-z]", chr(c))}
    assert set(folded.code_points().tolist()) == expected

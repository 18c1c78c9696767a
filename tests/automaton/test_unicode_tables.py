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
from tests.automaton.helpers import all_scalars, run_many, utf8_matrix, well_formed_utf8_char

SCALARS = all_scalars()


@cache
def scalars_text() -> str:
    return "".join(map(chr, SCALARS.tolist()))


@cache
def scalars_utf8() -> tuple[np.ndarray, np.ndarray]:
    return utf8_matrix(SCALARS)


def re_members(char_class: str) -> np.ndarray:
    """Boolean per scalar: does ``re`` match it with the one-character ``char_class`` (one
    C-speed scan for runs of members)."""
    found = np.zeros(len(SCALARS), dtype=bool)
    for m in re.finditer(f"(?:{char_class})+", scalars_text()):
        found[m.start():m.end()] = True
    return found


@pytest.mark.parametrize("letter", "dwsDWS")
def test_class_escapes_equal_re_on_every_scalar(letter):
    expected = re_members(rf"\{letter}")
    assert np.array_equal(class_escape_set(letter).contains_all(SCALARS), expected)


@pytest.mark.parametrize("pattern", [r"\w", r"\d", r"\s", r"[^\W\d_]", r".", r"[^a-zA-Z0-9]"])
def test_byte_dfa_of_a_class_accepts_exactly_the_utf8_of_its_members(pattern):
    """Every scalar's UTF-8 encoding through the byte DFA, against ``re``."""
    dfa = compile_regex(pattern)
    assert np.array_equal(run_many(dfa, *scalars_utf8()), re_members(pattern))


def test_byte_dfa_rejects_invalid_utf8():
    """``(?s).`` accepts exactly the well-formed one-character sequences (RFC 3629): every
    1- and 2-byte sequence, every 3-byte sequence with a non-ASCII lead, and every 4-byte
    sequence with a lead >= F0 and boundary values in the last two bytes."""
    dfa = compile_regex(r"(?s).")
    byte = np.arange(256, dtype=np.uint8)
    edge = np.array([0x00, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xFF], dtype=np.uint8)
    grids = [
        byte[:, None],
        _product(byte, byte),
        _product(byte[0x80:], byte, byte),
        _product(byte[0xF0:], byte, edge, edge),
    ]
    for grid in grids:
        accepted = run_many(dfa, grid, np.full(len(grid), grid.shape[1]))
        assert np.array_equal(accepted, well_formed_utf8_char(grid)), grid.shape


def test_the_rfc3629_oracle_agrees_with_pythons_decoder():
    byte = np.arange(256, dtype=np.uint8)
    rng = np.random.default_rng(7)
    for grid in (_product(byte, byte), rng.integers(0xE0, 256, size=(50_000, 3)), rng.integers(0xF0, 256, size=(50_000, 4))):
        decoded = [_decodes_to_one_char(bytes(row.tolist())) for row in grid]
        assert np.array_equal(well_formed_utf8_char(grid), np.array(decoded)), grid.shape


def _decodes_to_one_char(data: bytes) -> bool:
    try:
        return len(data.decode("utf-8")) == 1
    except UnicodeDecodeError:
        return False


def _product(*columns: np.ndarray) -> np.ndarray:
    return np.stack(np.meshgrid(*columns, indexing="ij"), axis=-1).reshape(-1, len(columns))


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

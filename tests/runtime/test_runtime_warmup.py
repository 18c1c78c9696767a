"""The first load of a process runs the hot paths on a scratch matcher: no state leaks, bad walks surface."""

from __future__ import annotations

import numpy as np
import pytest

import indexc_runtime
import surgery
from indexc_runtime import ArtifactError, warmup


@pytest.fixture
def first_load_of_a_process(monkeypatch):
    monkeypatch.setattr(warmup, "_done", False)


def test_the_warm_up_leaves_nothing_behind(first_load_of_a_process, number_artifact):
    index = indexc_runtime.load(number_artifact)
    assert warmup._done
    matcher = index.matcher()
    assert matcher.state == 0 and not matcher.is_finished()
    with pytest.raises(ValueError, match="cannot roll back 1 tokens"):
        matcher.rollback(1)


def test_only_the_first_load_of_a_process_warms_up(first_load_of_a_process, number_artifact, monkeypatch):
    indexc_runtime.load(number_artifact)
    monkeypatch.setattr(warmup, "_text_token", lambda row, eos: pytest.fail("warmed up twice"))
    indexc_runtime.load(number_artifact)


def test_a_text_token_is_picked_from_the_row_never_an_eos():
    row = np.zeros(3, dtype=np.int32)
    assert warmup._text_token(row, frozenset()) is None
    row[1] = (1 << 1) | (1 << 4)  # ids 33 and 36
    assert warmup._text_token(row, frozenset({33})) == 36
    assert warmup._text_token(row, frozenset({33, 36})) is None
    row[2] = np.uint32(1 << 31).view(np.int32)  # id 95, a negative int32 word
    assert warmup._text_token(row, frozenset({33, 36})) == 95


def test_a_start_state_walk_that_leaves_the_table_fails_the_first_load(first_load_of_a_process, number_artifact):
    raw = number_artifact.read_bytes()
    minus = int(indexc_runtime.load(raw)._automaton.byte_classes[ord("-")])
    digit = int(indexc_runtime.load(raw)._automaton.byte_classes[ord("0")])
    warmup._done = False

    def break_state_0(table):
        table[0, minus] = 6  # past the last state (5 states: stored values are at most 5)
        table[0, digit] = 6

    patched = surgery.rewrite_section(raw, "class_transitions", break_state_0)
    with pytest.raises(ArtifactError, match="section 'class_transitions'"):
        indexc_runtime.load(patched)

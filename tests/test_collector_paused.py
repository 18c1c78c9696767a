"""The cyclic collector is off during a compile and back on after it, errors included."""

from __future__ import annotations

import gc
import types

import pytest

from indexc.errors import RegexError
from indexc.pipeline.collector import collector_paused


def test_paused_inside_and_resumed_after_even_on_error():
    assert gc.isenabled()
    with pytest.raises(ValueError):
        with collector_paused():
            assert not gc.isenabled()
            with collector_paused():  # nested: the inner block must not turn it back on
                assert not gc.isenabled()
            assert not gc.isenabled()
            raise ValueError
    assert gc.isenabled()


def test_a_caller_that_disabled_the_collector_keeps_it_disabled():
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_compiles_leave_the_collector_on():
    from indexc.pipeline.regex import compile_regex

    seen = []

    @collector_paused()
    def probe():
        seen.append(gc.isenabled())

    probe()
    assert seen == [False] and gc.isenabled()
    with pytest.raises(RegexError):
        compile_regex("(", None, None)  # fails in the front end, before the vocabulary is read
    assert gc.isenabled()


def test_the_artifact_write_runs_with_the_collector_paused(monkeypatch):
    """The write is a compile's last stage: a full collection landing in it cost a small regex 4 ms."""
    import indexc.pipeline.result as result

    seen = []
    monkeypatch.setattr(result, "write_artifact",
                        lambda *args, **kwargs: seen.append(gc.isenabled()) or types.SimpleNamespace(stage_ms={}))
    table = types.SimpleNamespace(stats={})
    result.write(result.CompileResult(table, {}, result.CompileOptions()), None, "unused.idx")
    assert seen == [False] and gc.isenabled()


def test_freeze_survivors_moves_what_is_alive_out_of_the_collectors_reach():
    """What ``freeze_survivors`` froze is in no generation (``gc.get_objects`` no longer lists
    it), so a full collection after it walks only newer objects; the test unfreezes after."""
    from indexc.pipeline.collector import freeze_survivors

    survivor = [[] for _ in range(10)]
    assert any(item is survivor for item in gc.get_objects())
    before = gc.get_freeze_count()
    try:
        freeze_survivors()
        assert gc.get_freeze_count() > before
        assert not any(item is survivor for item in gc.get_objects())
    finally:
        gc.unfreeze()


def test_the_command_line_freezes_after_its_tokenizer_load(monkeypatch):
    import argparse
    from pathlib import Path

    from indexc.cli import common
    from indexc.pipeline import collector

    frozen = []
    monkeypatch.setattr(collector, "freeze_survivors", lambda: frozen.append(1))
    tokenizer = Path(__file__).resolve().parent / "data" / "tokenizers" / "gpt2.json.zst"
    args = argparse.Namespace(tokenizer=str(tokenizer), tokenizer_config=None, eos=None, vocab_size=None,
                              no_cache=True)
    vocab, trie, _, _ = common.load_tokenizer_and_trie(args)
    assert vocab.size > 50_000 and frozen == [1]

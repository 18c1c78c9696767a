"""``indexc.limits``: one config object, a deadline and a memory cap that the stages consult."""

from __future__ import annotations

import pytest

from indexc import limits
from indexc.automaton import compile_regex
from indexc.errors import LimitError
from indexc.limits import CompileLimits, enforced, parse_size


def test_defaults_and_description():
    default = CompileLimits()
    assert default.max_states == 100_000 and default.time_limit is None
    assert default.describe() == "max states 100,000; max memory 4.0 GiB; no time limit"
    assert CompileLimits(5, 512 << 20, 2.5).describe() == "max states 5; max memory 512.0 MiB; time limit 2.5 s"
    assert default.automaton().max_states == 100_000


@pytest.mark.parametrize("bad", [dict(max_states=0), dict(max_memory=0), dict(time_limit=0), dict(time_limit=-1.0)])
def test_limits_must_be_positive(bad):
    with pytest.raises(ValueError):
        CompileLimits(**bad)


@pytest.mark.parametrize("text, size", [("1000", 1000), ("64k", 64 << 10), ("512M", 512 << 20), ("4G", 4 << 30),
                                        ("1.5g", 3 << 29), ("2GiB", 2 << 30), ("10MB", 10 << 20)])
def test_sizes_parse_in_binary_units(text, size):
    assert parse_size(text) == size


@pytest.mark.parametrize("text", ["", "G", "-1M", "0", "lots"])
def test_bad_sizes_are_refused(text):
    with pytest.raises(ValueError):
        parse_size(text)


def test_limits_apply_inside_the_block_only():
    outside = limits.current()
    with enforced(CompileLimits(max_memory=1000, time_limit=60)) as guard:
        assert limits.current() is guard
        limits.check_memory(1000, "exactly the limit")
        with pytest.raises(LimitError, match=r"the thing: an estimated 1001 B needed, .* limit of 1000 B; raise it with --max-memory"):
            limits.check_memory(1001, "the thing")
        limits.check_time("a stage")  # 60 s have not passed
    assert limits.current() is outside
    limits.check_memory(1 << 30, "a gigabyte is within the default")


def test_a_passed_deadline_stops_the_subset_construction():
    with enforced(CompileLimits(time_limit=1e-9)):
        with pytest.raises(LimitError, match="time limit of 1e-09 s reached during .*raise it with --time-limit"):
            compile_regex("(a|b)*a(a|b){12}")
    assert compile_regex("(a|b)*a(a|b){12}").n_states > 4000  # the same regex compiles without the limit


def test_the_subset_construction_checks_its_memory():
    with enforced(CompileLimits(max_memory=4 << 20)):
        with pytest.raises(LimitError, match="the subset construction: an estimated"):
            compile_regex("(a|b)*a(a|b){14}")


def test_a_time_limit_stops_the_walk_in_worker_processes_without_noise():
    """Chunks of 16 states in two joblib workers: the limit is a LimitError (not joblib's
    TimeoutError), and the tasks joblib cancels are not reported as warnings."""
    import warnings

    from indexc.masks import MaskOptions
    from indexc.pipeline import CompileOptions
    from indexc.pipeline import compile_regex as compile_constraint
    from indexc.trie.cache import load_vocabulary_and_trie
    from tests_paths import TOKENIZERS

    vocab, trie, _ = load_vocabulary_and_trie(TOKENIZERS / "gpt2.json.zst")
    # equivalent starts off: they merge this counter's starts, and the walk then ends in ~0.1 s,
    # sometimes before the limit (the test is about the limit inside worker processes)
    options = CompileOptions(MaskOptions(jobs=2, parallel_min_seconds=0.0, states_per_chunk=16,
                                         equivalent_starts=False))
    with warnings.catch_warnings(record=True) as caught, enforced(CompileLimits(time_limit=1.0)):
        warnings.simplefilter("always")
        with pytest.raises(LimitError, match="time limit of 1 s reached during"):
            compile_constraint('"([^"\\\\]|\\\\.){0,1024}"', vocab, trie, options)
    assert not [w for w in caught if "joblib" in w.filename], [str(w.message) for w in caught]

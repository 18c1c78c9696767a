"""Hostile regexes: each is refused with a typed error, or compiles, within explicit limits.

Every input runs under ``CompileLimits(time_limit=120, max_memory=1 GiB)``: a regression into
a hang or a blow-up becomes a ``LimitError`` (and a failed expectation), not a stuck CI.  The
expected outcome of each input is exact: which error, or how many states.  The figures (time,
peak memory) for the report come from ``bench``-style runs, not from here.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from indexc.errors import LimitError, RegexError
from indexc.limits import CompileLimits, enforced
from indexc.masks import MaskOptions
from indexc.pipeline import CompileOptions, compile_regex
from indexc.trie.cache import load_vocabulary_and_trie
from tests_paths import TOKENIZERS

GUARD = CompileLimits(time_limit=120, max_memory=1 << 30)


def random_words(count: int, seed: int = 1) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(4, 12))) for _ in range(count)]


REFUSED = {
    "nested bounded repeats": ("(a{1,1000}){1,1000}", LimitError, "2,002,002 NFA states"),
    "deep nesting x 10k": ("(" * 10_000 + "a" + ")" * 10_000, RegexError, "nests too deeply"),
    "100 kB literal": ("ab" * 50_000, LimitError, "minimal DFA needs at least 100,001 states"),
    ".{100000}": (".{100000}", LimitError, "minimal DFA needs at least 100,001 states"),
    "[\\w ]{1,2000}": ("[\\w ]{1,2000}", LimitError, "byte-level DFA needs"),
}


@pytest.fixture(scope="module")
def gpt2():
    vocab, trie, _ = load_vocabulary_and_trie(TOKENIZERS / "gpt2.json.zst")
    return vocab, trie


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_hostile_regexes_are_refused_with_a_typed_error(gpt2, name):
    pattern, error, message = REFUSED[name]
    with enforced(GUARD), pytest.raises(error, match=message):
        compile_regex(pattern, *gpt2, CompileOptions(MaskOptions(jobs=1)))


def test_an_alternation_of_10k_literals_compiles(gpt2):
    words = random_words(10_000)
    with enforced(GUARD):
        result = compile_regex("|".join(words), *gpt2, CompileOptions(MaskOptions(jobs=1)))
    assert result.table.n_states > 20_000
    vocab = gpt2[0]
    start = result.table.masks[result.table.state_mask[0]]
    first_letters = {word[0].encode() for word in words}
    assert set(np.flatnonzero([vocab.token_bytes[t][:1] in first_letters for t in start])) == set(range(start.size))


def test_a_20_kB_literal_compiles_to_one_state_per_byte(gpt2):
    with enforced(GUARD):
        result = compile_regex("ab" * 10_000, *gpt2, CompileOptions(MaskOptions(jobs=1)))
    assert result.table.n_states == 20_001 and len(result.table.masks) <= 8


def test_wide_masks_hit_a_small_memory_limit_before_they_are_expanded(gpt2):
    """101 states, 32 masks over GPT-2, 1.26 M token ids in all: 5.4 MiB estimated, over a 4 MiB limit."""
    with enforced(CompileLimits(max_memory=4 << 20)), pytest.raises(LimitError, match="32 masks: an estimated .*--max-memory"):
        compile_regex("[ -~]{0,100}", *gpt2, CompileOptions(MaskOptions(jobs=1)))


def test_big_state_tables_hit_the_memory_limit_before_the_walk(gpt2):
    with enforced(CompileLimits(max_memory=4 << 20)), pytest.raises(LimitError, match="tables of 3,201 states"):
        compile_regex("[^\"]{0,400}", *gpt2, CompileOptions(MaskOptions(jobs=1)))

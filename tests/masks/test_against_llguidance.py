"""Exact masks, token for token, against llguidance with forcing turned off.

For each regex and vocabulary: compile with indexc, load the artifact with the runtime, and
walk random valid token sequences through both engines, comparing the whole allowed set at
every step (special tokens aside: both give the eos ids exactly in accepting states).

Known, documented dialect differences are kept out of the comparison instead of weakening
it: Python's ``\\w \\s`` (our semantics, as DESIGN.md says) and Rust's differ on a few
characters (combining marks, U+001C-U+001F, ...; see tests/reference/llguidance_oracle.py).
For a pattern using such a class, the tokens holding one of those characters are ignored.
"""

from __future__ import annotations

import json
import random
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest

import indexc_runtime
from indexc.pipeline import compile_regex, write
from indexc.trie import build_trie
from indexc.vocab import load_vocabulary
from tests.reference.llguidance_oracle import LlgOracle, class_differences

DATA = Path(__file__).resolve().parents[1] / "data"

OWN_REGEXES = [
    r"a|ab",
    r"1(\.2)?",
    r"(foo|foobar|fo)+",
    r"(January|February|March|April|May|June|July|August|September|October|November|December) \d{1,2}",
    r"[a-z]{3,8}",
    r"x{2,4}y{0,3}",
    r"\(\)\[\]\{\}\.\*\+\?\\\|\^\$",
    r"The quick brown fox jumps over the lazy dog\.",
    r"\w+( \w+)*",
    r"\d{2,}",
    r"[\u4e00-\u9fff]{1,5}",
    r"[😀-🙏]+",
    r".{0,5}",
    r'"([^"\\\x00-\x1f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*"',
    r"-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?",
    r"(true|false|null)",
    r"(https?:\/\/)?([\da-z\.-]+)\.([a-z\.]{2,6})([\/\w \.-]*)*\/?",
    r"\s*\{\s*\}\s*",
]


def bench_regexes() -> list[str]:
    named = json.loads((DATA / "regex" / "outlines_core_bench_regexes.json").read_text())["patterns"]
    return list(named.values())


ALL_REGEXES = bench_regexes() + OWN_REGEXES
CLASS_ESCAPES = (r"\w", r"\s", r"\d", r"\W", r"\S", r"\D")


@lru_cache(maxsize=None)
def engines(name: str):
    vocab = load_vocabulary(DATA / "tokenizers" / f"{name}.json.zst")
    oracle = LlgOracle(DATA / "tokenizers" / f"{name}.json.zst", eos_ids=sorted(vocab.eos_ids))
    return vocab, build_trie(vocab), oracle


@lru_cache(maxsize=None)
def ignored_tokens(name: str) -> np.ndarray:
    """Ids of tokens holding a character on which Python's and Rust's class escapes differ."""
    vocab, _, oracle = engines(name)
    differing = set()
    for escape in (r"\w", r"\s", r"\d"):
        diff = class_differences(oracle, escape)
        differing |= set(diff.only_llguidance) | set(diff.only_python)
    ids = [i for i, raw in enumerate(vocab.token_bytes)
           if raw and differing & set(raw.decode("utf-8", "ignore"))]
    # partial UTF-8 tokens may complete to such a character: ignore every non-ASCII token's
    # continuation risk only for the lead bytes of differing characters
    leads = {ch.encode("utf-8")[0] for ch in differing if ord(ch) > 0x7F}
    ids += [i for i, raw in enumerate(vocab.token_bytes)
            if raw and raw.decode("utf-8", "ignore") != raw.decode("utf-8", "replace") and (set(raw) & leads)]
    ids += [i for i, raw in enumerate(vocab.token_bytes) if raw and set(raw) & {0x1C, 0x1D, 0x1E, 0x1F}]
    return np.unique(np.array(ids, dtype=np.int64))


def compare_walks(name: str, pattern: str, tmp_path: Path, walks: int, steps: int, seed: int) -> int:
    vocab, trie, oracle = engines(name)
    artifact = tmp_path / "r.idx"
    write(compile_regex(pattern, vocab, trie), vocab, str(artifact))
    index = indexc_runtime.load(artifact, expected_fingerprint=vocab.fingerprint)
    ignore = ignored_tokens(name) if any(e in pattern for e in CLASS_ESCAPES) else np.zeros(0, np.int64)
    eos = set(vocab.eos_ids)
    rng = random.Random(seed)
    compared = 0
    for _ in range(walks):
        ours, theirs = index.matcher(), oracle.matcher(pattern)
        for _ in range(steps):
            got = np.setdiff1d(ours.allowed_token_ids(), ignore)
            want = np.setdiff1d(theirs.exact_allowed_ids(), ignore)
            if not np.array_equal(got, want):
                extra = np.setdiff1d(got, want)[:10].tolist()
                missing = np.setdiff1d(want, got)[:10].tolist()
                pytest.fail(f"{pattern!r} ({name}) after {compared} steps: ours also allows "
                            f"{[vocab.token_bytes[t] for t in extra]}, misses {[vocab.token_bytes[t] for t in missing]}")
            compared += 1
            choices = [t for t in got.tolist() if t not in eos]
            if not choices or (ours.is_accepting() and rng.random() < 0.15):
                break
            token = rng.choice(choices)
            ours.advance(token)
            theirs.advance(token)
    return compared


@pytest.mark.parametrize("pattern", ALL_REGEXES)
def test_gpt2_agrees_with_llguidance(pattern, tmp_path):
    assert compare_walks("gpt2", pattern, tmp_path, walks=3, steps=25, seed=1) > 0


@pytest.mark.parametrize("pattern", ALL_REGEXES[::2])
def test_mistral_agrees_with_llguidance(pattern, tmp_path):
    assert compare_walks("mistral", pattern, tmp_path, walks=2, steps=20, seed=2) > 0


@pytest.mark.parametrize("pattern", ALL_REGEXES[1::3])
def test_llama3_agrees_with_llguidance(pattern, tmp_path):
    assert compare_walks("llama3", pattern, tmp_path, walks=2, steps=20, seed=3) > 0

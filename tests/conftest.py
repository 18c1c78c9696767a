"""Fixtures shared by every test folder: the bundled tokenizers under ``tests/data/``.

Tests never read ``../shared``: a fresh clone has only ``tests/data``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from pathlib import Path

import pytest

from indexc.vocab import Vocabulary, load_vocabulary

DATA_DIR = Path(__file__).resolve().parent / "data"
TOKENIZER_DIR = DATA_DIR / "tokenizers"
BUNDLED_TOKENIZERS = ("gpt2", "llama3", "qwen2", "mistral", "t5")


def bundled_tokenizer_file(name: str) -> Path:
    """``tests/data/tokenizers/<name>.json.zst`` (its config is ``<name>.tokenizer_config.json``)."""
    path = TOKENIZER_DIR / f"{name}.json.zst"
    if not path.is_file():
        raise FileNotFoundError(f"no bundled tokenizer {name!r} (have: {', '.join(BUNDLED_TOKENIZERS)})")
    return path


def keep_coverages_wide(monkeypatch) -> None:
    """Walk every wide coverage in the trie, as the runtime does for a Llama-3-sized vocabulary,
    instead of stepping its open tokens one by one: a small vocabulary leaves so few tokens open
    that the runtime would step them all (``walker.OPEN_FROM_WIDE``), and the trie walk, its
    loop jumps and its numpy levels would go untested."""
    import indexc_runtime.grammar.walker as walker

    monkeypatch.setattr(walker, "OPEN_FROM_WIDE", -1)


@cache
def _load_bundled(name: str) -> Vocabulary:
    return load_vocabulary(bundled_tokenizer_file(name))


@pytest.fixture(scope="session")
def bundled_tokenizer() -> Callable[[str], Path]:
    """``bundled_tokenizer(name)`` -> path of a bundled tokenizer.json.zst."""
    return bundled_tokenizer_file


@pytest.fixture(scope="session")
def bundled_vocabulary() -> Callable[[str], Vocabulary]:
    """``bundled_vocabulary(name)`` -> its Vocabulary, loaded once per session."""
    return _load_bundled


@pytest.fixture(scope="session", autouse=True)
def _private_cache_dir(tmp_path_factory) -> None:
    """The vocabulary+trie cache of a test session lives in its own temporary folder."""
    import os

    os.environ["INDEXC_CACHE_DIR"] = str(tmp_path_factory.mktemp("indexc-cache"))


def _hypothesis_profiles() -> None:
    """CI runs hypothesis derandomized (same examples every run: a red CI is never luck);
    ``HYPOTHESIS_PROFILE=dev`` explores new examples locally."""
    import os

    from hypothesis import settings

    settings.register_profile("ci", derandomize=True, print_blob=True)
    settings.register_profile("dev", derandomize=False)
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


_hypothesis_profiles()

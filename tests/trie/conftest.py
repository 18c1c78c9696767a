"""Session-wide cache of the bundled tokenizers' vocabularies and tries (each is read once)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from indexc.trie import TokenTrie, build_trie
from indexc.vocab.model import Vocabulary

TOKENIZERS = Path(__file__).resolve().parents[1] / "data" / "tokenizers"
BUNDLED = ["gpt2", "llama3", "qwen2", "mistral", "t5"]


@pytest.fixture(scope="session")
def bundled() -> Callable[[str], tuple[Vocabulary, TokenTrie]]:
    """``bundled(name)`` -> (vocabulary, trie) of ``tests/data/tokenizers/<name>.json.zst``."""
    from indexc.vocab import load_vocabulary

    cache: dict[str, tuple[Vocabulary, TokenTrie]] = {}

    def get(name: str) -> tuple[Vocabulary, TokenTrie]:
        if name not in cache:
            vocab = load_vocabulary(TOKENIZERS / f"{name}.json.zst")
            cache[name] = (vocab, build_trie(vocab))
        return cache[name]

    return get

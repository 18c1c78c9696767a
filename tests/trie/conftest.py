"""Session-wide cache of the bundled tokenizers' tries (vocabularies come from tests/conftest.py)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from indexc.trie import TokenTrie, build_trie
from indexc.vocab.model import Vocabulary


@pytest.fixture(scope="session")
def bundled_trie(bundled_vocabulary) -> Callable[[str], tuple[Vocabulary, TokenTrie]]:
    """``bundled_trie(name)`` -> (vocabulary, trie) of ``tests/data/tokenizers/<name>.json.zst``."""
    cache: dict[str, tuple[Vocabulary, TokenTrie]] = {}

    def get(name: str) -> tuple[Vocabulary, TokenTrie]:
        if name not in cache:
            vocab = bundled_vocabulary(name)
            cache[name] = (vocab, build_trie(vocab))
        return cache[name]

    return get

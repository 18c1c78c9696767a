"""Checks of a seed 000 walk shared by the synthetic and the bundled-tokenizer tests."""

from __future__ import annotations

from naive_trie import node_prefixes, text_token_ids

from indexc.trie import ByteFilter, StateStack, TokenTrie, walk_nodes, walk_tokens
from indexc.vocab.model import Vocabulary


class PrefixRecorder(StateStack[bytes]):
    """States are the prefixes themselves, so every push shows which path the stack holds."""

    def __init__(self, allowed_byte=lambda b: True):
        super().__init__(lambda prefix, b: prefix + bytes((b,)) if allowed_byte(b) else None, b"")
        self.pushed: list[bytes] = []

    def try_push_byte(self, byte: int) -> bool:
        ok = super().try_push_byte(byte)
        if ok:
            self.pushed.append(self.states[-1])
        return ok


def tokens_without(vocab: Vocabulary, forbidden: set[int]) -> list[int]:
    return [i for i in text_token_ids(vocab) if not forbidden.intersection(vocab.token_bytes[i])]


def assert_walks_correctly(trie: TokenTrie, vocab: Vocabulary, forbidden: set[int]) -> None:
    """The walk reaches the right tokens, and the stack always holds the reached node's path."""
    recorder = PrefixRecorder(lambda b: b not in forbidden)
    nodes = walk_nodes(trie, recorder)
    prefixes = node_prefixes(trie)
    assert recorder.pushed == [prefixes[p] for p in nodes.tolist()]
    assert recorder.states == [b""]  # popped back to the root
    assert walk_tokens(trie, ByteFilter(lambda b: b not in forbidden)).tolist() == tokens_without(vocab, forbidden)

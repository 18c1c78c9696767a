"""Small vocabularies and a compile-to-file helper for the diff tests."""

from __future__ import annotations

from pathlib import Path

from indexc.masks import MaskOptions
from indexc.pipeline import CompileOptions, compile_regex, write
from indexc.trie.build import build_trie
from indexc.vocab import vocabulary_from_tokens
from indexc.vocab.model import Vocabulary

TOKENS = [b"a", b"b", b"ab", b"0", b"8", b"9", b"89", b"a9", b"!", b"<eos>"]
EOS = len(TOKENS) - 1


def tiny_vocabulary(tokens: list[bytes] = TOKENS) -> Vocabulary:
    return vocabulary_from_tokens(tokens, eos_ids=[tokens.index(b"<eos>")])


def compile_to(path: Path, pattern: str, vocab: Vocabulary) -> Path:
    result = compile_regex(pattern, vocab, build_trie(vocab), CompileOptions(MaskOptions(jobs=1)))
    write(result, vocab, str(path))
    return path

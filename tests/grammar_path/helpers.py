"""Shared helpers of the grammar-path tests: small vocabularies, compile + load, oracle walks.

The reference is ``tests/reference/grammar_oracle.py`` (a byte-level Earley recogniser over the
IR that shares nothing with the Earley path but ``compile_regex``): along random walks, the
runtime's allowed set must equal the oracle's at every step.
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np

import indexc_runtime
from indexc.grammar.ir import Grammar, Rule, Terminal
from indexc.pipeline import write
from indexc.pipeline.grammar import compile_grammar_ir
from indexc.trie import build_trie
from indexc.vocab.load import vocabulary_from_tokens
from tests.reference.grammar_oracle import GrammarOracle

EOS = 0


def small_vocabulary(pieces: list[bytes]):
    """Token 0 is the eos (special); then every distinct piece, in order."""
    distinct = list(dict.fromkeys(p for p in pieces if p))
    return vocabulary_from_tokens([b"<eos>", *distinct], eos_ids=[EOS])


def vocabulary_from_text(text: str, *, extra: tuple[str, ...] = (), pieces: int = 120, seed: int = 0):
    """Single bytes of ``text`` plus random substrings of it (lengths 2-6) plus ``extra``."""
    data = text.encode()
    rng = random.Random(seed)
    chunks = [bytes([b]) for b in sorted(set(data))]
    for _ in range(pieces):
        start = rng.randrange(len(data))
        chunks.append(data[start : start + rng.randint(2, 6)])
    chunks += [e.encode() for e in extra]
    return small_vocabulary(chunks)


MIN_WIDE_TOKENS = {"every": 0, "wide": 4, "none": 1 << 30, "default": None}


def compiled_index(grammar: Grammar, vocab, tmp_path: Path, name: str = "g.idx", *, boundary_masks: str = "every",
                   sampled_warm_up: int = 0, language_keys: bool = False, warm_up: str | None = None):
    """Compile and load.  ``boundary_masks``: "every" builds them for every pair of terminals
    (the compiler's default: then the undecided sets restrict the walk), "wide" only into
    lexemes that start 4 tokens or more (some pairs missing: those terminals' threads are
    walked over every token, as before format 5), "none" for no pair (the live walk alone),
    "default" as the command line does (every pair after the terminals ``undecided_terminals``
    picks, pairs into wide lexemes after the others).  ``sampled_warm_up``: tokens of sampled
    sentences walked and stored (format 7's memo; 0: none), with their language keys if
    ``language_keys`` (format 8, as ``indexc compile --grammar`` does); ``warm_up``: a given
    warm-up text (``--warm-up``: walked whole, and its item keys stored, format 11)."""
    result = compile_grammar_ir(grammar, vocab, build_trie(vocab), source=grammar.source,
                                min_wide_tokens=MIN_WIDE_TOKENS[boundary_masks], sampled_warm_up=sampled_warm_up,
                                language_keys=language_keys, warm_up=warm_up)
    path = tmp_path / name
    write(result, vocab, str(path))
    return indexc_runtime.load(path)


def grammar(start: str, rules: dict[str, list[list[str]]], terminals: dict[str, str], ignore=()) -> Grammar:
    """A hand-written IR: ``rules`` maps a nonterminal to its alternatives (lists of symbol names)."""
    return Grammar(start, tuple(Rule(lhs, tuple(rhs)) for lhs, alts in rules.items() for rhs in alts),
                   {name: Terminal(name, regex) for name, regex in terminals.items()}, tuple(ignore), "<test>")


def assert_walks_agree(index, oracle: GrammarOracle, vocab, *, walks: int, steps: int, seed: int = 0) -> int:
    """Random walks; at each step the runtime's allowed ids equal the oracle's. Returns steps checked."""
    rng = random.Random(seed)
    token_bytes = [None if i in vocab.special_ids or i in vocab.eos_ids else b for i, b in enumerate(vocab.token_bytes)]
    checked = 0
    for _ in range(walks):
        matcher = index.matcher()
        prefix = b""
        for _ in range(steps):
            expected = oracle.allowed_tokens(prefix, token_bytes, [EOS])
            got = set(matcher.allowed_token_ids().tolist())
            assert got == expected, _difference(prefix, got, expected, vocab)
            assert matcher.is_accepting() == (EOS in expected)
            checked += 1
            text_tokens = sorted(expected - {EOS})
            if not text_tokens:
                break
            token = rng.choice(text_tokens)
            matcher.advance(token)
            prefix += vocab.token_bytes[token]
    return checked


def assert_readings_agree(a_index, b_index, vocab, *, walks: int, steps: int, seed: int):
    """Random walks of two readings of one file (with an accelerator and without), every mask
    compared; (masks compared, ``a_index``'s last matcher, whose memo shows what was read)."""
    rng, checked, a = random.Random(seed), 0, None
    for _ in range(walks):
        a, b = a_index.matcher(), b_index.matcher()
        for _ in range(steps):
            allowed = a.allowed_token_ids()
            assert np.array_equal(allowed, b.allowed_token_ids())
            checked += 1
            text = [t for t in allowed.tolist() if t not in vocab.eos_ids]
            if not text:
                break
            token = rng.choice(text)
            a.advance(token)
            b.advance(token)
    return checked, a


def every_state_decomposed(monkeypatch) -> None:
    """Decompose every state with undecided tokens (format 12's lexeme paths): a small
    vocabulary's states hold few, and by the writer's thresholds would be left to the walk."""
    import indexc.artifact.lexeme_paths as artifact_paths
    import indexc_runtime.grammar.lexeme_paths as lexeme_paths

    monkeypatch.setattr(artifact_paths, "MIN_PATH_UNDECIDED", 1)
    monkeypatch.setattr(lexeme_paths, "MAX_PAIRS_PER_TOKEN", 1000.0)


def _difference(prefix: bytes, got: set, expected: set, vocab) -> str:
    show = lambda ids: sorted(vocab.token_bytes[i] if i != EOS else b"<eos>" for i in ids)[:20]
    return f"after {prefix!r}: runtime only {show(got - expected)}, oracle only {show(expected - got)}"


def bitmask_ids(index, matcher) -> set[int]:
    out = np.zeros((1, index.mask_words), dtype=np.int32)
    matcher.fill_bitmask(out)
    bits = np.unpackbits(out[0].view(np.uint8), bitorder="little")
    return set(np.flatnonzero(bits).tolist())

"""The fingerprint: stable across loads and sources, and sensitive to every byte, kind, eos id and the size."""

from __future__ import annotations

import numpy as np

from indexc.vocab import TokenKind, Vocabulary, load_vocabulary, vocabulary_from_tokens

TOKENS = [b"a", b"b", b"ab", b"\xe4\xbd", b" ", b"", b"</s>"]
# Pinned: artifacts carry this hash, so changing its definition must be a deliberate,
# versioned change (FINGERPRINT_VERSION), not an accident.
PINNED = "117b655c44cf7c1af7aa28ea30fd404a"


def synthetic(tokens=TOKENS, eos=(6,)) -> Vocabulary:
    return vocabulary_from_tokens(tokens, eos_ids=eos)


def test_fingerprint_is_stable():
    assert synthetic().fingerprint == synthetic().fingerprint == PINNED


def test_fingerprint_of_a_bundled_tokenizer_is_stable_across_loads(bundled_tokenizer, bundled_vocabulary):
    assert load_vocabulary(bundled_tokenizer("t5")).fingerprint == bundled_vocabulary("t5").fingerprint


def test_every_bundled_tokenizer_has_its_own_fingerprint(bundled_vocabulary):
    names = ["gpt2", "llama3", "qwen2", "mistral", "t5"]
    assert len({bundled_vocabulary(n).fingerprint for n in names}) == len(names)


def test_one_byte_changes_it():
    changed = list(TOKENS)
    changed[3] = b"\xe4\xbe"
    assert synthetic(changed).fingerprint != PINNED


def test_moving_a_byte_between_tokens_changes_it():
    moved = [b"a", b"b", b"a", b"b\xe4\xbd"] + TOKENS[4:]
    assert b"".join(moved) == b"".join(TOKENS)
    assert synthetic(moved).fingerprint != PINNED


def test_the_eos_set_changes_it_but_not_its_order():
    assert synthetic(eos=(6, 4)).fingerprint != PINNED
    assert synthetic(eos=(6, 4)).fingerprint == synthetic(eos=(4, 6)).fingerprint


def test_the_size_changes_it():
    assert synthetic(TOKENS + [b""]).fingerprint != PINNED  # one more hole


def test_a_kind_changes_it_even_with_equal_bytes():
    hole = synthetic()
    special = vocabulary_from_tokens(TOKENS, eos_ids=(6,), special_ids=(5,))
    assert hole.token_bytes == special.token_bytes
    assert hole.kinds[5] == TokenKind.HOLE and special.kinds[5] == TokenKind.SPECIAL
    assert hole.fingerprint != special.fingerprint


def test_names_and_source_do_not_change_it():
    vocab = synthetic()
    renamed = Vocabulary(vocab.token_bytes, vocab.kinds.copy(), vocab.eos_ids, "other", "elsewhere",
                         names=tuple("x" for _ in vocab.names))
    assert renamed.fingerprint == PINNED


def test_synthetic_vocabulary_rules():
    vocab = synthetic()
    assert vocab.kinds.tolist() == [0, 0, 0, 0, 0, TokenKind.HOLE, TokenKind.SPECIAL]
    assert vocab.token_bytes[6] == b"" and vocab.names[6] == "</s>"
    assert vocab.eos_ids == (6,) and vocab.family == "synthetic" and vocab.source == "<memory>"
    assert np.flatnonzero(vocab.text_token_mask()).tolist() == [0, 1, 2, 3, 4]

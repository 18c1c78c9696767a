"""The whole pipeline (automaton, masks, artifact, runtime) against an independent reference.

``tests/reference/brute_force.py`` decides each token with interegular's own character FSM
and Python-level UTF-8 decoding: nothing of indexc's lowering, minimisation, classes, trie
walk, artifact encoding or runtime is shared.  Random small regexes (ASCII classes and
explicit non-ASCII characters, where both sides agree on the meaning) and random small
vocabularies (with partial UTF-8 tokens and duplicate ids) are compiled, written, loaded,
and walked; the runtime's mask is compared with the reference after every token.
"""

from __future__ import annotations

import random

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import indexc_runtime
from indexc.pipeline import compile_regex, write
from indexc.trie import build_trie
from indexc.vocab import vocabulary_from_tokens
from tests.masks.regex_strategies import regexes
from tests.reference.brute_force import BruteForceReference

PIECES = ["a", "b", "c", "1", "-", ".", "é", "😀"]
ATOMS = ["a", "b", "c", "1", r"\-", r"\.", "é", "😀", "[ab]", "[^a]", "[a-c1]", ".", "(ab|c)"]


def vocabularies() -> st.SearchStrategy[list[bytes]]:
    token = st.lists(st.sampled_from(PIECES), min_size=1, max_size=3).map(lambda ps: "".join(ps).encode())
    partial = st.sampled_from([b"\xc3", b"\xa9", b"\xf0\x9f", b"\x98\x80", b"a\xc3"])
    return st.lists(st.one_of(token, token, token, partial), min_size=3, max_size=40)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(pattern=regexes(ATOMS, max_repeat=3, max_leaves=7), tokens=vocabularies(), seed=st.integers(0, 2**16))
def test_runtime_masks_match_the_reference(pattern, tokens, seed, tmp_path):
    tokens = tokens + [tokens[0]]  # a duplicate id with the same bytes
    eos = len(tokens)
    vocab = vocabulary_from_tokens(tokens + [b""], eos_ids=(eos,))
    reference = BruteForceReference(pattern)
    table = [*tokens, None]
    artifact = tmp_path / f"{seed}.idx"
    write(compile_regex(pattern, vocab, build_trie(vocab)), vocab, str(artifact))
    matcher = indexc_runtime.load(artifact).matcher()
    rng, prefix = random.Random(seed), b""
    for _ in range(12):
        want = reference.allowed(table, [eos], prefix)
        got = matcher.allowed_token_ids()
        assert np.array_equal(got, want), (pattern, prefix, got.tolist(), want.tolist())
        choices = [t for t in got.tolist() if t != eos]
        if not choices:
            break
        token = rng.choice(choices)
        matcher.advance(token)
        prefix += tokens[token]

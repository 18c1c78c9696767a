"""Small MaskTables built by hand, with masks computed by brute force (no compiler stage used).

A table here is defined by a tiny DFA written as a dict (state -> {characters: next state}),
a list of token byte strings (``None`` for special tokens) and the eos ids.  Every mask is
found by walking every token's bytes through the DFA: it shares nothing with
``indexc.masks`` but the ``MaskTable`` type, so the writer and the runtime are tested against
an independent meaning.  ``big_table`` builds a 128,256-id table directly from chosen masks to
exercise the three mask forms at a real vocabulary size.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from indexc.artifact import VocabInfo, write_artifact
from indexc.masks.table import MaskTable

DIGITS = "0123456789"


@dataclass(frozen=True)
class HandmadeDFA:
    edges: dict[int, dict[str, int]]  # state -> {characters: next state}
    accepting: frozenset[int]

    @property
    def n_states(self) -> int:
        return len(self.edges)

    def byte_table(self) -> np.ndarray:
        table = np.full((self.n_states, 256), -1, dtype=np.int32)
        for state, moves in self.edges.items():
            for characters, target in moves.items():
                for byte in characters.encode("latin-1"):
                    table[state, byte] = target
        return table

    def run(self, data: bytes, state: int = 0) -> int:
        table = self.byte_table()
        for byte in data:
            state = int(table[state, byte])
            if state < 0:
                return -1
        return state


# -?[0-9]+(\.[0-9]+)?
NUMBER = HandmadeDFA(
    edges={0: {"-": 1, DIGITS: 2}, 1: {DIGITS: 2}, 2: {DIGITS: 2, ".": 3}, 3: {DIGITS: 4}, 4: {DIGITS: 4}},
    accepting=frozenset({2, 4}),
)

# 40 ids: 0 "<s>" and 1 "</s>" (eos) and 39 "<pad>" are special; the rest are text.
NUMBER_TOKENS: list[bytes | None] = [None, None] + [d.encode() for d in DIGITS] + [
    b"12", b"345", b"007", b"-", b"-1", b"-42", b".", b".5", b".25", b"1.5", b"3.14", b"a", b"ab", b" ",
    b"..", b"--", b"9.", b"0.0", b"-.", b"1-", b"x1", b"5 ", b"00", b"99", b"4.", b"-0", b".0",
] + [None]
NUMBER_EOS = (1,)
NUMBER_SPECIALS = (0, 1, 39)
# The same with 60 more special ids: under half the ids are live, so the writer numbers the
# token class rows by live token (a sorted id list) instead of by token id.
PADDED_NUMBER_TOKENS: list[bytes | None] = NUMBER_TOKENS + [None] * 60

# abc(d|e) over a vocabulary without "e": every state has exactly one way on.
FORCED = HandmadeDFA(edges={0: {"a": 1}, 1: {"b": 2}, 2: {"c": 3}, 3: {"de": 4}, 4: {}}, accepting=frozenset({4}))
# a+b over a vocabulary without "b": the forced chain is a cycle.
CYCLE = HandmadeDFA(edges={0: {"a": 1}, 1: {"a": 1, "b": 2}, 2: {}}, accepting=frozenset({2}))
LETTER_TOKENS: list[bytes | None] = [b"a", b"b", b"c", b"d", None]  # 4 is eos
LETTERS_NO_B: list[bytes | None] = [b"a", b"x", b"c", b"d", None]


def brute_force_masks(dfa: HandmadeDFA, tokens: list[bytes | None], eos: tuple[int, ...]) -> list[set[int]]:
    """Allowed ids of every state: text tokens whose bytes do not die, eos where it accepts."""
    masks = []
    for state in range(dfa.n_states):
        allowed = {i for i, raw in enumerate(tokens) if raw and dfa.run(raw, state) >= 0}
        if state in dfa.accepting:
            allowed |= set(eos)
        masks.append(allowed)
    return masks


def table_from_dfa(dfa: HandmadeDFA, tokens: list[bytes | None], eos: tuple[int, ...]) -> MaskTable:
    byte_table = dfa.byte_table()
    _, first, class_of_byte = np.unique(byte_table.T, axis=0, return_index=True, return_inverse=True)
    order = np.argsort(first)  # number classes by their smallest byte
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    class_of_byte = rank[class_of_byte.reshape(-1)].astype(np.uint8)
    class_transitions = np.ascontiguousarray(byte_table[:, np.sort(first)])
    per_state = brute_force_masks(dfa, tokens, eos)
    unique: list[tuple[int, ...]] = []
    state_mask = np.zeros(dfa.n_states, dtype=np.int32)
    for state, allowed in enumerate(per_state):
        key = tuple(sorted(allowed))
        if key not in unique:
            unique.append(key)
        state_mask[state] = unique.index(key)
    live = sorted({i for allowed in per_state for i in allowed if tokens[i]})
    sequences = [class_of_byte[np.frombuffer(tokens[i], dtype=np.uint8)] for i in live]
    offsets = np.zeros(len(live) + 1, dtype=np.int64)
    np.cumsum([len(s) for s in sequences], out=offsets[1:])
    return MaskTable(
        byte_classes=class_of_byte,
        class_transitions=class_transitions,
        accepting=np.array([s in dfa.accepting for s in range(dfa.n_states)]),
        state_mask=state_mask,
        masks=tuple(np.array(key, dtype=np.int32) for key in unique),
        live_tokens=np.array(live, dtype=np.int32),
        token_class_offsets=offsets,
        token_class_data=np.concatenate(sequences).astype(np.uint8) if sequences else np.zeros(0, np.uint8),
        stats={"states": dfa.n_states},
    )


def vocab_info(tokens: list[bytes | None], eos: tuple[int, ...], name: str) -> VocabInfo:
    specials = tuple(i for i, raw in enumerate(tokens) if raw is None)
    return VocabInfo(size=len(tokens), fingerprint=f"handmade-{name}", eos_ids=eos, special_ids=specials)


def write_handmade(path, dfa: HandmadeDFA, tokens: list[bytes | None], eos: tuple[int, ...],
                   name: str, **kwargs):
    table = table_from_dfa(dfa, tokens, eos)
    constraint = {"kind": "regex", "source": name}
    return write_artifact(table, path, vocab_info=vocab_info(tokens, eos, name), constraint=constraint,
                          options={"handmade": True}, stats=table.stats, **kwargs)


# ---- a 128,256-id vocabulary (Llama-3 sized), masks chosen to land in each storage form ----

BIG_VOCAB = 128_256
BIG_EOS = (128_001, 128_009)
BIG_SPECIALS = tuple(range(128_000, BIG_VOCAB))


def big_masks(seed: int = 7) -> list[np.ndarray]:
    """State 0: half the text ids at random (dense); 1: 200 ids (sparse: under the 256-word scatter cap); 2: all text ids but 50
    (complement); 3: only eos (accepting end)."""
    rng = np.random.default_rng(seed)
    text = np.arange(128_000)
    half = np.sort(rng.choice(text, size=64_000, replace=False))
    few = np.sort(rng.choice(text, size=200, replace=False))
    most = np.setdiff1d(text, rng.choice(text, size=50, replace=False))
    return [half, few, np.union1d(most, BIG_EOS), np.array(BIG_EOS)]


def big_table(seed: int = 7) -> MaskTable:
    """Every text token is one byte of class 0; state s moves to (s + 1) % 3 on it, state 2 accepts."""
    masks = [m.astype(np.int32) for m in big_masks(seed)]
    live = np.arange(128_000, dtype=np.int32)
    return MaskTable(
        byte_classes=np.zeros(256, dtype=np.uint8),
        class_transitions=np.array([[1], [2], [0], [3]], dtype=np.int32),
        accepting=np.array([False, False, True, True]),
        state_mask=np.array([0, 1, 2, 3], dtype=np.int32),
        masks=tuple(masks),
        live_tokens=live,
        token_class_offsets=np.arange(live.size + 1, dtype=np.int64),
        token_class_data=np.zeros(live.size, dtype=np.uint8),
        stats={"states": 4},
    )


def big_vocab_info() -> VocabInfo:
    return VocabInfo(size=BIG_VOCAB, fingerprint="handmade-big", eos_ids=BIG_EOS, special_ids=BIG_SPECIALS)


def write_big(path, **kwargs):
    table = big_table()
    return write_artifact(table, path, vocab_info=big_vocab_info(), constraint={"kind": "regex", "source": "big"},
                          options={}, stats=table.stats, **kwargs)


def bitmask_to_ids(row: np.ndarray) -> set[int]:
    """Token ids whose bits are set in one int32 bitmask row (independent of the runtime)."""
    ids = set()
    for word_index, word in enumerate(row.tolist()):
        word &= 0xFFFFFFFF
        while word:
            low = word & -word
            ids.add(word_index * 32 + low.bit_length() - 1)
            word ^= low
    return ids

"""Brute-force token masks for small vocabularies, independent of indexc's automaton.

What it does.  The regex is parsed by interegular into its own FSM over *characters*
(``interegular.parse_pattern(p).to_fsm()``); nothing of indexc's UTF-8 lowering, byte DFA,
minimisation, byte classes or trie is used.  For a byte prefix and each token, the bytes
``prefix + token`` are decoded as UTF-8 and the characters walked through the FSM; the token is
allowed iff the walk stays in a *live* state (one from which a final state is reachable,
found by a backward search over the FSM's transitions).  EOS ids are allowed iff the prefix
decodes to whole characters and its state is final.  Cost: vocabulary x token length FSM steps,
so keep vocabularies to a few hundred tokens.

Partial characters.  Byte-level tokenizers split characters across tokens (``é`` = C3 A9 may
be two tokens).  A trailing incomplete UTF-8 sequence is viable iff some character it can still
become leads to a live state: its completions form one code point range (the remaining
continuation bits free, clipped to the valid range of its length, surrogates removed), and the
FSM's alphabet says which of them it names explicitly; any other one takes the alphabet's
"anything else" transition.  Bytes that can never be valid UTF-8 (0xFF, a stray continuation
byte, an overlong or surrogate prefix) kill the walk.

Not supported, and why:
- interegular's ``\\d \\w \\s`` are ASCII (``\\w`` = ``[A-Za-z0-9_]``), while indexc and llguidance
  use Unicode classes.  Comparisons must keep class escapes away from non-ASCII text (use
  ASCII-only tokens, or explicit character sets such as ``[a-zé]``).
- interegular refuses anchors (``^``, ``$``), ``\\b``, look-arounds and ``\\p{...}``;
  ``BruteForceError`` carries its message.
- ``.`` excludes ``\\n`` (Python's meaning, which DESIGN.md follows).
- Empty byte strings and ``None`` are special tokens: never allowed unless listed as EOS.
"""

from __future__ import annotations

import codecs
from collections import defaultdict
from typing import Sequence

import interegular
import numpy as np
from interegular.fsm import anything_else

# Code points a UTF-8 sequence of each length may encode (shorter forms are overlong).
_RANGE_OF_LENGTH = {2: (0x80, 0x7FF), 3: (0x800, 0xFFFF), 4: (0x10000, 0x10FFFF)}
_SURROGATES = (0xD800, 0xDFFF)


class BruteForceError(ValueError):
    """interegular could not parse the pattern."""


class BruteForceReference:
    """A regex as interegular's character FSM, with the viability tests a mask needs."""

    def __init__(self, pattern: str):
        try:
            fsm = interegular.parse_pattern(pattern).to_fsm()
        except Exception as exc:  # interegular raises several unrelated exception types
            raise BruteForceError(f"interegular cannot parse {pattern!r}: {exc}") from exc
        self.pattern = pattern
        self._fsm = fsm
        self._explicit = sorted(ord(c) for c in fsm.alphabet.keys() if c is not anything_else)
        self._live = _live_states(fsm)

    def walk(self, data: bytes) -> tuple[int, bytes] | None:
        """(FSM state, trailing incomplete UTF-8 bytes) after ``data``; None if it dies."""
        decoder = codecs.getincrementaldecoder("utf-8")()
        try:
            text = decoder.decode(data, final=False)
        except UnicodeDecodeError:
            return None
        state = self._fsm.initial
        for char in text:
            state = self._fsm.map.get(state, {}).get(self._fsm.alphabet[char])
            if state is None or state not in self._live:
                return None
        tail = decoder.getstate()[0]
        if tail and not self._tail_viable(state, tail):
            return None
        return state, tail

    def is_viable(self, data: bytes) -> bool:
        """Can ``data`` be extended to a full match?"""
        return self.walk(data) is not None

    def accepts(self, data: bytes) -> bool:
        position = self.walk(data)
        return position is not None and not position[1] and position[0] in self._fsm.finals

    def allowed(self, tokens: Sequence[bytes | None], eos_ids: Sequence[int],
                prefix: bytes = b"") -> np.ndarray:
        """Sorted ids allowed after ``prefix``: tokens that keep a match reachable, EOS iff accepting."""
        if not self.is_viable(prefix):
            return np.zeros(0, dtype=np.int64)
        eos = set(int(i) for i in eos_ids)
        allowed = [i for i, raw in enumerate(tokens) if raw and i not in eos and self.is_viable(prefix + raw)]
        if self.accepts(prefix):
            allowed.extend(eos)
        return np.array(sorted(allowed), dtype=np.int64)

    def _tail_viable(self, state: int, tail: bytes) -> bool:
        low, high = _completion_range(tail)
        if low > high:
            return False
        moves = self._fsm.map.get(state, {})
        explicit = [cp for cp in self._explicit if low <= cp <= high]
        symbols = {self._fsm.alphabet[chr(cp)] for cp in explicit}
        if len(explicit) < _count_scalar_values(low, high) and anything_else in self._fsm.alphabet:
            symbols.add(self._fsm.alphabet[anything_else])
        return any(moves.get(symbol) in self._live for symbol in symbols)


def brute_force_mask(pattern: str, tokens: Sequence[bytes | None], eos_ids: Sequence[int],
                     prefix: bytes = b"") -> np.ndarray:
    """One-shot form of ``BruteForceReference(pattern).allowed(tokens, eos_ids, prefix)``."""
    return BruteForceReference(pattern).allowed(tokens, eos_ids, prefix)


def _live_states(fsm) -> frozenset[int]:
    """States from which a final state is reachable (backward search from the finals)."""
    predecessors: dict[int, set[int]] = defaultdict(set)
    for source, moves in fsm.map.items():
        for target in moves.values():
            predecessors[target].add(source)
    live, frontier = set(fsm.finals), list(fsm.finals)
    while frontier:
        for source in predecessors[frontier.pop()]:
            if source not in live:
                live.add(source)
                frontier.append(source)
    return frozenset(live)


def _completion_range(tail: bytes) -> tuple[int, int]:
    """Code points whose UTF-8 form starts with ``tail`` (an incomplete sequence), as [low, high]."""
    lead = tail[0]
    length = 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4
    value = lead & (0x7F >> length)
    for continuation in tail[1:]:
        value = (value << 6) | (continuation & 0x3F)
    free_bits = 6 * (length - len(tail))
    valid_low, valid_high = _RANGE_OF_LENGTH[length]
    return max(value << free_bits, valid_low), min(((value + 1) << free_bits) - 1, valid_high)


def _count_scalar_values(low: int, high: int) -> int:
    overlap = max(0, min(high, _SURROGATES[1]) - max(low, _SURROGATES[0]) + 1)
    return high - low + 1 - overlap

"""Which terminals' ends one byte of lookahead decides: the terminals a Lark file ends by longest match.

Under ``lexing = "longest_match"`` (format 10) a lexeme of a terminal listed in the header's
``longest_match_terminals`` ends exactly where its DFA accepts and cannot take the next byte.
That is the end ``re.match`` gives when the DFA can only grow past an end through more ends,
character by character (``indexc.grammar.longest_match`` says why, and what the other terminals
do).  The compiler decides it from its lexer's byte DFA; ``GrammarIndex.verify`` decides it again
from the file's lexer tables (the class table read through the byte classes: the same
transitions), so a header that lists a terminal whose end one byte cannot tell, or leaves one
out, is refused.  Cost: one search over (state, pending continuation bytes) per terminal, ~6 ms
for rfc.lark's 2,252 lexer states in Python.
"""

from __future__ import annotations

from collections.abc import Iterable

DEAD = -1
_CONTINUATION = range(0x80, 0xC0)
_TAIL_LENGTH = [0] * 0x80 + [0] * 0x40 + [1] * 0x20 + [2] * 0x10 + [3] * 0x10  # continuation bytes after a lead


def one_byte_decides(transitions: list[list[int]], accepting: list, start: int, states: Iterable[int]) -> bool:
    """Whether the terminal with start state ``start`` and states ``states`` ends where
    ``re.match`` would end it when it ends exactly where it accepts and cannot take the next byte
    (``transitions``: per state, the next state of each of the 256 bytes, ``DEAD`` for none).

    Checked per character, not per byte (a UTF-8 character passes states that do not accept):
    the start does not accept; every state that ends a character and is reachable from an
    accepting state accepts; and from an accepting state, a lead byte it takes starts only
    characters it takes whole (``[^\\n]*`` takes every character; ``\\s*`` takes ``\\xc2`` for
    U+00A0 but not U+00A1, so the byte alone cannot tell: it keeps all splits)."""
    if accepting[start]:
        return False
    whole = _WholeCharacters(transitions)
    seen = {(q, 0) for q in states if accepting[q]}
    stack = list(seen)
    while stack:
        state, pending = stack.pop()
        if pending == 0 and not accepting[state]:
            return False
        row = transitions[state]
        for byte in (_CONTINUATION if pending else range(256)):
            target = row[byte]
            if target == DEAD:
                continue
            if pending == 0 and accepting[state] and byte >= 0x80 and not whole.takes(target, byte):
                return False
            step = (target, pending - 1 if pending else _TAIL_LENGTH[byte])
            if step not in seen:
                seen.add(step)
                stack.append(step)
    return True


def longest_match_terminals(lexer) -> tuple[int, ...]:
    """The terminals of a file's lexer tables (``tables.LexerTables``) whose ends one byte decides,
    ascending: what a format 10 header must list under longest match."""
    transitions = lexer.next[:, lexer.byte_classes].tolist()
    accepting = lexer.accepting.tolist()
    states_of: dict[int, list[int]] = {}
    for state, terminal in enumerate(lexer.state_terminal.tolist()):
        states_of.setdefault(terminal, []).append(state)
    starts = lexer.terminal_start.tolist()
    return tuple(t for t in range(len(starts))
                 if one_byte_decides(transitions, accepting, starts[t], states_of.get(t, ())))


def _second_bytes(lead: int) -> range:
    """The continuation bytes UTF-8 allows right after ``lead`` (no overlong forms, surrogates, or
    code points past U+10FFFF)."""
    return {0xE0: range(0xA0, 0xC0), 0xED: range(0x80, 0xA0), 0xF0: range(0x90, 0xC0),
            0xF4: range(0x80, 0x90)}.get(lead, _CONTINUATION)


class _WholeCharacters:
    """Whether a state reached by a lead byte takes every character that starts with it."""

    def __init__(self, transitions: list[list[int]]):
        self._transitions = transitions
        self._memo: dict[tuple[int, int, int], bool] = {}

    def takes(self, state: int, lead: int) -> bool:
        if lead < 0xC2 or lead > 0xF4:
            return True  # not a lead byte of valid UTF-8: no character starts with it
        return self._tail(state, _TAIL_LENGTH[lead], lead)

    def _tail(self, state: int, pending: int, lead: int) -> bool:
        key = (state, pending, lead)
        found = self._memo.get(key)
        if found is None:
            row = self._transitions[state]
            allowed = _second_bytes(lead) if lead else _CONTINUATION
            found = all(row[b] != DEAD and (pending == 1 or self._tail(row[b], pending - 1, 0)) for b in allowed)
            self._memo[key] = found
        return found

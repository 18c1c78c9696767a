"""Longest match: where a lexeme of a Lark grammar may end (``lexing = "longest_match"``).

GBNF has no lexer: a terminal may end at any byte where its regex accepts, and every way of
cutting the text counts ("all splits", ``docs/grammar-path.md``).  Lark has one.  Its default
parser (Earley with ``lexer="dynamic"``) asks, at a position, each terminal the parser expects
there for *its own* match, ``re.match`` of that terminal's regex at the position: one length
per terminal, the longest for greedy quantifiers, and the terminals do not compete with each
other (a keyword and a name may both match, of different lengths).  A text is in the language
when some sequence of such matches parses.

indexc's rule for Lark files, per terminal:

- a terminal whose match end *one byte of lookahead* decides ends exactly where its DFA
  accepts and cannot take the next byte (or at the end of the text): ``[a-z]+`` ends before
  the first byte that is not a letter.  That is ``re.match``'s end when, from every accepting
  state, every state the DFA can go on to accepts too (after an end, the lexeme can only grow
  through more ends); the DFA has no other way to go past an end and come back to one;
- any other terminal keeps the all-splits rule: it may end wherever it accepts.  Its regex
  can go past an end through states that do not accept (``\\d+(\\.\\d+)?`` after ``1.``,
  where ``re.match`` backtracks to the end before; lark.lark's ``REGEXP`` after an escaped
  slash), and a thread one byte long cannot tell; all splits holds that end among others;
- a terminal that matches the empty string keeps all splits too (Lark's dynamic lexer
  refuses such terminals; a GBNF-like nullable lexeme is the parser's business).

What that means for a grammar meant for Lark's lexer: two names side by side are one name
(``intx`` is not ``int`` ``x``), so lark.lark's ``expansion: expr*`` no longer lets each letter
of a run end a name (all splits made its slowest masks walk ~470 configuration transitions).
Where it differs from Lark: a terminal that keeps all splits admits ends ``re.match`` would not
pick (lark.lark's ``REGEXP`` may end at an escaped slash); ``re.match`` takes the first
alternative that matches (``/a|ab/`` on ``ab`` is ``a``), this rule the longest; priorities
(``TERM.2``) are not read.  From llguidance: its lexer runs every allowed lexeme together and
ends one only where no lexeme at all can take the next byte (``ifx`` is a name there, while
here a keyword ``if`` may end before ``x`` if the grammar lets a name follow); every text it
lexes is lexed here too, so its allowed sets are contained in ours (``test_vs_llguidance``),
except where a lazy quantifier ends a lexeme here and not there (llguidance's lexemes are greedy
unless a rule says ``[lazy]``: its ``".*?"`` may run to the line's last quote).

Lazy quantifiers (session 30, ``indexc.grammar.lazy_ends``): the front end writes a terminal
such as ``".*?"`` as the greedy regex of ``re.match``'s ends (``"[^\\n"]*"``), which one byte
decides; those it cannot write so keep all splits.

Measured (session 27): lark.lark, 23 of its 26 terminals end by longest match (``REGEXP``,
``STRING`` and ``_NL`` keep all splits; since session 30's lazy ends, ``STRING`` ends so too), decided in 1.3 ms for its 137 lexer states; rfc.lark,
237 of 238 (``TEXT`` keeps them), 6.3 ms for 2,252 states.  lark.lark with Llama-3, the rule
alone: compile 3.15 -> 2.76 s, cold mask p50 81 -> 8 µs, cold walk 138 -> 84 ms (one cell); with the
warm-up's step budget too (``indexc.artifact.warm_memo``): compile 1.52 s, p50 21 µs
(BENCHMARKS.md, session 27; its p99 stays over 1 ms: ``docs/grammar-path.md``).

Exactness: a mask is the set of tokens after which the text is a prefix of some sentence under
this rule.  The runtime takes a live lexer thread for such a prefix, which holds when the
lexeme can end before some byte that may come next; in a grammar where a terminal can only
ever be followed by bytes that extend it (``A: /a+/`` then ``B: "a"``, nothing between) no
sentence has that prefix, and the mask is wider than the rule.  ``never_ending`` finds the
terminals for which that holds in every context (no terminal that may follow starts with a byte
that ends them, and they cannot end the text), and the compiler warns about each; a terminal
that can end in some contexts and not in others is not found.  The oracle
(``tests/reference/grammar_oracle.py``) has the same blind spot.
"""

from __future__ import annotations

import numpy as np

from indexc.automaton.byte_dfa import DEAD
from indexc.grammar.lexemes import Lexer


def ends_by_longest_match(lexer: Lexer) -> np.ndarray:
    """bool per terminal: its lexemes end by longest match (one byte of lookahead decides),
    else by all splits (``one_byte_decides`` on its block of the lexer)."""
    transitions, accepting = lexer.dfa.transitions.tolist(), lexer.dfa.accepting.tolist()
    offsets = lexer.offsets.tolist()
    return np.array([one_byte_decides(transitions, accepting, offsets[t], offsets[t + 1])
                     for t in range(lexer.n_terminals)], dtype=bool)


def one_byte_decides(transitions: list[list[int]], accepting: list[bool], start: int, end: int) -> bool:
    """Whether the terminal with states ``start .. end-1`` (``start`` its first) ends where
    ``re.match`` would end it when it ends exactly where it accepts and cannot take the next byte.

    Checked per character, not per byte (a UTF-8 character passes states that do not accept):
    the start does not accept; every state that ends a character and is reachable from an
    accepting state accepts; and from an accepting state, a lead byte it takes starts only
    characters it takes whole (``[^\\n]*`` takes every character; ``\\s*`` takes ``\\xc2`` for
    U+00A0 but not U+00A1, so the byte alone cannot tell: it keeps all splits)."""
    if accepting[start]:
        return False
    whole = _WholeCharacters(transitions)
    seen = {(q, 0) for q in range(start, end) if accepting[q]}
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


_CONTINUATION = range(0x80, 0xC0)
_TAIL_LENGTH = [0] * 0x80 + [0] * 0x40 + [1] * 0x20 + [2] * 0x10 + [3] * 0x10  # continuation bytes after a lead


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


def never_ending(lexer: Lexer, longest: np.ndarray, follow: dict[int, set[int]], may_end_text: set[int]) -> list[int]:
    """The longest-match terminals that cannot end anywhere: every first byte of every terminal
    that may follow them (``follow``: ``boundary_masks.follow_pairs``, ignored ones included)
    extends them at each of their accepting states, and they cannot end the text."""
    transitions, accepting = lexer.dfa.transitions, lexer.dfa.accepting.astype(bool)
    first_bytes = transitions[lexer.starts] != DEAD  # (n_terminals, 256)
    found = []
    for t in np.flatnonzero(longest).tolist():
        if t in may_end_text:
            continue
        ends = transitions[lexer.offsets[t]:lexer.offsets[t + 1]][accepting[lexer.offsets[t]:lexer.offsets[t + 1]]]
        ending_bytes = (ends == DEAD).any(axis=0)
        followers = sorted(follow.get(t, ()))
        if not (first_bytes[followers] & ending_bytes).any():
            found.append(t)
    return found

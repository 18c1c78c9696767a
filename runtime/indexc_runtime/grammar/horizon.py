"""Earley sets told apart only as far as one token can read: a coarser, still exact, future.

A mask depends on the text after the current position only up to the longest token (128
bytes with Llama-3): a token's bytes end there.  ``futures.future_key`` tells two threads'
futures apart by the Earley set their lexeme's completion leads to; inside a long JSON
string (``maxLength`` over 128, counted in chunks of 32 characters by the grammar:
``indexc.jsonschema.strings``) that set counts the chunks read so far, so the same position
in the 2nd and the 9th chunk of a ``maxLength: 32767`` string are two futures, and two masks
walked (~1,000 open tokens each), although no token can reach the chunk where the count
matters.

``TokenHorizon.key(set, horizon)`` is a signature of a set that two sets share only if every
text of at most ``horizon`` bytes keeps the same lexer threads alive after them:

- ``horizon <= 0``: any set (a completed lexeme's thread is alive at the token's end, so
  nothing read after it decides anything);
- a set that expects no *long* terminal (whose shortest lexeme has ``LONG_TERMINAL`` bytes or
  more), or more than ``MAX_SIGNATURE_TERMINALS`` terminals: the set itself (exact, as before);
- otherwise: its expected terminals, and per terminal the set its scan leads to: compared by
  signature again, ``LONG_TERMINAL`` bytes closer to the horizon, for a long terminal (its
  lexeme takes that many bytes before the scan's set matters), by id for the others.

Why that is exact: a set meets a text only through its fresh threads (its expected terminals
and the ignored ones, which lead back to the set itself) and, when one of their lexemes
completes, through the set that scan leads to, with fewer bytes left; a thread's aliveness is
all a mask asks (every lexer state and Earley item can complete: the compiler trims the
grammar), and the eos flag is the configuration's own (part of its key).  A set's accepting
flag further on changes no text token.

Cost: eager scans of the expected terminals of the sets met (a chunk, the tails, the closing
quote: the walk makes most of them anyway), a few levels deep (128 / 32); whether a terminal
is long is found once per index, on a thread's first future key (``TerminalLengths``, which
the index's memos share).  A
grammar without long terminals (every bundled Lark and GBNF sample) pays one set lookup per
thread.  Measured in session 13 (``docs/grammar-path.md``, "Session 13"): on the long-string
files of MaskBench's grammar path, masks over 200 us 1,594 -> 1,238, masks byte-identical.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from indexc_runtime.grammar.earley import EarleySets
from indexc_runtime.grammar.tables import LexerTables

LONG_TERMINAL = 32  # bytes: a chunk of a long string (32 characters of 1 byte or more) is long
MAX_SIGNATURE_TERMINALS = 16  # a set expecting more terminals is its own signature (no eager scans)
# A vocabulary whose longest token is longer keeps exact keys: the signature's recursion is
# horizon / LONG_TERMINAL deep (4 with Llama-3's 128 bytes; 128 here), never near Python's limit.
MAX_HORIZON = 4096
ANY = ()  # the signature of every set past the horizon


class TerminalLengths:
    """Which terminals' shortest lexeme has ``LONG_TERMINAL`` bytes or more.

    A shortest lexeme of ``n`` bytes passes ``n`` states that do not accept, all distinct, so
    only a terminal with more than ``LONG_TERMINAL`` lexer states can be long (``candidates``:
    the artifact's ``state_terminal`` counted, ~0.04 ms for 10k states): a JSON Schema's
    literal keys and punctuation are not.  (A terminal whose states were counted to another,
    were two to share a DFA, would only be taken as short, which keeps its exact key.)  A
    candidate asked for the first time gets a breadth-first walk
    of its DFA, stopped at ``LONG_TERMINAL`` bytes: a few numpy calls for a string or a number
    (they may end after a byte or two), ~0.3 ms for a chunk (in Python, expanding every state
    reached, ~2.3 ms).  Nothing is asked before a thread of a candidate needs a future key."""

    def __init__(self, lexer: LexerTables):
        self._lexer = lexer
        self._candidates: frozenset[int] | None = None
        self._accepting: np.ndarray | None = None
        self._long: dict[int, bool] = {}

    @property
    def candidates(self) -> frozenset[int]:
        """The terminals that may be long (the others are short)."""
        if self._candidates is None:
            lexer = self._lexer
            owners = np.frombuffer(lexer.state_terminal, dtype=lexer.state_terminal.format)  # (not asarray: ~7 ms
            states = np.bincount(owners, minlength=len(lexer.terminal_start))  # of PEP 3118 parsing, first call)
            self._candidates = frozenset(np.flatnonzero(states > LONG_TERMINAL).tolist())
        return self._candidates

    def is_long(self, terminal: int) -> bool:
        found = self._long.get(terminal)
        if found is None:
            found = self._long[terminal] = (terminal in self.candidates
                                            and self._shortest(terminal) >= LONG_TERMINAL)
        return found

    def _shortest(self, terminal: int) -> int:
        """Bytes of the terminal's shortest lexeme, or ``LONG_TERMINAL`` if it is that long or longer:
        a breadth-first walk of its DFA in numpy, each state expanded once."""
        lexer = self._lexer
        if self._accepting is None:
            self._accepting = np.array(lexer.accepting.tolist(), dtype=bool)
        seen = np.zeros(lexer.next.shape[0], dtype=bool)
        front = np.array([lexer.terminal_start[terminal]], dtype=np.intp)
        for length in range(LONG_TERMINAL):
            if self._accepting[front].any():
                return length
            seen[front] = True
            after = lexer.next[front].ravel()
            marks = np.zeros_like(seen)
            marks[after[after >= 0]] = True
            front = np.flatnonzero(marks & ~seen)
            if not front.size:  # cannot happen in a trimmed lexer (every state is live); long then
                break
        return LONG_TERMINAL


class TokenHorizon:
    """Signatures of the Earley sets of one memo, up to a horizon in bytes (see the module note)."""

    def __init__(self, sets: EarleySets, lengths: TerminalLengths, max_token_bytes: Callable[[], int]):
        self._sets = sets
        self._lengths = lengths
        self._max_token_bytes = max_token_bytes  # asked on the first long thread (a scan of the token rows)
        self._horizon: int | None = None
        self._keys: dict[tuple[int, int], int | tuple] = {}

    @property
    def candidates(self) -> frozenset[int]:
        """The terminals that may be long: a thread of any other is keyed exactly at once."""
        return self._lengths.candidates

    def after(self, set_id: int, terminal: int) -> int | tuple:
        """The key of the set a thread's completion leads to: exact, or for a long terminal up to
        what a token can read after it, its bytes but the first (a completion takes one at least)."""
        if set_id < 0 or not self._lengths.is_long(terminal):
            return -2 - set_id
        if self._horizon is None:
            self._horizon = self._max_token_bytes() - 1
        if self._horizon > MAX_HORIZON:
            return -2 - set_id
        return self.key(set_id, self._horizon)

    def key(self, set_id: int, horizon: int) -> int | tuple:
        """``-2 - set_id`` (exact: ``future_key``'s encoding) or the set's signature up to ``horizon`` bytes."""
        if horizon <= 0:
            return ANY
        found = self._keys.get((set_id, horizon))
        if found is None:
            found = self._keys[set_id, horizon] = self._signature(set_id, horizon)
        return found

    def _signature(self, set_id: int, horizon: int) -> int | tuple:
        sets, is_long = self._sets, self._lengths.is_long
        expected = sorted(sets.expected[set_id])
        if len(expected) > MAX_SIGNATURE_TERMINALS or not any(map(is_long, expected)):
            return -2 - set_id
        scan = sets.scan
        return tuple(expected), tuple(self.key(scan(set_id, u), horizon - LONG_TERMINAL) if is_long(u)
                               else -2 - scan(set_id, u) for u in expected)

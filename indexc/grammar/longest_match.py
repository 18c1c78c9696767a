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
  where ``re.match`` backtracks to the end before), and a thread one byte long cannot tell;
  all splits holds that end among others;
- a terminal that matches the empty string keeps all splits too (Lark's dynamic lexer
  refuses such terminals; a GBNF-like nullable lexeme is the parser's business).

What that means for a grammar meant for Lark's lexer: two names side by side are one name
(``intx`` is not ``int`` ``x``), so lark.lark's ``expansion: expr*`` no longer lets each letter
of a run end a name (all splits made its slowest masks walk ~470 configuration transitions).
Where it differs from Lark: a terminal that keeps all splits admits ends ``re.match`` would not
pick (``\\d+(\\.\\d+)?`` may end after ``1.`` where ``re.match`` does not); ``re.match``
takes the first alternative that matches (``/a|ab/`` on ``ab`` is ``a``), this rule the longest; priorities
(``TERM.2``) are not read.  From llguidance: its lexer runs every allowed lexeme together and
ends one only where no lexeme at all can take the next byte (``ifx`` is a name there, while
here a keyword ``if`` may end before ``x`` if the grammar lets a name follow); every text it
lexes is lexed here too, so its allowed sets are contained in ours (``test_vs_llguidance``),
except where a lazy quantifier ends a lexeme here and not there (llguidance's lexemes are greedy
unless a rule says ``[lazy]``: its ``".*?"`` may run to the line's last quote).

Lazy quantifiers (session 30, ``indexc.grammar.lazy_ends``): the front end writes a terminal
such as ``".*?"`` as the greedy regex of ``re.match``'s ends (``"[^\\n"]*"``), which one byte
decides; since session 31 also an escaped run such as lark.lark's ``REGEXP`` (``/`` then escape
pairs or other characters, ended by the first bare ``/``); those it cannot write so keep all
splits.

Measured (session 27): lark.lark, 23 of its 26 terminals end by longest match (``REGEXP``,
``STRING`` and ``_NL`` keep all splits; since the lazy ends of sessions 30 and 31, ``STRING`` and
``REGEXP`` end so too: 25 of 26),
decided in 1.3 ms for its 137 lexer states; rfc.lark, 237 of 238 (``TEXT`` keeps them), 6.3 ms
for 2,252 states.  lark.lark with Llama-3, the rule alone: compile 3.15 -> 2.76 s, cold mask p50
81 -> 8 µs, cold walk 138 -> 84 ms (one cell); with the warm-up's step budget too
(``indexc.artifact.warm_memo``): compile 1.52 s, p50 21 µs (BENCHMARKS.md, session 27; its p99
stays over 1 ms: ``docs/grammar-path.md``).

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
from indexc_runtime.grammar.one_byte_ends import one_byte_decides


def ends_by_longest_match(lexer: Lexer) -> np.ndarray:
    """bool per terminal: its lexemes end by longest match (one byte of lookahead decides),
    else by all splits (``one_byte_decides`` on its block of the lexer; ``verify`` asks the same
    function of the file's tables, ``indexc_runtime.grammar.one_byte_ends``)."""
    transitions, accepting = lexer.dfa.transitions.tolist(), lexer.dfa.accepting.tolist()
    offsets = lexer.offsets.tolist()
    return np.array([one_byte_decides(transitions, accepting, offsets[t], range(offsets[t], offsets[t + 1]))
                     for t in range(lexer.n_terminals)], dtype=bool)


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

"""Sample sentences of a grammar: the texts a grammar's compile-time warm-up walk reads.

The grammar path stores the parser memo of a walk made at compile time (format 7,
``indexc.artifact.warm_memo``): a request whose position has a stored configuration's content
reads its mask instead of computing it.  A JSON Schema gets one synthetic instance for that
walk; a Lark or GBNF grammar has no instance, so the compiler makes some: random derivations of
the grammar, each terminal spelled by a random walk of its byte DFA.  The memo is exact
whatever the text (sets and configurations are interned by content), so the sentences only
decide how many of a request's positions find their masks ready.  They never see a request.

Why that works for a grammar: a configuration is the Earley set (items, their origins as
interned sets) and the lexer threads at a token boundary.  Two documents at the same place in
the grammar, inside a lexeme at the same DFA state, meet the same configuration whatever
their identifiers or numbers.  Measured before this module existed (session 21, one
hand-written warm-up text unlike the bundled samples, Llama-3, cold mask p50 of the sample
document on a slow host): C 448 -> 42 µs, arithmetic 250 -> 125 µs.  With it, 512 tokens
(``DEFAULT_WARM_UP_SAMPLES``; BENCHMARKS.md, "Grammars", session 21's runs): arithmetic 273-459
-> 17-29 µs, JSON 40-43 -> 8-17, C 313-542 -> 203-331, and on documents written after this
module arithmetic-other 228-442 -> 23-37, C-other 268-442 -> 57-106.  Hardly the first
request's whole time (nine documents 158-201 -> 152-176 ms): the parser work a served mask's
walk would have done moves to the next ``advance`` or computed mask.  Compile: +0.05-1.0 s on
the bundled grammars (the walk).  Session 26 raised the default to 2,048 tokens, the warm-up's
whole budget: in a process that only loads the artifact (a server's first request), the slowest
mask of C / C-other / RFC-XML 1,076 / 1,030 / 1,183 -> 867 / 908 / 889 µs and their walks'
mask time 6.4 / 12.3 / 16.3 -> 5.9 / 9.1 / 12.4 ms (medians of 3), compile +0.05-0.23 s.

How a sentence is made (``SentenceSampler``, seeded, so a compile is reproducible):

- **Derivation**, leftmost, with an explicit stack (no recursion limit): a nonterminal takes the
  rule it has taken least often under the same parent nonterminal so far (ties at random), so
  that a few sentences take every rule in every context they reach (uniform choices left C's
  ``return a`` uncovered in 32 sentences); past a depth limit (drawn per sentence between
  ``SHALLOWEST`` and ``max_depth``: shallow sentences are the common shapes) or
  ``max_terminals`` it picks among the rules of least *height* (the least depth of a complete
  derivation), whose symbols are all lower, so every sentence ends.
- **Terminals**: a random walk of the terminal's states in the lexer automaton.  Bytes are drawn
  from letters, digits, space and ``_`` four times in five, else from any printable ASCII byte,
  else any byte the state allows (UTF-8 sequences are then completed by the DFA itself); past a
  random length (1 plus a geometric number, mean ~3.3, at most ``max_lexeme_bytes``) the walk
  takes the shortest way to acceptance.  A terminal that may be empty is, one time in two
  (whitespace: most documents have little).
- **Ignored terminals** (Lark's ``%ignore``) go between two terminals one time in four.

- **Longest match** (a Lark file, ``indexc.grammar.longest_match``): a lexeme must not be
  extended by the next one's first byte (``[a-z]+`` then ``[a-z]+``, a comment then more of its
  line).  The next lexeme is spelled again, then an ignored lexeme the sampler put before it is
  left out or one is put between (a space); a derivation that still breaks the rule is drawn
  again.  Drawing any such sentence again whole (session 27's first try) kept the short ones:
  lark.lark's first 1,000 sentences held 8.1 KB, most of them empty; spelled so, 111 KB.

What it does not do: Lark's priorities or its standard and contextual lexers.  A sentence the
runtime refuses stops the walk at its first refused token, keeping what was walked
(``warm_memo``).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from indexc.automaton.byte_dfa import DEAD, ByteDFA
from indexc.automaton.liveness import breadth_first_levels, predecessor_lists, successor_lists
from indexc.grammar.ir import Rule
from indexc.grammar.lexemes import Lexer

COMMON_BYTES = tuple(b"abcdefghijklmnopqrstuvwxyz0123456789 _")
PRINTABLE_BYTES = tuple(range(0x20, 0x7F)) + tuple(b"\n\t")
COMMON_SHARE = 0.8  # how often a byte is drawn from COMMON_BYTES where one is allowed
MAX_REDRAWS = 64  # a sentence drawn again this many times is kept as it is (the warm-up stops at its first refusal)
RESPELLS = 4  # under longest match, a lexeme extended by the next one's first byte: the next is spelled again
IGNORE_SHARE = 0.25  # how often an ignored terminal goes between two terminals
EMPTY_SHARE = 0.5  # how often a terminal that may be empty is
SHALLOWEST = 8  # a sentence's depth limit is drawn between this and ``max_depth``
LONGER_SHARE = 0.7  # a terminal's random part is 1 + a geometric number of bytes (mean ~3.3)


@dataclass(frozen=True)
class SentenceLimits:
    """How large a sentence grows before its derivation closes by the least-height rules."""

    max_depth: int = 24  # derivation depth
    max_terminals: int = 96  # terminals in one sentence
    max_lexeme_bytes: int = 12  # a terminal's random part; the shortest way to acceptance follows


class SentenceSampler:
    """Random sentences of ``rules`` (BNF over ``lexer``'s terminal names and nonterminals)."""

    def __init__(self, start: str, rules: list[Rule], lexer: Lexer, ignore: tuple[str, ...] = (), *,
                 seed: int = 0, limits: SentenceLimits = SentenceLimits(), longest: np.ndarray | None = None):
        """``longest``: per terminal, whether it ends by longest match (``indexc.grammar.longest_match``):
        a sentence where such a lexeme is followed by a byte that extends it is drawn again."""
        self.start = start
        self.limits = limits
        self.random = random.Random(seed)
        self.terminal = {name: i for i, name in enumerate(lexer.names)}
        self.ignore = [self.terminal[name] for name in ignore if name in self.terminal]
        self.rules: dict[str, list[tuple[str, ...]]] = {}
        for rule in rules:
            self.rules.setdefault(rule.lhs, []).append(rule.rhs)
        self.closing = _least_height_rules(self.rules, self.terminal)
        self.used: dict[tuple[str, str, tuple[str, ...]], int] = {}  # (parent, symbol, option) -> times taken
        self.lexer = lexer
        self.distance = _distance_to_acceptance(lexer.dfa)
        self.longest = longest
        in_rules = {symbol for options in self.rules.values() for rhs in options for symbol in rhs}
        # ignored terminals no rule names: one may be left out of a sentence, or put anywhere
        self.droppable_list = [t for t in self.ignore if lexer.names[t] not in in_rules]
        self.droppable = frozenset(self.droppable_list)

    def sentences(self) -> Iterator[bytes]:
        """Sentences without end (``sentence`` again and again)."""
        while True:
            yield self.sentence()

    def sentence(self) -> bytes:
        """One sentence: a derivation's terminals, each spelled by ``spell``.  Under longest match a
        lexeme must not be extended by the byte after it (``_spelled``); a derivation that cannot
        be spelled so is drawn again (the ``MAX_REDRAWS``-th spelling is kept as it is)."""
        for _ in range(MAX_REDRAWS):
            text, kept = self._spelled(self.terminals())
            if kept:
                break
        return text

    def _spelled(self, terminals: list[int]) -> tuple[bytes, bool]:
        """The terminals spelled, and whether every longest-match lexeme ends where its DFA cannot
        take the next byte.  Where it could, the next lexeme is spelled again (``RESPELLS`` times),
        then an ignored lexeme the sampler put before it is left out, or one is put between;
        failing that, False."""
        out: list[tuple[int, bytes, int]] = []  # (terminal, lexeme, end state)
        kept = True
        for terminal in terminals:
            lexeme = self.spell(terminal)
            for _ in range(RESPELLS if self.longest is not None else 0):
                if self._may_follow(_last(out), lexeme):
                    break
                lexeme = self.spell(terminal)
            while not self._may_follow(_last(out), lexeme) and out[-1][0] in self.droppable:
                out.pop()  # an ignored lexeme the sampler put there (a comment before more of its line)
            if not self._may_follow(_last(out), lexeme):
                between = self._separator(_last(out), lexeme)
                if between is not None:
                    out.append(between)
                elif terminal in self.droppable:
                    continue
                else:
                    kept = False
            out.append((terminal, lexeme, self._end_state(terminal, lexeme)))
        return b"".join(lexeme for _, lexeme, _ in out), kept

    def _may_follow(self, last: tuple[int, bytes, int] | None, lexeme: bytes) -> bool:
        """Whether ``lexeme`` may come right after ``last``, the last nonempty lexeme."""
        if last is None or not lexeme or self.longest is None or not self.longest[last[0]]:
            return True
        return self.lexer.dfa.transitions[last[2], lexeme[0]] == DEAD

    def _separator(self, last: tuple[int, bytes, int] | None, lexeme: bytes) -> tuple[int, bytes, int] | None:
        """An ignored terminal's lexeme that may go between ``last`` and ``lexeme``, or None."""
        for terminal in self.random.sample(self.droppable_list, len(self.droppable_list)):
            between = self.spell(terminal)
            entry = (terminal, between, self._end_state(terminal, between))
            if between and self._may_follow(last, between) and self._may_follow(entry, lexeme):
                return entry
        return None

    def _end_state(self, terminal: int, lexeme: bytes) -> int:
        return self.lexer.dfa.run(lexeme, int(self.lexer.starts[terminal]))

    def terminals(self) -> list[int]:
        """A leftmost derivation's terminal ids (ignored terminals inserted between them)."""
        out: list[int] = []
        stack: list[tuple[str, int, str]] = [(self.start, 0, "")]
        limits = self.limits
        max_depth = self.random.randint(min(SHALLOWEST, limits.max_depth), limits.max_depth)
        while stack:
            symbol, depth, parent = stack.pop()
            terminal = self.terminal.get(symbol)
            if terminal is not None:
                if out and self.ignore and self.random.random() < IGNORE_SHARE:
                    out.append(self.random.choice(self.ignore))
                out.append(terminal)
                continue
            closing = depth >= max_depth or len(out) >= limits.max_terminals
            rhs = self._least_used(parent, symbol, self.closing[symbol] if closing else self.rules[symbol])
            stack.extend((child, depth + 1, symbol) for child in reversed(rhs))
        return out

    def _least_used(self, parent: str, symbol: str, options: list[tuple[str, ...]]) -> tuple[str, ...]:
        """The option of ``symbol`` taken least often under ``parent`` so far (ties at random)."""
        used = self.used
        counts = [used.get((parent, symbol, rhs), 0) for rhs in options]
        least = min(counts)
        rhs = self.random.choice([rhs for rhs, n in zip(options, counts) if n == least])
        used[(parent, symbol, rhs)] = least + 1
        return rhs

    def spell(self, terminal: int) -> bytes:
        """A string of ``terminal``'s language: empty one time in two where it may be, else a
        random walk of its DFA states, then the shortest way to an accepting state."""
        transitions, accepting, distance = self.lexer.dfa.transitions, self.lexer.dfa.accepting, self.distance
        state = int(self.lexer.starts[terminal])
        if accepting[state] and self.random.random() < EMPTY_SHARE:
            return b""
        length = 1
        while length < self.limits.max_lexeme_bytes and self.random.random() < LONGER_SHARE:
            length += 1
        out = bytearray()
        while len(out) < length:
            byte = self._byte(transitions[state])
            if byte is None:
                break
            out.append(byte)
            state = int(transitions[state, byte])
        while not accepting[state]:  # the shortest way out: each byte one step closer
            row = transitions[state]
            closer = np.flatnonzero((row != DEAD) & (distance[np.maximum(row, 0)] == distance[state] - 1))
            byte = self._preferred(closer.tolist())
            out.append(byte)
            state = int(row[byte])
        return bytes(out)

    def _byte(self, row: np.ndarray) -> int | None:
        allowed = np.flatnonzero(row != DEAD).tolist()
        return self._preferred(allowed) if allowed else None

    def _preferred(self, allowed: list[int]) -> int:
        """A byte of ``allowed`` (not empty): a common one four times in five where there is one,
        else a printable one, else any."""
        allowed_set = set(allowed)
        common = [b for b in COMMON_BYTES if b in allowed_set]
        if common and self.random.random() < COMMON_SHARE:
            return self.random.choice(common)
        printable = [b for b in PRINTABLE_BYTES if b in allowed_set]
        return self.random.choice(printable or common or allowed)


def _last(out: list[tuple[int, bytes, int]]) -> tuple[int, bytes, int] | None:
    """The last nonempty lexeme of ``out``."""
    for entry in reversed(out):
        if entry[1]:
            return entry
    return None


def _least_height_rules(rules: dict[str, list[tuple[str, ...]]], terminals: dict[str, int]) -> dict[str, list[tuple[str, ...]]]:
    """Per nonterminal, its rules whose symbols are all of lower height (a terminal's height is
    0, a rule's one more than its highest symbol's, a nonterminal's its lowest rule's): always
    choosing among these ends every derivation.  Every nonterminal is productive (``trimmed``)."""
    height = {name: 0 for name in terminals}
    changed = True
    while changed:
        changed = False
        for lhs, options in rules.items():
            for rhs in options:
                if all(symbol in height for symbol in rhs):
                    h = 1 + max((height[symbol] for symbol in rhs), default=0)
                    if h < height.get(lhs, h + 1):
                        height[lhs] = h
                        changed = True
    return {lhs: [rhs for rhs in options if all(s in height and height[s] < height[lhs] for s in rhs)]
            for lhs, options in rules.items()}


def _distance_to_acceptance(dfa: ByteDFA) -> np.ndarray:
    """int64 (n_states,): the fewest bytes from each state to an accepting one (every state is
    live, so all are found): the levels of a backward breadth-first search."""
    offsets, sources = predecessor_lists(*successor_lists(dfa.transitions))
    distance = np.zeros(dfa.n_states, dtype=np.int64)
    for level, states in enumerate(breadth_first_levels(offsets, sources, np.flatnonzero(dfa.accepting))):
        distance[states] = level
    return distance

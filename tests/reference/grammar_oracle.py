"""Brute-force reference for grammars: a byte-level Earley recogniser over the grammar IR.

Semantics ("all splits").  The language of a ``Grammar`` is the context-free language in which
each terminal stands for its regex's whole language (any string the regex full-matches) and
the ignored terminals may occur, any number of times, between any two terminals and at the
start and end.  Nothing is lexed: every way of cutting the text into terminals counts.  This
is GBNF's own character-level meaning (llama.cpp explores every split), and it is the rule the
Earley path implements.  Engines with a lexer differ:

- llguidance lexes *greedily*: a lexeme is extended as long as it can be and ends only where
  no longer match is possible (with lazy lexemes as the exception), so it rejects texts that
  need a shorter split — ``arithmetic.gbnf``'s ``ws ::= [ \\t\\n]*`` before a required
  ``"\\n"`` makes it reject ``a=b\\n``, which this oracle (and llama.cpp) accepts.
- Lark's Earley parser with ``lexer="dynamic"`` matches each terminal's regex with ``re.match``
  at a position (one length per terminal: the one Python's backtracking regex engine picks,
  longest for greedy quantifiers); ``lexer="dynamic_complete"`` tries every length, which is
  this oracle's semantics.  Lark's standard/contextual lexers are greedy like llguidance's.

How.  Earley items carry a rule and a dot; a terminal being read is an item of its own
carrying the terminal's byte-DFA state (built with ``indexc.automaton.compile_regex``, which is
tested against ``re`` separately) and the position where it started.  Each input byte advances
the terminal items; a terminal item in an accepting state completes the items waiting for that
terminal where it started.  Nullable symbols are handled by Aycock and Horspool's rule (the
predictor steps over a nullable symbol at once).  Ignored terminals are compiled into the
grammar: every terminal ``T`` in a right-hand side becomes ``T ign*``, and the start becomes
``ign* start``.  Unproductive rules are dropped first, so every item left in a set can still be
completed: the text is a viable prefix iff the last set is not empty.

Longest match (a Lark grammar: ``Grammar.lexing == "longest_match"``).  A terminal whose DFA
does not accept the empty string and, from an accepting state, reaches only accepting states
ends only where its DFA accepts and cannot take the next byte (or at the end of the text); every
other terminal keeps all splits.  Here: a terminal item of such a terminal does not complete
when it reaches an accepting state; at the next byte, if the DFA dies on it from an accepting
state, the item completes *before* the byte (the completions are closed into a copy of the last
set, whose new terminal items then read the byte), and at the end of the text every accepting
one completes.  Which terminals end so is decided here from the oracle's own DFAs.

Nothing here is shared with indexc's Earley path (tables, lexer automaton, runtime parser).
Cost: items x bytes in pure Python — keep documents to a few kilobytes and vocabularies to a
few hundred tokens.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from indexc.automaton import DEAD, ByteDFA, compile_regex
from indexc.grammar.ir import Grammar, Rule

_START = "<oracle-start>"
_IGNORED = "<oracle-ignored>"


@dataclass
class _EarleySet:
    """Items of one position: rule items (rule, dot, origin), terminal items (terminal, state, origin)."""

    rule_items: set[tuple[int, int, int]] = field(default_factory=set)
    terminal_items: set[tuple[int, int, int]] = field(default_factory=set)
    waiting: dict[str, list[tuple[int, int, int]]] = field(default_factory=dict)  # symbol -> items before it


class GrammarOracle:
    """Viable-prefix and whole-text tests for one grammar under the all-splits semantics."""

    def __init__(self, grammar: Grammar):
        self.grammar = grammar
        productive = _productive_rules(grammar)
        self.language_is_empty = not any(rule.lhs == grammar.start for rule in productive)
        rules = _with_ignored_terminals(productive, grammar)
        self.rules: list[Rule] = rules
        self.rules_of: dict[str, list[int]] = {}
        for index, rule in enumerate(rules):
            self.rules_of.setdefault(rule.lhs, []).append(index)
        self.terminal_names = sorted(grammar.terminals)
        self.terminal_index = {name: i for i, name in enumerate(self.terminal_names)}
        self.dfas: list[ByteDFA] = [compile_regex(grammar.terminals[name].regex) for name in self.terminal_names]
        self.nullable = _nullable_symbols(rules, {name for name, dfa in zip(self.terminal_names, self.dfas) if dfa.accepting[0]})
        longest = getattr(grammar, "lexing", "all_splits") == "longest_match"
        self.longest = [longest and _one_byte_decides(dfa) for dfa in self.dfas]

    # --- public answers --------------------------------------------------------------------

    def is_prefix(self, data: bytes) -> bool:
        """Is ``data`` a prefix of some sentence of the grammar?"""
        return self.chart(data) is not None

    def accepts(self, data: bytes) -> bool:
        """Is ``data`` a whole sentence of the grammar?"""
        chart = self.chart(data)
        return chart is not None and self._is_complete(chart)

    def allowed_tokens(self, prefix: bytes, vocab_token_bytes: Sequence[bytes | None], eos_ids: Sequence[int] = ()) -> set[int]:
        """Ids of the tokens after which ``prefix`` + token is still a viable prefix; the EOS
        ids too when ``prefix`` is a whole sentence.  Empty or ``None`` tokens (special
        tokens) are never allowed.  Empty when ``prefix`` itself is not viable."""
        chart = self.chart(prefix)
        if chart is None:
            return set()
        allowed = {
            token_id
            for token_id, token in enumerate(vocab_token_bytes)
            if token and self._extend(chart, token) is not None
        }
        if self._is_complete(chart):
            allowed.update(eos_ids)
        return allowed

    def next_bytes(self, prefix: bytes) -> list[int]:
        """The bytes ``b`` for which ``prefix + b`` is still viable (for random walks)."""
        chart = self.chart(prefix)
        if chart is None:
            return []
        return [byte for byte in range(256) if self._scan(self._ended(chart, byte), byte) is not None]

    def random_sentence(self, rng, max_bytes: int = 200, stop_probability: float = 0.2) -> bytes | None:
        """A random walk of viable bytes that ends in a whole sentence (None if it did not
        reach one within ``max_bytes``): walk bytes uniformly, and stop with the given
        probability whenever the text is a sentence."""
        text = b""
        while len(text) <= max_bytes:
            if self.accepts(text) and rng.random() < stop_probability:
                return text
            choices = self.next_bytes(text)
            if not choices:
                return text if self.accepts(text) else None
            text += bytes([rng.choice(choices)])
        return None

    def chart(self, data: bytes) -> list[_EarleySet] | None:
        """The Earley sets after ``data`` (None as soon as the text cannot continue)."""
        if self.language_is_empty:
            return None
        first = _EarleySet()
        self._closure([], first, [(rule, 0, 0) for rule in self.rules_of[_START]])
        return self._extend([first], data)

    # --- Earley steps ----------------------------------------------------------------------

    def _extend(self, chart: list[_EarleySet], data: bytes) -> list[_EarleySet] | None:
        for byte in data:
            chart = self._ended(chart, byte)  # a new list where a lexeme ends, else the same
            following = self._scan(chart, byte)
            if following is None:
                return None
            chart = [*chart, following]
        return chart

    def _scan(self, chart: list[_EarleySet], byte: int) -> _EarleySet | None:
        current = chart[-1]  # with the longest-match lexemes that end before ``byte`` completed (``_ended``)
        following = _EarleySet()
        completed: list[tuple[int, int, int]] = []
        for terminal, state, origin in current.terminal_items:
            dfa = self.dfas[terminal]
            next_state = int(dfa.transitions[state, byte])
            if next_state == DEAD:
                continue
            following.terminal_items.add((terminal, next_state, origin))
            if dfa.accepting[next_state] and not self.longest[terminal]:
                name = self.terminal_names[terminal]
                completed.extend((rule, dot + 1, start) for rule, dot, start in chart[origin].waiting.get(name, ()))
        if not following.terminal_items:
            return None
        self._closure(chart, following, completed)
        return following

    def _closure(self, chart: list[_EarleySet], earley_set: _EarleySet, agenda: list[tuple[int, int, int]]) -> None:
        """Add ``agenda`` to the set after ``chart``, and all that prediction and completion derive."""
        position = len(chart)
        while agenda:
            item = agenda.pop()
            if item in earley_set.rule_items:
                continue
            earley_set.rule_items.add(item)
            rule_index, dot, origin = item
            rhs = self.rules[rule_index].rhs
            if dot == len(rhs):
                if origin != position:  # empty completions are taken care of by the predictor
                    lhs = self.rules[rule_index].lhs
                    agenda.extend((r, d + 1, o) for r, d, o in chart[origin].waiting.get(lhs, ()))
                continue
            symbol = rhs[dot]
            earley_set.waiting.setdefault(symbol, []).append(item)
            if symbol in self.nullable:
                agenda.append((rule_index, dot + 1, origin))
            if symbol in self.terminal_index:
                earley_set.terminal_items.add((self.terminal_index[symbol], 0, position))
            else:
                agenda.extend((rule, 0, position) for rule in self.rules_of.get(symbol, ()))

    def _ended(self, chart: list[_EarleySet], byte: int | None) -> list[_EarleySet]:
        """The chart with the longest-match lexemes that end before ``byte`` (None: the end of
        the text) completed into a copy of its last set; the chart itself if there are none."""
        current = chart[-1]
        completed = []
        for terminal, state, origin in current.terminal_items:
            dfa = self.dfas[terminal]
            ends = byte is None or dfa.transitions[state, byte] == DEAD
            if self.longest[terminal] and dfa.accepting[state] and ends:
                name = self.terminal_names[terminal]
                completed.extend((rule, dot + 1, start) for rule, dot, start in chart[origin].waiting.get(name, ()))
        if not completed:
            return chart
        copy = _EarleySet(set(current.rule_items), set(current.terminal_items),
                          {symbol: list(items) for symbol, items in current.waiting.items()})
        self._closure(chart[:-1], copy, completed)
        return [*chart[:-1], copy]

    def _is_complete(self, chart: list[_EarleySet]) -> bool:
        chart = self._ended(chart, None)
        return any(
            self.rules[rule].lhs == _START and dot == len(self.rules[rule].rhs) and origin == 0
            for rule, dot, origin in chart[-1].rule_items
        )


def _productive_rules(grammar: Grammar) -> list[Rule]:
    """The rules whose symbols all derive some finite string (fixpoint)."""
    productive = set(grammar.terminals)
    changed = True
    while changed:
        changed = False
        for rule in grammar.rules:
            if rule.lhs not in productive and all(symbol in productive for symbol in rule.rhs):
                productive.add(rule.lhs)
                changed = True
    return [rule for rule in grammar.rules if rule.lhs in productive and all(s in productive for s in rule.rhs)]


def _with_ignored_terminals(rules: list[Rule], grammar: Grammar) -> list[Rule]:
    """Add the start rule, and let ignored terminals follow every terminal and open the text."""
    if not grammar.ignore:
        return [Rule(_START, (grammar.start,)), *rules]
    wrapped: dict[str, str] = {}
    out = [Rule(_START, (_IGNORED, grammar.start)), Rule(_IGNORED, ())]
    out.extend(Rule(_IGNORED, (_IGNORED, name)) for name in grammar.ignore)
    for rule in rules:
        rhs = []
        for symbol in rule.rhs:
            if symbol in grammar.terminals:
                if symbol not in wrapped:
                    wrapped[symbol] = f"<{symbol} ignored*>"
                    out.append(Rule(wrapped[symbol], (symbol, _IGNORED)))
                symbol = wrapped[symbol]
            rhs.append(symbol)
        out.append(Rule(rule.lhs, tuple(rhs)))
    return out


def _nullable_symbols(rules: list[Rule], nullable_terminals: set[str]) -> set[str]:
    """Symbols that derive the empty string."""
    nullable = set(nullable_terminals)
    changed = True
    while changed:
        changed = False
        for rule in rules:
            if rule.lhs not in nullable and all(symbol in nullable for symbol in rule.rhs):
                nullable.add(rule.lhs)
                changed = True
    return nullable


def _one_byte_decides(dfa: ByteDFA) -> bool:
    """Whether one byte of lookahead decides the terminal's longest match, character by
    character: its start does not accept; from an accepting state, every state reached at the
    end of a whole UTF-8 character accepts; and a non-ASCII lead byte an accepting state takes
    is followed by every continuation UTF-8 allows after it (each character it starts is taken
    whole).  Written apart from ``indexc.grammar.longest_match``: states are walked with the
    number of continuation bytes still due, and a lead's characters are enumerated."""
    if dfa.accepting[0]:
        return False
    table = dfa.transitions.tolist()
    def due(byte: int) -> int:  # continuation bytes after a lead byte
        return 1 if 0xC0 <= byte < 0xE0 else 2 if 0xE0 <= byte < 0xF0 else 3 if byte >= 0xF0 else 0

    seen = {(q, 0) for q in range(dfa.n_states) if dfa.accepting[q]}
    stack = list(seen)
    while stack:
        state, pending = stack.pop()
        if pending == 0 and not dfa.accepting[state]:
            return False
        for byte in range(0x80, 0xC0) if pending else range(256):
            target = table[state][byte]
            if target == DEAD:
                continue
            lead = pending == 0 and dfa.accepting[state] and 0xC2 <= byte <= 0xF4
            if lead and not _takes_every_character(table, state, byte):
                return False
            step = (target, pending - 1 if pending else due(byte))
            if step not in seen:
                seen.add(step)
                stack.append(step)
    return True


def _takes_every_character(table: list[list[int]], state: int, lead: int) -> bool:
    """Whether every character whose UTF-8 starts with ``lead`` keeps ``state``'s DFA alive: the
    states after each byte position, over every byte that position takes (``_utf8_positions``)."""
    states = {table[state][lead]}
    for allowed in _utf8_positions(lead):
        following = set()
        for current in states:
            for byte in allowed:
                target = table[current][byte]
                if target == DEAD:
                    return False
                following.add(target)
        states = following
    return True


_POSITIONS: dict[int, list[set[int]]] = {}


def _utf8_positions(lead: int) -> list[set[int]]:
    """Per byte position of the characters that start with ``lead``, the bytes found there
    (enumerated from the code points, once per lead)."""
    found = _POSITIONS.get(lead)
    if found is None:
        found = []
        for code in range(0x80, 0x110000):
            if 0xD800 <= code < 0xE000:
                continue
            encoded = chr(code).encode("utf-8")
            if encoded[0] == lead:
                found += [set() for _ in range(len(encoded) - len(found))]
                for position, byte in enumerate(encoded):
                    found[position].add(byte)
        _POSITIONS[lead] = found
    return found[1:]

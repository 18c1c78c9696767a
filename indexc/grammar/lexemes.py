"""Lexemes: every terminal of a grammar as one byte DFA, all of them in one *lexer automaton*.

The Earley path never lexes greedily: a terminal may end at any byte where its DFA accepts
(the "all splits" rule of ``docs/grammar-path.md``), so the runtime follows several lexemes at
once, each a *thread* (terminal, DFA state).  To give those threads one table, the terminals'
minimal DFAs (``indexc.automaton.compile_regex``) are laid side by side: terminal ``i`` owns
the global states ``offsets[i] .. offsets[i+1]-1`` and starts at ``offsets[i]``; a transition
never leaves its terminal's block.  That disjoint union is an ordinary ``ByteDFA`` (every state
live), so the regex mask machinery (``indexc.masks.compute_mask_table``, shared, not copied)
gives, for each global state, the *in-lexeme mask*: the tokens whose bytes stay inside the
lexeme from that state.  It is computed with every state non-accepting, so no mask holds an
end-of-sequence id: whether the text may end is the parser's business, not the lexeme's.

A terminal with ``also`` regexes (a JSON Schema string with a ``pattern`` and a length bound
or a ``format``: an intersection the regex dialect cannot write) is the product of the DFAs
(``intersect``; ``excluding`` regexes enter it ``complemented``), minimised: the curie pattern of MaskBench's Github_hard---o82740 with
``maxLength: 146`` gives 849 byte states.

A terminal whose regex matches only the empty string is kept (its DFA is one accepting state
with no way out): the parser treats it as nullable and its thread never moves.  A terminal
with an empty language is a ``GrammarError`` naming the terminal.

Measured (Llama-3, 2 cores): see ``docs/grammar-path.md`` (the mask stage dominates the
compile; the DFAs of a grammar's terminals take a few ms in all).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from indexc.automaton.byte_dfa import DEAD, ByteDFA
from indexc.automaton.compile import compile_regex
from indexc.automaton.liveness import trim
from indexc.automaton.minimize import minimize
from indexc.automaton.product import product
from indexc.errors import LimitError, RegexError
from indexc.grammar.ir import GrammarError, Terminal
from indexc.masks import MaskOptions, MaskTable, compute_mask_table
from indexc.trie import TokenTrie
from indexc.vocab.model import Vocabulary


@dataclass(frozen=True)
class Lexer:
    """The lexer automaton: the terminals' DFAs side by side (global state numbering)."""

    names: tuple[str, ...]  # terminal names, in terminal-id order
    dfa: ByteDFA  # disjoint union; ``accepting`` is each lexeme's own accepting set
    offsets: np.ndarray  # int64 (n_terminals + 1,): terminal i owns states offsets[i]:offsets[i+1]

    @property
    def n_terminals(self) -> int:
        return len(self.names)

    @property
    def starts(self) -> np.ndarray:
        return self.offsets[:-1]

    @property
    def state_terminal(self) -> np.ndarray:
        """int32 (n_states,): the terminal each global state belongs to."""
        return np.repeat(np.arange(self.n_terminals, dtype=np.int32), np.diff(self.offsets))

    @property
    def nullable(self) -> np.ndarray:
        """bool (n_terminals,): terminals whose regex matches the empty string."""
        return self.dfa.accepting[self.starts]


TerminalDFAs = dict  # (regex, also, excluding) -> ByteDFA: one compile's terminals, by language


def build_lexer(terminals: list[Terminal], *, max_states: int, source: str,
                dfas: TerminalDFAs | None = None) -> Lexer:
    """Compile each terminal's regex and lay the DFAs side by side (``dfas``: the DFAs
    already compiled in this compile, reused: copies of one lexeme, ``follow_split``'s)."""
    if not terminals:
        raise GrammarError("the grammar uses no terminal: its language is at most the empty string, "
                           "which has no tokens to mask", source=source)
    blocks = terminal_dfas(terminals, max_states=max_states, source=source, dfas=dfas)
    sizes = np.array([block.n_states for block in blocks], dtype=np.int64)
    offsets = np.zeros(len(blocks) + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    transitions = np.concatenate([
        np.where(block.transitions == DEAD, DEAD, block.transitions + offset)
        for block, offset in zip(blocks, offsets[:-1].tolist())
    ]).astype(np.int32)
    accepting = np.concatenate([block.accepting for block in blocks]).astype(bool)
    return Lexer(tuple(t.name for t in terminals), ByteDFA(transitions, accepting), offsets)


def terminal_dfas(terminals: list[Terminal], *, max_states: int, source: str,
                  dfas: TerminalDFAs | None = None) -> list[ByteDFA]:
    """Each terminal's DFA, compiled once per language (``dfas`` keeps them across calls);
    an error names the terminal."""
    dfas = {} if dfas is None else dfas
    blocks: list[ByteDFA] = []
    for terminal in terminals:
        key = (terminal.regex, terminal.also, terminal.excluding)
        if key not in dfas:
            try:
                dfas[key] = terminal_dfa(terminal, max_states=max_states, source=source)
            except (RegexError, LimitError) as exc:
                also = "".join(f" & /{regex}/" for regex in terminal.also)
                also += "".join(f" & not /{regex}/" for regex in terminal.excluding)
                raise GrammarError(f"terminal {terminal.name} (/{terminal.regex}/{also}): {exc.message}",
                                   source=source) from None
        blocks.append(dfas[key])
    return blocks


def terminal_dfa(terminal: Terminal, *, max_states: int, source: str) -> ByteDFA:
    """The terminal's minimal byte DFA: its regex, intersected with each of ``terminal.also``
    and with the complement of each of ``terminal.excluding``."""
    dfa = compile_regex(terminal.regex, max_states=max_states, source=source)
    for regex in terminal.also:
        dfa = intersect(dfa, compile_regex(regex, max_states=max_states, source=source), max_states=max_states,
                        source=source)
    for regex in terminal.excluding:
        dfa = intersect(dfa, complemented(compile_regex(regex, max_states=max_states, source=source)),
                        max_states=max_states, source=source)
    return dfa


def complemented(dfa: ByteDFA) -> ByteDFA:
    """Every byte string ``dfa`` rejects: a sink for its dead moves, accepting flipped (not
    trimmed, so not a conventional ``ByteDFA``: only ``intersect``, which trims, takes it)."""
    sink = dfa.n_states
    transitions = np.full((sink + 1, 256), sink, dtype=np.int32)
    transitions[:sink] = np.where(dfa.transitions == DEAD, sink, dfa.transitions)
    return ByteDFA(transitions, np.append(~dfa.accepting.astype(bool), True))


def intersect(a: ByteDFA, b: ByteDFA, *, max_states: int, source: str) -> ByteDFA:
    """The product DFA of the texts both accept (trimmed, minimal); ``RegexError`` when empty."""
    built = product(a.transitions, a.accepting.astype(bool), b.transitions, b.accepting.astype(bool),
                    max_pairs=max_states)
    if built is None:
        raise LimitError(f"the intersection needs over {max_states:,} states", source=source)
    transitions, accepting = built
    trimmed = trim(transitions, accepting)
    if trimmed is None:
        raise RegexError("the intersection matches no string", source=source)
    minimal = trim(*minimize(*trimmed))  # minimise, then renumber breadth-first (canonical)
    return ByteDFA(*minimal)


def in_lexeme_masks(lexer: Lexer, trie: TokenTrie, vocab: Vocabulary, options: MaskOptions,
                    *, timings: dict | None = None) -> MaskTable:
    """Per global lexer state, the tokens whose bytes stay inside its lexeme (no eos ids).

    The table's ``accepting`` is all False (that is how eos is kept out of the masks); the
    lexer's own accepting flags are ``lexer.dfa.accepting``.
    """
    silent = ByteDFA(lexer.dfa.transitions, np.zeros(lexer.dfa.n_states, dtype=bool))
    return compute_mask_table(silent, trie, vocab, options, timings=timings)

"""One lexeme, several regexes: the intersection of string languages, built on automata.

A string may be constrained twice (and a key may have to avoid patterns, see below): a ``pattern`` and a length bound that the pattern does not
imply (``^([a-z0-9-]+):([a-z0-9.-]+)$`` with ``maxLength: 146``), a ``format`` and a length
(an ``email`` of at most 1,024 characters), a ``pattern`` and a ``format``.  The regex dialect
has no intersection and state elimination of the product can be exponential, so the lexeme is
kept as the tuple of its regexes (``expr.Intersection``) and each path builds the product
where it has automata:

- the DFA path (``to_automaton``): ``intersect_regexes`` builds each regex's minimal
  character-level DFA (``indexc.automaton.compile_atom_dfa``), cuts their alphabets into the
  common refinement (the non-empty intersections of one atom of each), searches the reachable
  state pairs one numpy step per breadth-first frontier, trims and minimises; the result
  (``CharDFA``) is embedded into the schema's NFA as it is (``shared_nfa`` gives each of its
  states one NFA state and each live cell one edge);
- the grammar path: the terminal carries the other regexes (``Terminal.also``) and
  ``indexc.grammar.lexemes`` intersects the byte DFAs.

A lexeme may also have ``excluded`` regexes (the keys of ``additionalProperties`` beside
``patternProperties``: any key that matches none of the patterns, when the complement is too
large to write as a regex, ``complement``): the product is then taken with the
``complemented`` DFA of each (completed with a sink, accepting states flipped).

Sizes: the product has at most (states of one) x (states of the other) states and is checked
against the automaton limits (``LimitError``).  The curie pattern above with ``maxLength:
146`` gives 849 character-level states (18 columns).  Two independent counters multiply, which makes
it large, and that is refused rather than approximated: an ``email`` (its host labels count
to 63) with ``maxLength: 1024``, or ``^(?:\\S+\\s+){0,49}\\S+$`` (a word count) with
``maxLength: 500``, need over 100,000 states.  An empty intersection is a ``RegexError``
(the lexeme matches nothing; a length range disjoint from the pattern's is caught earlier,
by ``strings``, as an empty string type).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from indexc.automaton.byte_dfa import DEAD
from indexc.automaton.code_point_sets import CodePointSet
from indexc.automaton.compile import compile_atom_dfa
from indexc.automaton.limits import AutomatonLimits
from indexc.automaton.liveness import trim
from indexc.automaton.minimize import minimize
from indexc.automaton.product import product as automaton_product
from indexc.errors import LimitError, RegexError
from indexc.jsonschema.complement import atom_sets
from indexc.jsonschema.json_text import ALL_CHARS


@dataclass(frozen=True, eq=False)
class CharDFA:
    """A minimal DFA over disjoint character sets: column ``c`` reads ``columns[c]``; start 0."""

    transitions: np.ndarray  # int32 (n_states, n_columns), DEAD = -1
    accepting: np.ndarray  # bool (n_states,)
    columns: tuple[CodePointSet, ...]

    @property
    def n_states(self) -> int:
        return int(self.transitions.shape[0])


def intersect_regexes(regexes: tuple[str, ...], limits: AutomatonLimits, *, excluded: tuple[str, ...] = (),
                      source: str = "<schema>") -> CharDFA:
    """The minimal character-level DFA of the texts every regex matches and no ``excluded``
    regex matches (whole-string)."""
    result = _char_dfa(regexes[0], limits, source)
    for regex in regexes[1:]:
        result = product(result, _char_dfa(regex, limits, source), limits, source=source)
    for regex in excluded:
        result = product(result, complemented(_char_dfa(regex, limits, source)), limits, source=source)
    return result


def complemented(dfa: CharDFA) -> CharDFA:
    """The DFA of every text ``dfa`` rejects: completed with a sink (and a column for the
    characters it never reads), accepting flipped.  Not trimmed: ``product`` trims."""
    other = ALL_CHARS.difference(CodePointSet.empty().union(*dfa.columns))
    columns = dfa.columns + ((other,) if not other.is_empty() else ())
    sink = dfa.n_states
    transitions = np.full((sink + 1, len(columns)), sink, dtype=np.int32)
    transitions[:sink, :dfa.transitions.shape[1]] = np.where(dfa.transitions == DEAD, sink, dfa.transitions)
    return CharDFA(transitions, np.append(~dfa.accepting, True), columns)


def _char_dfa(regex: str, limits: AutomatonLimits, source: str) -> CharDFA:
    atom_dfa, partition = compile_atom_dfa(regex, limits=limits, source=source)
    return CharDFA(atom_dfa.transitions, atom_dfa.accepting.astype(bool), tuple(atom_sets(partition)))


def product(a: CharDFA, b: CharDFA, limits: AutomatonLimits, *, source: str = "<schema>") -> CharDFA:
    """The intersection of two ``CharDFA`` languages (trimmed, minimal); ``RegexError`` if empty."""
    pairs = [(i, j, x.intersection(y)) for i, x in enumerate(a.columns) for j, y in enumerate(b.columns)]
    pairs = [(i, j, s) for i, j, s in pairs if not s.is_empty()]
    column_a = np.array([i for i, _, _ in pairs], dtype=np.int64)
    column_b = np.array([j for _, j, _ in pairs], dtype=np.int64)
    built = automaton_product(a.transitions, a.accepting, b.transitions, b.accepting,
                              column_a=column_a, column_b=column_b, max_pairs=limits.max_states)
    if built is None:
        raise LimitError(f"the intersection of a string's constraints needs over {limits.max_states:,} states",
                         source=source)
    transitions, accepting = built
    trimmed = trim(transitions, accepting)
    if trimmed is None:
        raise RegexError("the intersection of the string's constraints matches no string", source=source)
    minimal_transitions, minimal_accepting = minimize(*trimmed)
    return CharDFA(minimal_transitions, minimal_accepting.astype(bool), tuple(s for _, _, s in pairs))

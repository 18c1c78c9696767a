"""The driver: regex -> minimal, live, canonical byte DFA.

Stages (each its own module, in order):

1. ``normalize``      lexical layer: escapes, classes, flags, anchors -> structure tokens
2. ``parse``          tokens -> ``regex_tree`` (one iterative pass)
3. ``nfa``            Thompson NFA over character sets (size checked before building)
4. ``atom_partition`` the character sets cut the code points into atoms
5. ``determinize``    subset construction over atoms -> character-level DFA
6. ``liveness`` + ``round_refinement``  trim, then Hopcroft's refinement in numpy rounds
                      -> minimal character-level DFA (numbered by first member); before it,
                      ``size_bound`` refuses a DFA whose minimal form cannot fit ``max_states``
7. ``utf8_expansion`` relabel the UTF-8 block tree per state -> minimal byte DFA
8. ``liveness``       drop unreferenced chains, renumber breadth-first (start = 0)

Per-regex figures (states at each stage, milliseconds) are in the package's ``__init__``.
"""

from __future__ import annotations

from indexc import limits as compile_limits
from indexc.automaton.atom_partition import AtomPartition
from indexc.automaton.byte_dfa import ByteDFA
from indexc.automaton.determinize import AtomDFA, determinize
from indexc.automaton.limits import DEFAULT_MAX_STATES, AutomatonLimits
from indexc.automaton.liveness import trim
from indexc.automaton.round_refinement import minimize_in_rounds
from indexc.automaton.size_bound import check_minimal_size
from indexc.automaton.nfa import build_nfa
from indexc.automaton.normalize import normalize
from indexc.automaton.parse import parse_structure
from indexc.automaton.utf8_expansion import expand_utf8
from indexc.errors import LimitError, RegexError

__all__ = ["DEFAULT_MAX_STATES", "compile_regex", "compile_atom_dfa"]


def compile_regex(
    pattern: str,
    *,
    max_states: int = DEFAULT_MAX_STATES,
    source: str = "<regex>",
    limits: AutomatonLimits | None = None,
) -> ByteDFA:
    """The minimal byte DFA of ``pattern`` under whole-string (``re.fullmatch``) semantics.

    Every state is live, the start is 0, ``DEAD`` (-1) is the implicit dead state, states are
    numbered breadth-first (equal languages give equal arrays).  ``limits``, when given,
    replaces the limits derived from ``max_states``.  Raises ``RegexError`` (malformed or
    unsupported pattern, with the position; or a pattern that matches no string) and
    ``LimitError`` (a limit of ``limits``).
    """
    limits = limits or AutomatonLimits.for_max_states(max_states)
    atom_dfa, partition = compile_atom_dfa(pattern, limits=limits, source=source)
    compile_limits.check_time("minimisation")
    expanded = expand_utf8(atom_dfa, partition, limits, source=source)
    compile_limits.check_time("UTF-8 expansion")
    trimmed = trim(expanded.transitions, expanded.accepting)
    assert trimmed is not None, "a live character-level start expands to a live byte start"
    transitions, accepting = trimmed
    if len(transitions) > limits.max_states:
        raise LimitError(
            f"the byte-level DFA needs {len(transitions):,} states (limit {limits.max_states:,}); "
            "raise it with --max-states",
            source=source,
        )
    return ByteDFA(transitions, accepting)


def compile_atom_dfa(
    pattern: str, *, limits: AutomatonLimits, source: str = "<regex>"
) -> tuple[AtomDFA, AtomPartition]:
    """Stages 1-6: the minimal character-level DFA and its atom partition."""
    normalized = normalize(pattern, source=source)
    tree = parse_structure(normalized, source=source)
    compile_limits.check_time("parsing")
    nfa = build_nfa(tree, limits, source=source)
    partition = AtomPartition.of_sets(normalized.char_sets)
    dfa = determinize(nfa, partition, limits, source=source)
    trimmed = trim(dfa.transitions, dfa.accepting)
    if trimmed is None:
        raise RegexError("the regex matches no string", source=source)
    check_minimal_size(*trimmed, limits, source)
    transitions, accepting = minimize_in_rounds(*trimmed)
    return AtomDFA(transitions, accepting), partition

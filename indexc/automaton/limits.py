"""The explicit size limits of DFA construction (derived from ``indexc.limits.CompileLimits``).

A regex can ask for an automaton far larger than any index is worth building: bounded
repetitions multiply (``(a{1,1000}){1,1000}``), subset construction can be exponential
(``(a|b)*a(a|b){30}``), and Unicode classes multiply byte-level states by their UTF-8 trees.
Each stage checks its own limit *before* it allocates, and a limit that is hit is a
``LimitError`` naming the limit and how to raise it, never a hang or a memory blow-up.

- ``max_states``: states of the final byte DFA, and of the minimal character-level DFA on
  the way (which is never larger).  100,000 states already means a mask table of 100,000
  rows; the regexes of the benchmark set need 8 to 827.  ``--max-states`` sets it.
- ``max_subset_states``: states of the character-level DFA *before minimisation* (the subset
  construction's).  Defaults to ``4 * max_states``: a schema of optional properties in order
  reaches a subset of NFA states per set of properties that can still come, most of which
  minimisation merges.  Bounded by ``max_states`` itself, Github_hard o90957 (44 optional
  colour properties, three times) stopped at 100,000 subsets and went to the grammar path,
  whose minimal DFA is 15,569 states; six of the 48 grammar-path files of every 4th MaskBench
  file were such (minimal DFAs of 6,654-33,007 states, 2.5-4.9 s to compile).
- ``max_nfa_states``: Thompson NFA states after expanding bounded repetitions; checked from
  the syntax tree before building.  Defaults to ``4 * max_states`` (a bounded repetition's
  NFA is a small multiple of its DFA).
- ``max_table_cells``: cells of the character-level transition table (states x atoms), so
  thousands of atoms times many states are refused before ``numpy`` allocates them: 64M
  cells (256 MB), and never less than ``256 * max_states``, the largest byte table that
  ``max_states`` allows anyway.
"""

from __future__ import annotations

from dataclasses import dataclass

from indexc.limits import DEFAULT_MAX_STATES


@dataclass(frozen=True)
class AutomatonLimits:
    max_states: int = DEFAULT_MAX_STATES
    max_nfa_states: int = 4 * DEFAULT_MAX_STATES
    max_subset_states: int = 4 * DEFAULT_MAX_STATES
    max_table_cells: int = 64_000_000

    @classmethod
    def for_max_states(cls, max_states: int) -> AutomatonLimits:
        """Limits scaled from ``--max-states`` (the one knob the command line exposes)."""
        if max_states < 1:
            raise ValueError("max_states must be positive")
        return cls(
            max_states=max_states,
            max_nfa_states=4 * max_states,
            max_subset_states=4 * max_states,
            max_table_cells=max(cls.max_table_cells, 256 * max_states),
        )

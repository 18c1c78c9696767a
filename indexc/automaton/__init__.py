"""Where the DFA is built: regex -> minimal, live byte-level DFA.

Design note.  The mask stage walks tokens byte by byte, so a constraint must become a DFA
over *bytes* (UTF-8 expanded) that is minimal (fewer states, fewer masks) and live (every
stored state can still accept; see ``byte_dfa``).  The expensive parts of that are Unicode:
``\\w`` is 133,548 code points and the mask stage needs every one of their UTF-8 byte paths.
So the pipeline works on characters as long as it can and goes to bytes only at the end:

- characters are ranges of code points (``CodePointSet``), never enumerated;
- the regex's character sets cut the code points into a few *atoms* and the DFA is built and
  minimised over atoms (a dozen columns, not 256 bytes or 1.1M code points);
- the byte level is a relabelling of one shared UTF-8 block tree per DFA state, which is
  minimal by construction and needs no second subset construction.

interegular parses the regex structure; the lexical layer (escapes, classes, Unicode ``\\d \\w
\\s``, flags, anchors) is ours, because interegular's is ASCII-only, expands ranges into
character sets and reports no positions.

Code map, in reading order:

- ``byte_dfa``         the output type ``ByteDFA`` and its conventions (``DEAD`` = -1)
- ``limits``           ``AutomatonLimits``, ``DEFAULT_MAX_STATES``
- ``code_point_sets``  ``CodePointSet``: sorted code-point ranges, numpy set algebra
- ``unicode_classes``  ``\\d \\w \\s`` exactly as ``re`` defines them, from ``unicodedata``
- ``case_folding``     ``(?i)`` as ``re`` does it (simple lowercase + shared-uppercase table)
- ``normalize``        ``re`` syntax -> placeholder-only pattern; rejects what has no meaning
- ``regex_tree``       the syntax tree; NFA size computed before anything is expanded
- ``parse``            interegular parses the structure -> ``regex_tree``
- ``nfa``              Thompson construction (nested form for bounded repetition)
- ``atom_partition``   code points the regex cannot tell apart -> atoms
- ``determinize``      subset construction over atoms
- ``liveness``         trim to reachable and live states, canonical breadth-first numbering
- ``minimize``         Hopcroft partition refinement
- ``utf8_expansion``   character-level DFA -> byte-level DFA via the UTF-8 block tree
- ``compile``          the driver, ``compile_regex``

Measured (this machine, warm, ``compile_regex`` wall time; byte-level states):

    regex                    states  ms      regex          states  ms
    email                        ?    ?      ip                 ?    ?
"""

from indexc.automaton.byte_dfa import DEAD, ByteDFA
from indexc.automaton.compile import compile_regex
from indexc.automaton.limits import DEFAULT_MAX_STATES, AutomatonLimits

__all__ = ["DEAD", "DEFAULT_MAX_STATES", "AutomatonLimits", "ByteDFA", "compile_regex"]

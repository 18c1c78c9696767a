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

The whole front end is ours: the lexical layer (escapes, classes, Unicode ``\\d \\w \\s``,
flags, anchors) because interegular's is ASCII-only, expands ranges into character sets and
reports no positions; the structure parser because, once the lexical layer had reduced the
pattern to structure around set indices, interegular's general parser was most of a small
regex's front-end time (0.9-1.5 ms for ``date``, against 0.05 ms for ours).  interegular is
not imported by ``indexc`` any more (the test suite's brute-force reference still uses it).

Code map, in reading order:

- ``byte_dfa``         the output type ``ByteDFA`` and its conventions (``DEAD`` = -1)
- ``limits``           ``AutomatonLimits``, ``DEFAULT_MAX_STATES``
- ``code_point_sets``  ``CodePointSet``: sorted code-point ranges; Python merges for small
                       sets, numpy for large ones
- ``unicode_classes``  ``\\d \\w \\s`` exactly as ``re`` defines them, from ``unicodedata``
                       (shipped in ``data/unicode-classes-<version>.npy`` for speed)
- ``case_folding``     ``(?i)`` as ``re`` does it (simple lowercase + shared-uppercase table)
- ``normalize``        ``re`` syntax -> structure tokens over set indices; every syntax error
- ``regex_tree``       the syntax tree; NFA size computed before anything is expanded
- ``parse``            the tokens -> ``regex_tree`` (iterative, one pass)
- ``nfa``              Thompson construction (nested form for bounded repetition); ``TableBlock``:
                       states that move as a ready DFA's rows (embedded automata)
- ``atom_partition``   code points the regex cannot tell apart -> atoms
- ``determinize``      subset construction over atoms
- ``block_subsets``    its subsets that are one row of embedded automata in lockstep, a level
                       at a time in numpy
- ``liveness``         trim to reachable and live states, canonical breadth-first numbering
- ``minimize``         Hopcroft partition refinement
- ``round_refinement`` the same refinement in numpy rounds (every pending splitter at once),
                       for the large character-level DFAs of the compile paths
- ``utf8_expansion``   character-level DFA -> byte-level DFA via the UTF-8 block tree
- ``product``          reachable state pairs of two DFAs and their table (intersections)
- ``compile``          the driver, ``compile_regex``

Measured (2-core machine shared with other jobs, best of 15 runs, Unicode tables already
built; NFA states -> subsets -> minimal character-level states over atoms -> byte states):

    regex               NFA  subsets  chars  atoms  bytes    ms
    email                43       10      8      5      8   1.0
    complex_phone        87      108     48      5    827  12.7
    simple_phone         37       17     17      3     17   0.9
    date                162       44     35      9     35   2.0
    time                 39       11     10     11     38   2.0
    ip                  120       28     24      6     24   1.6
    url / https          52       78     13     10    342   7.4
    ssn                  29       12     12      2    201   3.2
    relation_extraction 1460     454    350     35    427  15.9

Per stage (ms, best of 75 warm runs in-process; before -> after the own structure parser,
the pure-Python paths for small sets and the class memo; "first" is the whole compile on the
first call of a fresh process, best of 5):

    regex       normalize   parse       NFA   atoms       determinize  minimize  UTF-8  first
    date        0.75->0.11  0.79->0.05  0.06  0.27->0.06  0.41         0.31      0.46   4.6->2.8
    time        0.23->0.04  0.18->0.02  0.02  0.30->0.15  0.09         0.10      1.02   8.9->8.2
    email       0.60->0.04  0.20->0.02  0.03  0.19->0.04  0.08         0.09      0.35   2.8->1.8
    ip          0.41->0.06  0.27->0.02  0.04  0.22->0.04  0.22         0.18      0.39   3.3->2.3
    color_list  0.43->0.08  0.76->0.05  0.06  0.21->0.07  0.31         0.18      0.44   5.2->4.1

so the front end (pattern -> NFA and atoms) went from 1.9 to 0.28 ms for ``date`` (0.6 ms on a
first call), and the rest of the compile is the subset construction, minimisation and UTF-8
expansion.  ``time``'s first call is mostly loading the shipped ``\\d \\s`` tables (5 ms, most
of it importing ``zipfile`` for ``np.load``).  The JSON Schema DFA path runs the same front
end per leaf regex: MaskBench's Github_easy o44020 (30 leaf regexes) normalises in 2 ms
instead of 29 and parses in 1 instead of 13.

The back end since (best of 75 warm runs, ms, before -> after): a partition of ASCII atoms
skips the UTF-8 block tree (``utf8_expansion``), and large character-level DFAs are minimised
in numpy rounds (``round_refinement``; the small ones above still take ``minimize``):

    regex       UTF-8       compile_regex
    date        0.42->0.04  1.64->1.38
    email       0.33->0.03  0.78->0.47
    ip          0.36->0.03  1.11->0.79
    float       0.33->0.03  0.75->0.41
    uuid        0.37->0.03  0.94->0.57
    time        0.92->0.97  1.56->1.67   (``\\s`` is not ASCII: the tree is still built; noise)

The JSON Schema DFA path's character-level DFAs are far larger (thousands of states over
dozens of atoms); its figures are in ``determinize``, ``round_refinement`` and
``jsonschema.to_automaton``.

The phone regex has 48 byte states when its classes are ASCII (``[0-9]``, ``[ \\t\\n\\r\\f\\v]``);
with Python's Unicode ``\\d`` and ``\\s`` it has the same 48 character states but 827 byte
states (the UTF-8 trees of 650 non-ASCII digits and 19 non-ASCII spaces).  One-time costs
per process: importing the package ~110 ms (numpy 95 ms), loading the
shipped ``\\d \\s \\w`` tables 7 ms, the case-folding table 60-100 ms (only for ``(?i)``);
a cold first compile of the phone regex takes 30 ms.
Hostile regexes fail before building anything: ``(a{1,1000}){1,1000}`` and
``(x|y){0,100000}`` raise ``LimitError`` (NFA size) in under 1 ms; ``(a|b)*a(a|b){20}``
reaches the 100,000-state limit of the subset construction in about 1 s.
"""

from indexc.automaton.byte_dfa import DEAD, ByteDFA
from indexc.automaton.compile import compile_regex
from indexc.automaton.limits import DEFAULT_MAX_STATES, AutomatonLimits

__all__ = ["DEAD", "DEFAULT_MAX_STATES", "AutomatonLimits", "ByteDFA", "compile_regex"]

"""Regression diffing of masks: which states and which tokens changed between two artifacts.

Design note.  Two artifacts are compared by what they serve, read through the runtime
(``indexc_runtime.load``), never by their bytes or state numbers: the two automata are walked
in lock-step from their starts (the product of their states, breadth-first, so each pair comes
with a shortest text that reaches it), and at every reachable pair the two masks are compared.
The report says which pairs differ, after which text, which tokens only A or only B allows,
the totals, and a shortest text one accepts and the other does not.  Different vocabularies
(a tokenizer upgrade) are compared by token bytes, with the tokens only one of them has listed
apart.  ``diff_builds`` does the same for every artifact of two ``indexc build`` directories.

A grammar artifact (a Lark or GBNF grammar, a recursive JSON Schema) is read through its parser:
its states are the parser's configurations, made byte by byte by a private parser memo, and
its masks are the ones a matcher serves there.  It may have endlessly many (one per nesting
depth), so a walk with a grammar side is bounded (``max_pairs`` pairs found by the search,
plus every prefix of the texts the caller gives) and the report says whether it covered every
reachable pair.  One language compiled on both paths (a regex and its grammar, a JSON Schema
with ``--mode dfa`` and ``--mode cfg``) can be compared, state by state: the tests do.

Code map, in reading order:

    errors.py        DiffError: an artifact that cannot be compared, and why
    parser_tables.py a grammar artifact as its parser steps it (ByteWalk), masks numbered as served
    tables.py        an artifact's automaton as the runtime reads it, with an explicit dead state;
                     read_tables: that, or parser_tables for a grammar artifact
    product.py       the breadth-first lock-step walk over state pairs (joint byte classes)
    bounded_product.py the same walk when a side is a grammar artifact: bounded, seeded with texts
    progress.py      how the slow parts of a grammar side are reported (the command line's status line)
    token_space.py   which token of A is which of B (ids, or bytes across vocabularies)
    compare.py       diff_artifacts -> ArtifactDiff (differing pairs, totals, language witness)
    vocabularies.py  an artifact's vocabulary: given, or found through its build manifest
    builds.py        diff_builds -> BuildDiff (appeared, disappeared, changed, each changed one diffed)
    report.py        the readable report and the JSON form
"""

from indexc.diff.builds import BuildDiff, diff_builds
from indexc.diff.compare import ArtifactDiff, PairDiff, diff_artifacts
from indexc.diff.errors import DiffError

__all__ = ["ArtifactDiff", "BuildDiff", "DiffError", "PairDiff", "diff_artifacts", "diff_builds"]

"""Regression diffing of masks: which states and which tokens changed between two artifacts.

Design note.  Two artifacts are compared by what they serve, read through the runtime
(``indexc_runtime.load``), never by their bytes or state numbers: the two automata are walked
in lock-step from their starts (the product of their states, breadth-first, so each pair comes
with a shortest text that reaches it), and at every reachable pair the two masks are compared.
The report says which pairs differ, after which text, which tokens only A or only B allows,
the totals, and a shortest text one accepts and the other does not.  Different vocabularies
(a tokenizer upgrade) are compared by token bytes, with the tokens only one of them has listed
apart.  ``diff_builds`` does the same for every artifact of two ``indexc build`` directories.
Grammar artifacts are refused as "not diffable yet" (their masks depend on a live parser).

Code map, in reading order:

    tables.py        an artifact's automaton as the runtime reads it, with an explicit dead state
    product.py       the breadth-first lock-step walk over state pairs (joint byte classes)
    token_space.py   which token of A is which of B (ids, or bytes across vocabularies)
    compare.py       diff_artifacts -> ArtifactDiff (differing pairs, totals, language witness)
    vocabularies.py  an artifact's vocabulary: given, or found through its build manifest
    builds.py        diff_builds -> BuildDiff (appeared, disappeared, changed, each changed one diffed)
    report.py        the readable report and the JSON form
"""

from indexc.diff.builds import BuildDiff, diff_builds
from indexc.diff.compare import ArtifactDiff, PairDiff, diff_artifacts
from indexc.diff.tables import DiffError

__all__ = ["ArtifactDiff", "BuildDiff", "DiffError", "PairDiff", "diff_artifacts", "diff_builds"]

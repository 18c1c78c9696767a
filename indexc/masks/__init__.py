"""Where masks are computed: byte DFA x token trie -> deduplicated state-to-mask table.

Design note.  A state's mask is the set of text tokens whose bytes keep the DFA alive
(plus the eos ids where the state accepts).  Computing it token by token costs
states x vocabulary x token length (outlines-core's original index); here the work is a
walk of the token trie, shared by all tokens with a common prefix and cut as soon as the
prefix dies, over byte *classes* so that tokens that act alike are walked once:

    alphabet.py         byte classes and dead classes of the DFA
    class_trie.py       the token trie mapped onto classes, dead subtrees pruned (the kept byte
                        nodes found once per trie and dead sets: every JSON Schema shares them)
    literals.py         literal muting: long literals' states leave the walk's classes
    slices.py           slices: token groups a wide self-loop accepts at once
    loop_regions.py     a self-loop's part of the trie, walked once per loop set; its exits
    loop_jumps.py       the same mid-walk: a wide loop's part of a subtree as two range lookups
    equivalence.py      states no string as deep as a node's subtree tells apart (one start);
                        on a crowded node, none of the classes found below it tells apart (all
                        the crowded groups refined together)
    first_step.py       the walks' starts: each distinct (state, root child or exit) once, tall ones split
    traverse.py         the level-by-level numpy frontier over (start, state, node); a chunk
                        whose frontier outgrows its budget walked again in halves
    dedupe.py           identical masks found on hit sets, before any token is expanded
    expand.py           hit sets -> token flags (short masks listed in batches, long ones gathered)
    token_sequences.py  class sequences of live tokens (what ``advance`` walks), and which are equal
    compute.py          the driver (chunking, joblib workers); long masks' shared node counts
    options.py          the switches (each technique can be turned off) and limits
    table.py            MaskTable, the stage's output handed to ``indexc.artifact``
"""

from indexc.masks.compute import compute_mask_table
from indexc.masks.options import MaskOptions
from indexc.masks.table import MaskTable

__all__ = ["MaskOptions", "MaskTable", "compute_mask_table"]

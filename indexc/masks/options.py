"""Switches and limits of the mask stage.

Every technique can be switched off so that the benchmark can show what it buys
(``indexc compile --no-byte-classes`` etc.); switching one off never changes a mask, only
the time and memory it takes to compute it (the tests check exactly that).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class MaskOptions:
    byte_classes: bool = True  # merge bytes that act alike in every state into one class
    dead_byte_pruning: bool = True  # drop every token holding a byte that is dead everywhere
    token_classes: bool = True  # walk tokens with the same class sequence once (class trie)
    mute_literals: bool = True  # states inside long literals leave the walk's classes (exact)
    min_literal_length: int = 3  # literal states in a run for it to count as long
    slices: bool = False  # tokens inside a wide self-loop added as one group (measured: no gain here)
    min_slice_tokens: int = 256  # a self-loop's slice must hold this many tokens to be kept
    first_step_sharing: bool = True  # origins with the same first step walk its subtree once (no output change)
    loop_regions: bool = True  # a wide self-loop's part of the trie walked once per loop set, and jumped over mid-walk (no output change)
    equivalent_starts: bool = True  # starts whose states are equivalent below their node walked once (no output change)
    jobs: int = 0  # worker processes for big compiles; 0 = all cores, 1 = in-process
    states_per_chunk: int = 1 << 20  # walk starts together at most (``compute.STARTS_PER_CHUNK`` bounds them first)
    parallel_min_seconds: float = 2.0  # walk time in process after which the chunks left go to workers

    def as_dict(self) -> dict:
        """The options recorded in the artifact (not ``jobs`` and chunking: they change only speed)."""
        return {k: v for k, v in asdict(self).items() if k in OUTPUT_SHAPING}


OUTPUT_SHAPING = ("byte_classes", "dead_byte_pruning", "token_classes", "mute_literals", "min_literal_length",
                  "slices", "min_slice_tokens")  # recorded in the header (they show in its statistics)

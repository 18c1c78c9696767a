"""The bounded lock-step walk: breadth-first over state pairs when a side is a grammar artifact.

Why bounded.  Two DFA artifacts have finitely many state pairs, and ``product`` visits all of
them.  A grammar artifact's states are its parser's configurations, one per nesting depth of a
recursive grammar (``[[[[``...), so the pairs can be endless.  This walk visits them in the same
breadth-first order, one byte per joint class (``product.joint_class_bytes``), and stops after
``max_pairs`` pairs: the comparison then covers every text up to the length where it stopped,
and says so (``complete`` False).  A grammar whose configurations are finite (a regular
language compiled on the grammar path, such as a JSON Schema compiled with ``--mode cfg``) is
walked to the end within a large enough bound, and then the comparison is exhaustive, as
between two DFAs.

Texts.  A breadth-first search of a grammar reaches only short texts before its bound (with
Llama-3's byte classes, C's 5,000 pairs are texts of two or three bytes).  The caller may give
texts (documents of the kind the artifact serves): every prefix of each is walked and compared
before the search, and is the witness of the pairs it reaches (so those witnesses are not
always the shortest).  Their pairs do not count against ``max_pairs``, which bounds the search.

Each step is a Python call per side (a table read once the configuration is made; the parser's
work the first time), so this walk is for the pairs a grammar side can have, not the millions a
pair of DFAs can: two DFA artifacts keep the vectorised ``product`` walk.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import numpy as np

from indexc.diff.product import ProductWalk, joint_class_bytes
from indexc.diff.progress import PROGRESS_EVERY, Progress
from indexc.diff.tables import DiffTables

DEFAULT_MAX_PAIRS = 2_000


@dataclass(frozen=True)
class BoundedWalk:
    walk: ProductWalk  # the pairs met: the start, the texts' prefixes, then the search's, in that order
    complete: bool  # the search ran out of new pairs before ``max_pairs``: every reachable pair is in ``walk``
    max_pairs: int


def walk_bounded(a: DiffTables, b: DiffTables, *, max_pairs: int = DEFAULT_MAX_PAIRS,
                 texts: tuple[bytes, ...] = (), progress: Progress | None = None) -> BoundedWalk:
    """Pairs of states reachable by one text from the two starts (``progress``: told every
    ``PROGRESS_EVERY`` pairs the search finds, of ``max_pairs``)."""
    pairs = _Pairs(a.start, b.start)
    for text in texts:
        pairs.follow(a, b, text)
    representative = joint_class_bytes(a.byte_classes, b.byte_classes).tolist()
    queue = deque(range(pairs.size))
    searched = 0
    while queue:
        pair = queue.popleft()
        state_a, state_b = pairs.state_a[pair], pairs.state_b[pair]
        for byte in representative:
            next_a, next_b = a.step(state_a, byte), b.step(state_b, byte)
            if (next_a == a.dead and next_b == b.dead) or (next_a, next_b) in pairs.number:
                continue
            if searched == max_pairs:
                return BoundedWalk(pairs.walk(), False, max_pairs)
            queue.append(pairs.add(next_a, next_b, pair, byte))
            searched += 1
            if progress is not None and searched % PROGRESS_EVERY == 0:
                progress("pairs", searched, max_pairs)
    return BoundedWalk(pairs.walk(), True, max_pairs)


class _Pairs:
    """The pairs met, numbered in the order met, each with the pair and byte it was reached from."""

    def __init__(self, start_a: int, start_b: int):
        self.state_a, self.state_b, self.parent, self.byte = [], [], [], []
        self.number: dict[tuple[int, int], int] = {}
        self.add(start_a, start_b, -1, -1)

    @property
    def size(self) -> int:
        return len(self.state_a)

    def add(self, state_a: int, state_b: int, parent: int, byte: int) -> int:
        number = self.number[state_a, state_b] = len(self.state_a)
        self.state_a.append(state_a)
        self.state_b.append(state_b)
        self.parent.append(parent)
        self.byte.append(byte)
        return number

    def follow(self, a: DiffTables, b: DiffTables, text: bytes) -> None:
        """Every prefix of ``text`` (until both sides are dead), its pairs reached by the text."""
        pair, state_a, state_b = 0, a.start, b.start
        for byte in text:
            state_a, state_b = a.step(state_a, byte), b.step(state_b, byte)
            if state_a == a.dead and state_b == b.dead:
                return
            found = self.number.get((state_a, state_b))
            pair = self.add(state_a, state_b, pair, byte) if found is None else found

    def walk(self) -> ProductWalk:
        return ProductWalk(*(np.array(values, dtype=np.int64)
                             for values in (self.state_a, self.state_b, self.parent, self.byte)))

"""The lock-step walk: breadth-first over pairs of states (A's, B's), one byte at a time.

Two artifacts number their states differently (another compiler version, another vocabulary,
an edited regex), so states cannot be matched by number; they are matched by *text*: the
pair (a, b) is reached when some text leads A to a and B to b.  Breadth-first order makes the
text recorded for each pair a shortest one (in bytes), which is the witness a reviewer reads.

Bytes are walked by *joint class*: two bytes that are in the same class of A and the same
class of B lead every pair to the same pair, so one byte per joint class (the most readable
one: printable ASCII first, then space, then the rest) stands for all of them.  Each level of
the search is one numpy step over (frontier pairs x joint classes); a pair is a code
``a * (n_B + 1) + b`` (each side has its dead state as its last index), new codes are found
with ``np.unique`` and checked against the codes seen (``SeenCodes``).  The pair where both
sides are dead is never entered: nothing can differ past it.

Cost: one level per byte of the longest shortest witness; the work is the number of reachable
pairs times the joint classes (identical automata: one pair per state).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from indexc.diff.errors import DiffError
from indexc.diff.tables import ArtifactTables

MAX_PAIRS = 5_000_000  # reachable pairs past this: refuse rather than exhaust memory
DENSE_SEEN_MAX = 64 << 20  # possible pairs up to which "seen" is one flag per pair


@dataclass(frozen=True)
class ProductWalk:
    """Reachable pairs in breadth-first order (index 0: the two start states)."""

    state_a: np.ndarray  # int64; A's dead state is ``tables_a.dead``
    state_b: np.ndarray
    parent: np.ndarray  # index of the pair this one was first reached from (-1 for the start)
    byte: np.ndarray  # the byte that led from the parent (-1 for the start)

    @property
    def size(self) -> int:
        return int(self.state_a.size)

    def witness(self, pair: int) -> bytes:
        """A shortest text leading both automata from their starts to pair ``pair``."""
        out = bytearray()
        while self.parent[pair] >= 0:
            out.append(int(self.byte[pair]))
            pair = int(self.parent[pair])
        return bytes(reversed(out))


def walk_product(a: ArtifactTables, b: ArtifactTables) -> ProductWalk:
    """Every pair of states reachable from the two starts by one text, shortest texts first."""
    width = b.dead + 1
    representative = joint_class_bytes(a.byte_classes, b.byte_classes)
    class_a, class_b = a.byte_classes[representative], b.byte_classes[representative]
    both_dead = a.dead * width + b.dead
    start = a.index.start_state * width + b.index.start_state
    codes, parents, bytes_ = [np.array([start])], [np.array([-1])], [np.array([-1])]
    seen = SeenCodes((a.dead + 1) * width)
    seen.add(codes[0])
    frontier, first = codes[0], 0  # ``first``: global index of the frontier's first pair
    total = 1
    while frontier.size:
        step = a.transitions[frontier // width][:, class_a] * width + b.transitions[frontier % width][:, class_b]
        flat = step.ravel()
        fresh, where = np.unique(flat, return_index=True)  # first occurrence: lowest parent, then class
        keep = (fresh != both_dead) & ~seen.contains(fresh)
        fresh, where = fresh[keep], where[keep]
        order = np.argsort(where, kind="stable")  # discovery order: parent first, then byte
        fresh, where = fresh[order], where[order]
        codes.append(fresh)
        parents.append(first + where // representative.size)
        bytes_.append(representative[where % representative.size])
        seen.add(fresh)
        first, total = total, total + fresh.size
        if total > MAX_PAIRS:
            raise DiffError(f"more than {MAX_PAIRS:,} reachable state pairs: too big to diff", source=b.path)
        frontier = fresh
    code = np.concatenate(codes)
    return ProductWalk(code // width, code % width, np.concatenate(parents), np.concatenate(bytes_))


class SeenCodes:
    """The pair codes met so far: a flag per code when the product is small, else a sorted array.

    The flags cost one byte per *possible* pair (up to ``DENSE_SEEN_MAX``: 64 MB) and make each
    level's check O(frontier); the sorted array costs only the pairs met but a merge per level,
    which a long chain of small levels (a 20,000-state literal) would pay 20,000 times.
    """

    def __init__(self, n_codes: int):
        self.flags = np.zeros(n_codes, dtype=bool) if n_codes <= DENSE_SEEN_MAX else None
        self.sorted = np.zeros(0, dtype=np.int64)

    def contains(self, codes: np.ndarray) -> np.ndarray:
        if self.flags is not None:
            return self.flags[codes]
        return np.isin(codes, self.sorted, assume_unique=True)

    def add(self, codes: np.ndarray) -> None:
        if self.flags is not None:
            self.flags[codes] = True
        else:
            self.sorted = np.union1d(self.sorted, codes)


def joint_class_bytes(classes_a: np.ndarray, classes_b: np.ndarray) -> np.ndarray:
    """One byte per (class in A, class in B) combination, the most readable one of each."""
    joint = classes_a * (int(classes_b.max()) + 1) + classes_b
    by_preference = np.argsort(_readability_rank(), kind="stable")
    _, first = np.unique(joint[by_preference], return_index=True)
    return np.sort(by_preference[first])


def _readability_rank() -> np.ndarray:
    """Lower is more readable: letters and digits, other printable ASCII, space, then the rest."""
    rank = np.full(256, 3, dtype=np.int64)
    printable = np.arange(0x21, 0x7F)
    rank[printable] = 1
    alnum = [c for c in printable if chr(c).isalnum()]
    rank[alnum] = 0
    rank[0x20] = 2
    return rank

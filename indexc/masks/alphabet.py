"""Byte classes: bytes that act alike in every state of the DFA share one class.

Two bytes are in one class iff their columns of the transition table are equal, so the
``(n_states, 256)`` table shrinks to ``(n_states, n_classes)`` with no loss.  Typical counts:
a digits-and-punctuation regex has 4-8 classes, the https regex of seed 002 about 15, JSON
schemas 20-60.  A class whose column is all ``DEAD`` is a *dead class*: a token holding one of
its bytes can never be allowed (dead-byte pruning, seed 002).

Classes are numbered in order of first appearance by byte value, so the numbering is a pure
function of the table (artifacts are byte-identical for identical inputs).  With byte classes
switched off every byte is its own class (the identity alphabet).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from indexc.arrays import unique_rows
from indexc.automaton.byte_dfa import DEAD, ByteDFA


@dataclass(frozen=True)
class ByteAlphabet:
    class_of_byte: np.ndarray  # uint8 (256,)
    class_transitions: np.ndarray  # int32 (n_states, n_classes)
    dead_class: np.ndarray  # bool (n_classes,): every state dies on this class

    @property
    def n_classes(self) -> int:
        return int(self.class_transitions.shape[1])


def byte_alphabet(dfa: ByteDFA, *, merge: bool = True, rows: np.ndarray | None = None) -> ByteAlphabet:
    """Compress the byte columns of ``dfa`` into classes (``merge=False``: one class per byte).

    ``rows`` (bool per state) restricts which states' rows define the classes: literal muting
    merges bytes that only the muted states tell apart.  The transitions of the other rows are
    then not exact, and the walk never reads them (it leaves class mode at a muted state).
    """
    table = dfa.transitions if rows is None else dfa.transitions[rows]
    columns = np.ascontiguousarray(table.T)  # (256, n_rows)
    if merge:
        first_index, inverse = unique_rows(columns)
        # Renumber classes by the smallest byte in each, so numbering is deterministic and stable.
        rank = np.empty(len(first_index), dtype=np.int64)
        rank[np.argsort(first_index, kind="stable")] = np.arange(len(first_index))
        class_of_byte = rank[inverse].astype(np.uint8)
        representative = np.sort(first_index)
    else:
        class_of_byte = np.arange(256, dtype=np.uint8)
        representative = np.arange(256)
    class_transitions = np.ascontiguousarray(dfa.transitions[:, representative], dtype=np.int32)
    dead_class = np.all(class_transitions == DEAD, axis=0)
    return ByteAlphabet(class_of_byte, class_transitions, dead_class)


def coarser_alphabet(alphabet: ByteAlphabet, rows: np.ndarray) -> ByteAlphabet:
    """``byte_alphabet(dfa, rows=rows)`` from the exact ``alphabet`` of the same DFA, the same
    arrays: fewer rows can only merge classes, so the walk's alphabet under literal muting is
    found among the ~50 class columns instead of the 256 byte columns (~2 ms less a JSON
    Schema, whose DFAs have ~1,000-2,000 states).

    Numbering agrees: the exact classes are numbered by their smallest byte, so a merged
    class's first exact class holds its smallest byte, and that class's column is the merged
    class's transitions."""
    columns = np.ascontiguousarray(alphabet.class_transitions[rows].T)  # (n_classes, n_rows)
    first_index, inverse = unique_rows(columns)
    rank = np.empty(len(first_index), dtype=np.int64)
    rank[np.argsort(first_index, kind="stable")] = np.arange(len(first_index))
    class_of_byte = rank[inverse][alphabet.class_of_byte].astype(np.uint8)
    class_transitions = np.ascontiguousarray(alphabet.class_transitions[:, np.sort(first_index)], dtype=np.int32)
    return ByteAlphabet(class_of_byte, class_transitions, np.all(class_transitions == DEAD, axis=0))


def dead_bytes(dfa: ByteDFA) -> np.ndarray:
    """Bool per byte: it kills the match in every state (a token holding it is never allowed)."""
    return np.all(dfa.transitions == DEAD, axis=0)


def dead_byte_pairs(alphabet: ByteAlphabet) -> np.ndarray:
    """Bool (256, 256): byte ``b2`` right after byte ``b1`` kills the match in every state.

    A token holding such a pair is never allowed, like a token holding a dead byte, and the
    class trie drops its subtree at the second byte.  The payoff is depth: a float regex keeps
    the digits, ``.`` and ``-`` alive, and Llama-3's runs of dots and dashes (up to 128 bytes)
    then kept ~100 trie levels alive at ~50 us of numpy calls each; ``..`` and ``--`` are
    dead pairs, so the build stops after a few levels (float: 3.9 -> 0.9 ms).

    Computed on byte classes, from the *full* alphabet (every state's row, exact): the class
    pair (c1, c2) is live iff some state s has ``T[s, c1] = s'`` live and ``T[s', c2]`` live.
    Each state's live classes are packed into bits; the row of c1 is the OR of the packed rows
    of the distinct states some state reaches on c1 (one ``bitwise_or.reduceat``): at most
    states x classes rows of ceil(C / 8) bytes.  This was a float matrix product
    (``reach @ live``), which BLAS ran on every core: on a loaded machine its thread start-up
    cost 36 ms for complex_phone (827 states; 1 ms on one thread) and 600 ms for the largest
    bench DFA (18.5k states x 95 classes); the bit rows take 0.3-0.8 ms and 49 ms.
    """
    table = alphabet.class_transitions
    n_states, n_classes = table.shape
    live = table != DEAD
    packed = np.packbits(live, axis=1, bitorder="little")  # (states, ceil(C / 8))
    states, first = np.nonzero(live)
    reach = np.zeros((n_classes, n_states), dtype=bool)  # reach[c1, s']: some state steps to s' on c1
    reach[first, table[states, first]] = True
    c1, reached = np.nonzero(reach)  # distinct pairs, grouped by c1, with no sort
    classes, group_start = np.unique(c1, return_index=True)
    row_bits = np.zeros((n_classes, packed.shape[1]), dtype=np.uint8)
    if c1.size:
        row_bits[classes] = np.bitwise_or.reduceat(packed[reached], group_start, axis=0)
    pair_live = np.unpackbits(row_bits, axis=1, count=n_classes, bitorder="little").astype(bool)
    cls = alphabet.class_of_byte.astype(np.intp)
    return ~pair_live[cls][:, cls]  # two 1-D gathers: the 2-D fancy index cost 0.35 ms, this 0.04

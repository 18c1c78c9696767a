"""Minimisation in vectorised rounds: Hopcroft's worklist, every pending splitter at once.

``minimize`` refines the partition one splitter block at a time, in Python: its cost is a few
Python operations per predecessor scanned, and on the JSON Schema DFA path the character-level
DFAs are large (MaskBench Github_easy o60843: 3,639 states, 51,169 transitions over 49
atoms, 32 ms; Github_medium o42810: 14,724 states, 307k transitions, 0.3 s).  Here a *round*
takes every block of the worklist at once, with numpy:

- the predecessors of all their states are gathered (one CSR expansion);
- each predecessor ``s`` gets a signature, the set of ``(symbol, block of the target)`` it
  has into those blocks, hashed to one uint64: the sum over the pairs of ``mix64(block + 1)``
  times the symbol's odd weight.  That sum adds up over any grouping of the symbols, so it is
  taken per (source, target) pair with the weights of its symbols summed once
  (``_Predecessors``): a string body moves on most symbols to one state, and Github_hard
  o12291's 1,354,260 moves are 169,311 pairs;
- each touched block splits by signature.  The part of a block no predecessor touched keeps
  the block's number; when there is none, the block's largest group does.  Every other part
  is a new block and goes on the worklist (Hopcroft's rule is "all parts but the largest";
  queueing the touched parts instead costs some extra work and keeps the result the same).

Rounds follow distinguishing depth (11 for "any JSON value", 20 for o60843, 263 for
o42810), each a few dozen numpy calls over the blocks in play.  Measured (process time, best of
3, against ``minimize`` on the same input): "any JSON value" 2,632 -> 461 states 10.6 -> 4.2
ms, Glaiveai2K send_email 1,146 -> 607 states 10.8 -> 3.3 ms, o60843 3,639 -> 1,131 states 34
-> 13 ms, o42810 14,724 -> 10,994 states 313 -> 66 ms.  Hashing (source, target) pairs instead
of moves (process time, min of 2, same input): o12291 84,903 -> 10,237 states 410 -> 248 ms,
o30745 44,624 -> 3,738 174 -> 95 ms, o2045 22,998 -> 8,190 116 -> 64 ms; Github_easy o9901
(94,939 -> 56,455 states, 1,032 rounds: a ``maxLength`` of 1,024 is distinguishing depth)
544 -> 507 ms, its rounds being numpy calls on small arrays.

Exactness does not rest on the hash: a signature collision could only leave two states
together that should be apart, so the result is checked to be a congruence (every state's
row, read in blocks, equals its block's; one vectorised comparison).  A congruence that
refines acceptance and never separates equivalent states (signatures of equivalent states
are equal) is the Myhill-Nerode partition, so a passing check proves minimality; a failing
one (never observed) falls back to ``minimize``.

The blocks are numbered by their first member (the start's block is 0), not in ``minimize``'s
order: callers whose output depends on the numbering (``jsonschema.complement`` writes a regex
by state elimination) keep ``minimize``; the regex and schema DFA paths renumber breadth-first
after the UTF-8 expansion, so their byte DFAs are the same whichever minimiser ran.
"""

from __future__ import annotations

import numpy as np

from indexc.arrays import expand_runs, groups_by_first_appearance, mix64, stable_argsort
from indexc.automaton.byte_dfa import DEAD
from indexc.automaton.minimize import minimize

# Under this many real transitions, numpy's per-call cost (a round is a few dozen calls) exceeds
# the Python work of ``minimize``: measured on the bench regexes' character-level DFAs, 28-666
# transitions take 0.05-0.25 ms with ``minimize``, 0.17-0.64 ms in rounds; the 1,225 of the
# relation-extraction regex 1.5 and 1.3 ms.
ROUNDS_FROM_TRANSITIONS = 2_000


def minimize_in_rounds(transitions: np.ndarray, accepting: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The quotient DFA (start = block of state 0 is numbered 0).  Input states must be live.

    Below ``ROUNDS_FROM_TRANSITIONS`` real transitions, and if the check fails, it is
    ``minimize``'s (numbered its way, also with the start's block 0)."""
    accepting = accepting.astype(bool)
    if np.count_nonzero(transitions != DEAD) < ROUNDS_FROM_TRANSITIONS:
        return minimize(transitions, accepting)
    block = _coarsest_partition(transitions, accepting)
    first, block_number = groups_by_first_appearance(block)
    quotient = _read_in_blocks(transitions[first], block_number)
    if not np.array_equal(_read_in_blocks(transitions, block_number), quotient[block_number]):
        return minimize(transitions, accepting)
    return quotient.astype(np.int32), accepting[first]


def _read_in_blocks(rows: np.ndarray, block_number: np.ndarray) -> np.ndarray:
    """Each cell's target block; ``DEAD`` (-1) reads the appended last slot, ``DEAD`` again."""
    return np.take(np.append(block_number, DEAD), rows)


class _Predecessors:
    """Per target state, its predecessors ``s`` with the symbols of ``s`` into it, as CSR arrays.

    A string body moves on most of its symbols to one state, so there are far fewer (source,
    target) pairs than moves (Github_hard o12291: 169,311 pairs for 1,354,260 moves): each pair
    carries the sum of its symbols' weights (``symbol_sums``), and a round hashes pairs."""

    def __init__(self, transitions: np.ndarray):
        n, k = transitions.shape
        cells = np.flatnonzero(transitions != DEAD)  # by source, then symbol
        targets = transitions.reshape(-1)[cells]
        order = stable_argsort(targets)  # by target, then source, then symbol
        cells, targets = cells[order], targets[order].astype(np.int64)
        sources = cells // k
        starts_pair = np.ones(len(cells), dtype=bool)
        starts_pair[1:] = (targets[1:] != targets[:-1]) | (sources[1:] != sources[:-1])
        starts = np.flatnonzero(starts_pair)
        with np.errstate(over="ignore"):
            weights = _symbol_weights(k)[cells % k]
            self.symbol_sums = np.add.reduceat(weights, starts) if len(starts) else weights
        self.sources = sources[starts]
        self.offsets = np.searchsorted(targets[starts], np.arange(n + 1))

    def of(self, states: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(index into ``states`` of the target, symbol weight sum, source) of every pair into ``states``."""
        owner, flat = expand_runs(self.offsets[states], self.offsets[states + 1] - self.offsets[states])
        return owner, self.symbol_sums[flat], self.sources[flat]


def _symbol_weights(n_symbols: int) -> np.ndarray:
    """An odd well-mixed uint64 per symbol: a state's moves on the symbols ``S`` into block ``b``
    hash to ``mix64(b + 1) * sum(weights[S])``, which adds up over any cut of ``S`` (two states with
    the same (symbol, block) pairs get the same sum however their targets group them)."""
    return mix64(np.arange(n_symbols, dtype=np.int64) + (1 << 40)) | np.uint64(1)


def _coarsest_partition(transitions: np.ndarray, accepting: np.ndarray) -> np.ndarray:
    """Block of each state; the implicit dead state is never a splitter (Hopcroft may leave
    one initial block out of the worklist: that one, so moves into it are never scanned)."""
    n = transitions.shape[0]
    predecessors = _Predecessors(transitions)
    block = np.where(accepting, 0, 1).astype(np.int64)
    sizes = np.bincount(block, minlength=2)
    hashes = np.zeros(n, dtype=np.uint64)
    touched_flags = np.zeros(n, dtype=bool)
    splitter_states = np.arange(n)
    while len(splitter_states):
        owner, symbol_sums, sources = predecessors.of(splitter_states)
        if not len(sources):
            break
        with np.errstate(over="ignore"):
            # + 1: mix64(0) is 0, which would make moves into block 0 invisible
            np.add.at(hashes, sources, mix64(block[splitter_states[owner]] + 1) * symbol_sums)
        touched_flags[sources] = True
        touched = np.flatnonzero(touched_flags)
        touched_flags[touched] = False
        signatures = hashes[touched]
        hashes[touched] = 0
        block, sizes, splitter_states = _split(block, sizes, touched, signatures)
    return block


def _split(block: np.ndarray, sizes: np.ndarray, touched: np.ndarray,
           signatures: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Split the touched states' blocks by signature; (blocks, sizes, the states of the new
    blocks, which are the next round's splitters)."""
    group, group_block, group_size = _groups(block[touched], signatures)
    keeps_number = _keepers(group_block, group_size, sizes)
    moved = np.flatnonzero(~keeps_number)
    number = group_block.copy()
    number[moved] = len(sizes) + np.arange(len(moved))
    sizes = np.concatenate((sizes, group_size[moved]))
    np.subtract.at(sizes, group_block[moved], group_size[moved])
    block[touched] = number[group]
    return block, sizes, touched[~keeps_number[group]]


def _groups(old: np.ndarray, signatures: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(group of each touched state, block of each group, size of each group): states of one
    block with one signature form a group; groups come sorted by block."""
    order = np.lexsort((signatures, old))
    starts_group = np.ones(len(order), dtype=bool)
    starts_group[1:] = (old[order][1:] != old[order][:-1]) | (signatures[order][1:] != signatures[order][:-1])
    group = np.empty(len(order), dtype=np.int64)
    group[order] = np.cumsum(starts_group) - 1
    group_block = old[order][starts_group]
    return group, group_block, np.bincount(group, minlength=len(group_block))


def _keepers(group_block: np.ndarray, group_size: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Which group keeps its block's number: none if some of the block was not touched (that
    part keeps it), else the block's largest group."""
    starts_block = np.ones(len(group_block), dtype=bool)
    starts_block[1:] = group_block[1:] != group_block[:-1]
    block_index = np.cumsum(starts_block) - 1
    untouched = sizes[group_block[starts_block]] - np.add.reduceat(group_size, np.flatnonzero(starts_block))
    largest_first = np.lexsort((-group_size, block_index))
    leads = np.ones(len(largest_first), dtype=bool)
    leads[1:] = block_index[largest_first][1:] != block_index[largest_first][:-1]
    leader = largest_first[leads]
    keeps_number = np.zeros(len(group_block), dtype=bool)
    keeps_number[leader] = untouched[block_index[leader]] == 0
    return keeps_number

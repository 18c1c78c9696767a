"""UTF-8 expansion: character-level DFA (over atoms) -> byte-level DFA.

A UTF-8 sequence is a lead byte followed by 0 to 3 continuation bytes of 6 payload bits
each, so the code-point space is a 64-ary tree: a 2-byte lead selects a block of 64 code
points, a 3-byte lead a block of 4,096, a 4-byte lead a block of 262,144, and each
continuation byte selects one of 64 sub-blocks.  Hence the *block tree* of an atom partition:

- a block (of 64**level code points) lying inside one elementary interval is *uniform*: it is
  one atom, and needs no node of its own;
- a block cut by an interval boundary is *mixed*: a node with 64 children (atoms, uniform
  sub-blocks, or mixed sub-blocks).  ``\\w`` has 313 mixed 64-blocks, 26 mixed 4096-blocks,
  1 mixed 262144-block; ``\\d`` 59, 10 and 1.

The tree depends only on the atom partition, never on the DFA state.  The byte DFA of one
character state ``s`` is that tree with every atom ``a`` *relabelled* by ``s``'s transition on
``a``: a continuation-byte state is a tree node seen from ``s``.  All states are relabelled at
once with numpy gathers, level by level from the leaves up, and rows that come out equal are
one byte state (hash-consing by row content, across states and across levels' uniform
chains).  An all-``DEAD`` row is ``DEAD``.

Why not the classic "UTF-8 range sequences" split (e.g. ``[E1-EC][80-BF][80-BF]``) inserted
into a trie per state: that is a Python loop over ~1,500 sequences per state for ``\\w``, and
suffix sharing needs an extra hashing pass; relabelling a shared tree is a few array
gathers and ``np.unique`` calls for all states together.

Minimality: if the character-level DFA is minimal, so is the result.  Continuation states at
different depths accept strings with different numbers of leading continuation bytes, a
character state accepts none, and equal-depth states with the same future have, by induction
from the leaves, the same row; the tests check this claim against ``minimize``.

Encoding validity is structural: lead bytes C0, C1, F5-FF and stray continuation bytes are
``DEAD``; the overlong halves under E0 and F0 are forced ``DEAD``; surrogates (under ED) and
code points past U+10FFFF (under F4) are in no atom.

Only the (state, node) pairs where the state has a live transition on some atom under the
node are relabelled (found by joining the state's live atoms with each node's subtree
atoms); every other pair is ``DEAD``.  A dense (states x nodes) relabelling would cost
states x 2,000 nodes for an enum of 1,000 CJK words, nearly all of them dead.

A partition whose atoms are all ASCII (``float``, ``email``, ``ip``, ``uuid``: no ``\\d``,
``\\s``, ``\\w``, ``.`` or negated class) skips the tree: its byte table is the character
table gathered over bytes 0-127, 0.05 ms instead of the tree's 0.7 ms of numpy calls.

The lead-byte columns are written as slices (each level's lead bytes are one run) and the ASCII
ones are one column gather of the character table: MaskBench Github_easy o60843's 1,131
character states -> 1,474 byte states in 3.4 ms instead of 5.9.

A partition where one atom holds every non-ASCII scalar and no other atom holds any (a JSON
Schema's: its string bodies and key complements take all of them; all 25 median MaskBench
schemas, 63 of 73 expansions of every 25th file) skips the tree too: each distinct target of
that atom gets the same seven states, written as slices (``_one_wide_atom_byte_dfa``): the
median schemas' expansions ~3.5 -> ~0.3 ms, the DFA stage's median 25.8 -> 22.6 ms (one pass
per process, process time, per-file min of 4 interleaved runs against the session's start:
29.7 -> 22.6).

Cost (all states together): 0.4-3 ms for most benchmark regexes, 7 ms for the phone regex
(48 character states -> 827 byte states: ``\\d`` and ``\\s`` have 669 non-ASCII members);
memory is bounded by relabelling at most ``_CHUNK_CELLS`` cells at a time.
"""

from __future__ import annotations

import numpy as np

from indexc.arrays import expand_runs, sorted_unique, unique_rows
from indexc.automaton.atom_partition import NO_ATOM, AtomPartition
from indexc.automaton.byte_dfa import DEAD, ByteDFA
from indexc.automaton.determinize import AtomDFA
from indexc.automaton.limits import AutomatonLimits
from indexc.errors import LimitError

_FANOUT = 64
_CONTINUATION = slice(0x80, 0xC0)
_CHUNK_CELLS = 1 << 20




class BlockTree:
    """The mixed blocks of an atom partition, as child-code matrices per level.

    A child code at level ``L`` is an atom (``0 <= code < n_atoms``: a uniform block of that
    atom), ``NO_ATOM`` (nothing matches there) or ``n_atoms + i`` (mixed node ``i`` of level
    ``L``).  ``nodes[L]`` holds the children (codes at level ``L - 1``) of level-``L`` nodes.
    """

    def __init__(self, partition: AtomPartition):
        self.partition = partition
        self.n_atoms = partition.n_atoms
        cuts = partition.starts[partition.starts > 0]
        self.mixed = {level: self._mixed_blocks(cuts, level) for level in (1, 2, 3)}
        self.nodes: dict[int, np.ndarray] = {}
        for level in (1, 2, 3):
            children = self.mixed[level][:, None] * _FANOUT + np.arange(_FANOUT)
            self.nodes[level] = self.codes(level - 1, children)
        # Lead bytes E0 and F0 only allow the upper part of their block (no overlong forms).
        self.e0 = self._append_masked(2, overlong_children=32)
        self.f0 = self._append_masked(3, overlong_children=16)
        self.root_levels, self.root_codes = self._root()
        self.subtree_atoms: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        for level in (1, 2, 3):
            self.subtree_atoms[level] = self._subtree_atoms(level)

    @staticmethod
    def _mixed_blocks(cuts: np.ndarray, level: int) -> np.ndarray:
        """Blocks cut inside, except those only an overlong sequence would reach (the
        64-blocks of ASCII, and block 0 at levels 2 and 3, replaced by the masked E0/F0 nodes)."""
        blocks = sorted_unique(cuts[cuts % _FANOUT**level != 0] // _FANOUT**level)
        return blocks[blocks >= (2 if level == 1 else 1)]

    def codes(self, level: int, blocks: np.ndarray) -> np.ndarray:
        """Child codes of the given blocks at ``level`` (code points when ``level == 0``)."""
        blocks = np.asarray(blocks, dtype=np.int64)
        atoms = self.partition.atom_of(blocks * _FANOUT**level)
        if level == 0:
            return atoms
        mixed = self.mixed[level]
        i = np.minimum(np.searchsorted(mixed, blocks), max(len(mixed) - 1, 0))
        is_mixed = (mixed[i] == blocks) if len(mixed) else np.zeros(blocks.shape, bool)
        return np.where(is_mixed, self.n_atoms + i, atoms)

    def _append_masked(self, level: int, overlong_children: int) -> int:
        row = self.codes(level - 1, np.arange(_FANOUT))
        row[:overlong_children] = NO_ATOM
        self.nodes[level] = np.vstack([self.nodes[level], row[None, :]])
        return self.n_atoms + len(self.nodes[level]) - 1

    def _subtree_atoms(self, level: int) -> tuple[np.ndarray, np.ndarray]:
        """``(node, atom)`` pairs, sorted by node: the atoms anywhere under each node."""
        codes = self.nodes[level].reshape(-1)
        parent = np.repeat(np.arange(len(self.nodes[level])), _FANOUT)
        direct = (codes >= 0) & (codes < self.n_atoms)
        nodes, atoms = [parent[direct]], [codes[direct]]
        if level > 1:
            child_nodes, child_atoms = self.subtree_atoms[level - 1]
            via = codes >= self.n_atoms
            offsets = np.searchsorted(child_nodes, np.arange(len(self.nodes[level - 1]) + 1))
            child = codes[via] - self.n_atoms
            owner, flat = expand_runs(offsets[child], offsets[child + 1] - offsets[child])
            nodes.append(parent[via][owner])
            atoms.append(child_atoms[flat])
        keys = sorted_unique(np.concatenate(nodes) * self.n_atoms + np.concatenate(atoms))
        return keys // self.n_atoms, keys % self.n_atoms

    def _root(self) -> tuple[np.ndarray, np.ndarray]:
        """For each byte: the level of what it leads to (-1: invalid lead) and its code."""
        levels = np.full(256, -1, dtype=np.int64)
        codes = np.full(256, NO_ATOM, dtype=np.int64)
        levels[:0x80], codes[:0x80] = 0, self.codes(0, np.arange(0x80))
        levels[0xC2:0xE0], codes[0xC2:0xE0] = 1, self.codes(1, np.arange(0x02, 0x20))
        levels[0xE0:0xF0], codes[0xE0:0xF0] = 2, self.codes(2, np.arange(0x00, 0x10))
        levels[0xF0:0xF5], codes[0xF0:0xF5] = 3, self.codes(3, np.arange(0x00, 0x05))
        codes[0xE0], codes[0xF0] = self.e0, self.f0
        return levels, codes


def expand_utf8(
    dfa: AtomDFA, partition: AtomPartition, limits: AutomatonLimits, *, source: str = "<regex>"
) -> ByteDFA:
    """The byte-level DFA: minimal, live and reachable if ``dfa`` is (start = 0)."""
    if _is_ascii(partition):
        return _ascii_byte_dfa(dfa, partition)
    wide = _wide_atom(partition)
    if wide is not None:
        return _one_wide_atom_byte_dfa(dfa, partition, wide, limits, source)
    tree = BlockTree(partition)
    relabel = _Relabeling(dfa, tree, limits, source)
    for level in (1, 2, 3):
        relabel.level(level)
    return relabel.assemble()


def _is_ascii(partition: AtomPartition) -> bool:
    """Whether no atom holds a code point from U+0080 on (the interval holding U+0080 and all
    after it are ``NO_ATOM``)."""
    first = int(np.searchsorted(partition.starts, 0x80, side="right")) - 1
    return bool((partition.interval_atom[first:] == NO_ATOM).all())


def _ascii_byte_dfa(dfa: AtomDFA, partition: AtomPartition) -> ByteDFA:
    """The expansion of a DFA whose atoms are all ASCII: a byte below 0x80 is its character,
    every other byte is ``DEAD``, so the table is one gather (the block tree would have no
    live node and add no state)."""
    return ByteDFA(_ascii_table(dfa, partition, dfa.n_states), dfa.accepting.astype(bool))


def _ascii_table(dfa: AtomDFA, partition: AtomPartition, n_rows: int) -> np.ndarray:
    """A byte table of ``n_rows`` rows, all ``DEAD`` but the character states' ASCII columns."""
    n = dfa.n_states
    atoms = partition.atom_of(np.arange(0x80))
    with_dead = np.hstack([dfa.transitions, np.full((n, 1), DEAD, np.int32)])
    transitions = np.full((n_rows, 256), DEAD, dtype=np.int32)
    transitions[:n, :0x80] = with_dead[:, np.where(atoms == NO_ATOM, partition.n_atoms, atoms)]
    return transitions


def _wide_atom(partition: AtomPartition) -> int | None:
    """The atom holding every non-ASCII scalar (U+0080-U+D7FF and U+E000-U+10FFFF, with some
    ASCII), when one atom holds them all and none else holds any; else None."""
    first = int(np.searchsorted(partition.starts, 0x80, side="right")) - 1
    atom = int(partition.interval_atom[first])
    if atom == NO_ATOM:
        return None
    above = partition.starts[first + 1:].tolist(), partition.interval_atom[first + 1:].tolist()
    return atom if above == ([0xD800, 0xE000, 0x110000], [NO_ATOM, atom, NO_ATOM]) else None


# The states one target ``t`` of the wide atom needs, in this order: a continuation byte then
# t ("U1"), two ("U2"), three ("U3"), and the four lead bytes whose second byte is restricted
# (E0: no overlong form; ED: no surrogate; F0: no overlong form; F4: nothing past U+10FFFF),
# each with its second bytes and what they lead to (0: U1, 1: U2).
_WIDE_LEADS = ((0xE0, slice(0xA0, 0xC0), 0), (0xED, slice(0x80, 0xA0), 0), (0xF0, slice(0x90, 0xC0), 1),
               (0xF4, slice(0x80, 0x90), 1))
_WIDE_KINDS = 3 + len(_WIDE_LEADS)


def _one_wide_atom_byte_dfa(dfa: AtomDFA, partition: AtomPartition, wide: int, limits: AutomatonLimits,
                            source: str) -> ByteDFA:
    """The expansion when one atom holds every non-ASCII scalar (``_wide_atom``: every partition
    of the 25 median MaskBench schemas, whose string bodies and key complements take all of
    them): its block tree has only the fixed nodes of UTF-8 itself, so each distinct target
    ``t`` of that atom gets the same seven states (``_WIDE_LEADS``), written as slices, instead
    of the tree's relabelling (~3.5 -> ~0.3 ms for 1,100 character states).  The same language
    and, the character DFA being minimal, the same minimal DFA up to numbering: no two of the
    seven states of one target, or of two targets, have the same future."""
    n = dfa.n_states
    target = dfa.transitions[:, wide]
    targets = sorted_unique(target[target != DEAD])
    m = len(targets)
    if n + _WIDE_KINDS * m > limits.max_states:
        raise LimitError(f"the byte-level DFA needs more than {limits.max_states:,} states "
                         f"(limit {limits.max_states:,}); raise it with --max-states", source=source)
    transitions = _ascii_table(dfa, partition, n + _WIDE_KINDS * m)
    first = n + m * np.arange(_WIDE_KINDS)[:, None] + np.arange(m)  # (kind, k): the state of kind for targets[k]
    sources = np.flatnonzero(target != DEAD)
    rank = np.searchsorted(targets, target[sources])
    u1, u2, u3 = first[0], first[1], first[2]
    transitions[sources, 0xC2:0xE0] = u1[rank][:, None]
    transitions[sources, 0xE1:0xED] = u2[rank][:, None]
    transitions[sources, 0xEE:0xF0] = u2[rank][:, None]
    transitions[sources, 0xF1:0xF4] = u3[rank][:, None]
    transitions[u1, _CONTINUATION] = targets[:, None]
    transitions[u2, _CONTINUATION] = u1[:, None]
    transitions[u3, _CONTINUATION] = u2[:, None]
    for kind, (lead, second, below) in enumerate(_WIDE_LEADS, start=3):
        transitions[sources, lead] = first[kind][rank]
        transitions[first[kind], second] = first[below][:, None]
    accepting = np.zeros(len(transitions), dtype=bool)
    accepting[:n] = dfa.accepting
    return ByteDFA(transitions, accepting)


class _Relabeling:
    """Byte-state ids of (character state, tree entity), level by level, hash-consed.

    ``U(t, L)``, the chain "``L`` more continuation bytes of any value, then state ``t``",
    is what a uniform block becomes; chains are allocated only when something refers to
    them, and a relabelled mixed row that comes out constant *is* such a chain (that keeps
    the result minimal)."""

    def __init__(self, dfa: AtomDFA, tree: BlockTree, limits: AutomatonLimits, source: str):
        self.dfa, self.tree, self.limits, self.source = dfa, tree, limits, source
        n = dfa.n_states
        # with_dead[s, a]: the target of atom a from s; the extra last column is NO_ATOM.
        self.with_dead = np.hstack([dfa.transitions, np.full((n, 1), DEAD, np.int32)]).astype(np.int64)
        self.n_ids = n
        self.chains = {level: np.full(n, DEAD, dtype=np.int64) for level in (1, 2, 3)}
        self.chains[0] = np.arange(n, dtype=np.int64)
        self.chain_target: dict[int, int] = {}  # chain id -> t
        # Relabelled nodes, sparse: sorted keys state * n_nodes + node, and their ids.  A
        # (state, node) pair not listed has no live atom under the node: it is DEAD.
        self.node_keys: dict[int, np.ndarray] = {}
        self.node_ids: dict[int, np.ndarray] = {}
        self.row_blocks: list[tuple[np.ndarray, np.ndarray]] = []  # (ids, continuation rows)
        self.live_cells = np.nonzero(dfa.transitions != DEAD)  # (state, atom) of every live move

    def chain_ids(self, level: int, targets: np.ndarray) -> np.ndarray:
        """Ids of ``U(t, level)`` for an array of targets (``DEAD`` stays ``DEAD``)."""
        if level == 0:
            return targets
        chains = self.chains[level]
        live = targets[targets != DEAD]
        missing = sorted_unique(live[chains[live] == DEAD])
        if len(missing):
            below = self.chain_ids(level - 1, missing)
            ids = self.allocate(len(missing))
            chains[missing] = ids
            self.chain_target.update(zip(ids.tolist(), missing.tolist()))
            self.row_blocks.append((ids, np.repeat(below[:, None], _FANOUT, axis=1)))
        return np.where(targets == DEAD, DEAD, chains[np.maximum(targets, 0)])

    def allocate(self, count: int) -> np.ndarray:
        ids = np.arange(self.n_ids, self.n_ids + count, dtype=np.int64)
        self.n_ids += count
        if self.n_ids > self.limits.max_states:
            raise LimitError(
                f"the byte-level DFA needs more than {self.limits.max_states:,} states "
                f"(limit {self.limits.max_states:,}); raise it with --max-states",
                source=self.source,
            )
        return ids

    def resolve(self, level: int, states: np.ndarray, codes: np.ndarray) -> np.ndarray:
        """Byte-state ids of child ``codes`` (at ``level``) seen from character ``states``.

        Atom cells and node cells are looked up apart, each only where it is one (looking
        every cell up both ways and choosing cost more: the three levels of Github_easy
        o9901's 56,455 character states 120 -> 81 ms, process time, min of 3)."""
        a = self.tree.n_atoms
        states, codes = np.broadcast_arrays(states, codes)
        ids = np.full(codes.shape, DEAD, dtype=np.int64)  # NO_ATOM stays DEAD
        is_atom = (codes >= 0) & (codes < a)
        ids[is_atom] = self.chain_ids(level, self.with_dead[states[is_atom], codes[is_atom]])
        if level > 0 and len(self.node_keys[level]):
            is_node = codes >= a
            ids[is_node] = self.node_lookup(level, states[is_node], codes[is_node] - a)
        return ids

    def node_lookup(self, level: int, states: np.ndarray, nodes: np.ndarray) -> np.ndarray:
        keys, ids = self.node_keys[level], self.node_ids[level]
        wanted = states * len(self.tree.nodes[level]) + nodes
        pos = np.minimum(np.searchsorted(keys, wanted), len(keys) - 1)
        return np.where(keys[pos] == wanted, ids[pos], DEAD)

    def relevant_pairs(self, level: int) -> np.ndarray:
        """Sorted keys ``state * n_nodes + node`` of the pairs where the state has a live
        transition on some atom under the node (all other pairs relabel to DEAD)."""
        tree_nodes, tree_atoms = self.tree.subtree_atoms[level]
        by_atom = np.argsort(tree_atoms, kind="stable")
        offsets = np.searchsorted(tree_atoms[by_atom], np.arange(self.tree.n_atoms + 1))
        states, atoms = self.live_cells
        owner, flat = expand_runs(offsets[atoms], offsets[atoms + 1] - offsets[atoms])
        return sorted_unique(states[owner] * len(self.tree.nodes[level]) + tree_nodes[by_atom][flat])

    def level(self, level: int) -> None:
        children = self.tree.nodes[level]
        keys = self.relevant_pairs(level)
        ids = np.empty(len(keys), dtype=np.int64)
        table: dict[bytes, int] = {}
        chunk = max(1, _CHUNK_CELLS // _FANOUT)
        for lo in range(0, len(keys), chunk):
            part = keys[lo:lo + chunk]
            states, nodes = part // len(children), part % len(children)
            rows = self.resolve(level - 1, states[:, None], children[nodes])
            ids[lo:lo + chunk] = self.intern(level, rows, table)
        self.node_keys[level], self.node_ids[level] = keys, ids

    def intern(self, level: int, rows: np.ndarray, table: dict[bytes, int]) -> np.ndarray:
        """Ids of level-``level`` rows: ``DEAD`` if all dead, a chain if constant on a chain
        (or on a character state at level 1), else the hash-consed id of the row."""
        ids = np.full(len(rows), DEAD, dtype=np.int64)
        alive = np.flatnonzero((rows != DEAD).any(axis=1))
        if not len(alive):
            return ids
        alive_rows = rows[alive]
        first, inverse = unique_rows(alive_rows)
        unique = alive_rows[first]
        unique_ids = np.full(len(unique), DEAD, dtype=np.int64)
        for i in np.flatnonzero((unique == unique[:, :1]).all(axis=1)).tolist():
            value = int(unique[i, 0])
            t = value if level == 1 else self.chain_target.get(value)
            if t is not None:
                unique_ids[i] = self.chain_ids(level, np.array([t]))[0]
        pending = np.flatnonzero(unique_ids == DEAD)
        keys = [unique[i].tobytes() for i in pending.tolist()]
        found = np.array([table.get(key, DEAD) for key in keys], dtype=np.int64)
        new = np.flatnonzero(found == DEAD)
        if len(new):
            found[new] = self.allocate(len(new))
            table.update(zip([keys[i] for i in new.tolist()], found[new].tolist()))
            self.row_blocks.append((found[new], unique[pending[new]]))
        unique_ids[pending] = found
        ids[alive] = unique_ids[inverse]
        return ids

    def assemble(self) -> ByteDFA:
        n = self.dfa.n_states
        levels, codes = self.tree.root_levels, self.tree.root_codes
        states = np.arange(n)[:, None]
        roots = []
        for level in (0, 1, 2, 3):  # may allocate the last chains
            cols = np.flatnonzero(levels == level)
            lead_bytes = slice(int(cols[0]), int(cols[-1]) + 1)  # each level's lead bytes are one run
            if level == 0:  # ASCII: each byte is its atom's column (NO_ATOM: the DEAD column)
                ascii_atoms = codes[lead_bytes]
                ids = self.with_dead[:, np.where(ascii_atoms < 0, self.tree.n_atoms, ascii_atoms)]
            else:
                ids = self.resolve(level, states, codes[lead_bytes][None, :])
            roots.append((lead_bytes, ids))
        transitions = np.full((self.n_ids, 256), DEAD, dtype=np.int32)
        for lead_bytes, ids in roots:
            transitions[:n, lead_bytes] = ids
        if self.row_blocks:
            ids = np.concatenate([ids for ids, _ in self.row_blocks])
            transitions[ids, _CONTINUATION] = np.concatenate([rows for _, rows in self.row_blocks])
        accepting = np.zeros(self.n_ids, dtype=bool)
        accepting[:n] = self.dfa.accepting
        return ByteDFA(transitions, accepting)

"""Loop exits: where the live walk starts for a configuration that loops on most bytes.

A configuration ``C`` inside a wide lexeme (a JSON string body, a comment) goes back to itself
on a set ``L`` of byte classes.  Every trie node whose path is made of ``L`` only keeps ``C``
alive, so all the tokens ending there are allowed, and the only tokens left to find are below
the *exits*: the children of the root and of those nodes by a class outside ``L``, from which
the walk goes on in configuration ``C``.  The region depends on ``L`` alone (``find_region``):
every node off the loop excludes its subtree, an id range in the trie's depth-first numbering,
so the region is one difference array over the nodes (and one over the tokens): ~7-20 ms a
region for Llama-3's 274k nodes (a breadth-first search took ~20 ms; same regions and exits,
checked on random loop sets).  The walk then starts at the exits (a few thousand nodes: tokens
with a quote or a backslash) instead of at the root, where it had to go down the whole region
because nearly every subtree of it holds some exit token, so coverage pruning rarely applied.

Where the regions come from (``LoopExits``):

- *stored*: the compiler runs ``find_region`` for the loop set ``L(q) = {c : next[q, c] == q}``
  of every lexer state (what ``walker._loop_of`` asks of a non-accepting one, and ``_starts``
  at a string body's root or in an identifier or XML text, where an accepting state's
  configuration loops on ``L(q)`` too) and stores the wide ones (format version 3, sections ``loop_*``,
  ``docs/artifact-format.md`` section 9).  ``StoredRegions`` decodes one on its first use
  (unpack two bit rows, ~0.1 ms) and checks it against the trie then; ``verify`` rebuilds each
  and compares.  That moves the region build (the cold p99 of the JSON and C samples) to the
  compiler.
- *built*: any other loop set (a configuration-level loop at ``_starts``, a version 2 file) is
  built on its first use, as before, and kept in a per-index cache of ``MAX_REGIONS`` sets.  A
  lexer state's own set that a format 3 file does not store is narrow, since the compiler
  stores every wide one: ``of_lexer_loop`` (the walker's question) answers it without a build.

Only regions of at least ``MIN_REGION_NODES`` nodes are used (a small loop is cheaper to walk
than to look up); the compiler reads the same constant, so a test that lowers it gets every
loop stored too.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import numpy as np

from indexc_runtime.errors import ArtifactError

if TYPE_CHECKING:
    from indexc_runtime.container import Container

MIN_REGION_NODES = 4_096
MAX_REGIONS = 64
COUNT_CHUNK = 1 << 15  # trie nodes per bincount in class_node_counts
_count = np.count_nonzero  # ``ndarray.any`` goes through a Python wrapper


class TrieLike(Protocol):
    """The trie arrays a region needs: the runtime's ``TrieArrays`` or the compiler's ``TrieWalkArrays``."""

    node_class: np.ndarray
    child_offsets: np.ndarray  # (the root's children: ``LoopExits``)
    children: np.ndarray
    token_start: np.ndarray
    subtree_token_end: np.ndarray
    sorted_tokens: np.ndarray


@dataclass(frozen=True)
class Region:
    """A loop set's region, what the compiler stores: the rest follows from the trie."""

    in_region: np.ndarray  # bool (trie nodes,): the node's whole path is made of loop classes
    region_tokens: np.ndarray  # bool (trie tokens,): in the trie's token order, the token ends in the region
    exit_nodes: np.ndarray  # int64: the nodes off the loop whose parent is in the region (or the root), ascending


@dataclass(frozen=True)
class Exits:
    token_flags: np.ndarray  # uint8 (flag row length,): 1 for every token ending in the region
    nodes: np.ndarray  # int64: the exit nodes, ascending (depth-first order)
    classes: np.ndarray  # int64: their byte classes
    in_region: np.ndarray  # bool (trie nodes,): the node's whole path is made of loop classes
    region_tokens: np.ndarray  # bool (trie tokens,): in the trie's token order, the token ends in the region


def class_node_counts(trie: TrieLike, n_classes: int) -> np.ndarray:
    """int64 (n_classes,): trie nodes by the class of their edge (the root counted in class 0).

    ``find_region``'s first test from it costs ~5 us instead of a gather of every node's
    class (~0.9 ms for Llama-3), which a caller asking many small loop sets pays each time
    (the compiler for rfc.lark's ~2,000 lexer states: 13 ms -> <1 ms).  Counted in chunks of
    32k nodes: ``bincount`` widens its input to int64, and one 2.2 MB temporary for Llama-3's
    274k nodes cost ~1.8 ms in a fresh process (page faults) against ~0.6 ms in chunks."""
    counts = np.zeros(n_classes, dtype=np.int64)
    for start in range(0, trie.node_class.size, COUNT_CHUNK):
        counts += np.bincount(trie.node_class[start:start + COUNT_CHUNK], minlength=n_classes)[:n_classes]
    return counts


def find_region(trie: TrieLike, loop: np.ndarray, min_nodes: int | None = None,
                class_nodes: np.ndarray | None = None) -> Region | None:
    """The region of the loop class set ``loop`` (bool per class), or None below ``min_nodes``
    nodes (default ``MIN_REGION_NODES``, read at the call: tests lower it).  ``class_nodes``
    (``class_node_counts``) makes a small set's answer cheap.

    The region is "no node off the loop on the path".  Every node off the loop excludes its
    subtree; only the *topmost* ones matter (the exits), and they are found in token order
    without locating any subtree's end among the nodes: nodes are numbered depth-first and
    every subtree holds a token, so a node lies in the subtree of an earlier node ``b`` iff its
    token run starts before ``b``'s subtree's runs end.  An off-loop node is an exit iff its
    runs start at or after the running maximum of the earlier off-loop nodes' subtree ends.
    Then the exits' subtrees (disjoint id ranges, one ``searchsorted`` for their ends) are cut
    out of the nodes and of the token order (``_outside``).  Locating every
    off-loop node's end (85k of Llama-3's 274k nodes for an identifier's loop) cost ~3 ms of
    a ~12 ms build.
    """
    min_nodes = MIN_REGION_NODES if min_nodes is None else min_nodes
    by_loop = class_nodes[loop].sum() if class_nodes is not None else np.count_nonzero(loop[trie.node_class])
    if int(by_loop) < min_nodes:  # the region holds only nodes by a loop class
        return None
    off = ~loop[trie.node_class]
    off[0] = False  # the root has no edge
    bad = np.flatnonzero(off)
    token_start = trie.token_start
    runs_start, runs_end = token_start[bad], trie.subtree_token_end[bad]
    before = np.maximum.accumulate(runs_end)  # the furthest subtree end among bad[0..i]
    top = np.ones(bad.size, dtype=bool)
    top[1:] = runs_start[1:] >= before[:-1]
    exits = bad[top]
    runs_start, runs_end = runs_start[top], runs_end[top]
    end = np.searchsorted(token_start, runs_end, side="left")  # first node after each exit's subtree
    in_region = _outside(exits, end, off.size)
    in_region[0] = False  # the root has no path
    if int(np.count_nonzero(in_region)) < min_nodes:
        return None
    return Region(in_region, _outside(runs_start, runs_end, trie.sorted_tokens.size), exits)


def _outside(starts: np.ndarray, ends: np.ndarray, size: int) -> np.ndarray:
    """bool (size,): outside every range ``[starts[i], ends[i])``, the ranges disjoint and
    ascending (the exits' subtrees): one ``repeat`` of alternating flags, where a difference
    array allocated and summed three int64 arrays of the trie's size (~2 ms of first touches
    in a fresh process)."""
    bounds = np.empty(2 * starts.size + 2, dtype=np.int64)
    bounds[0], bounds[-1] = 0, size
    bounds[1:-1:2], bounds[2:-1:2] = starts, ends
    flags = np.zeros(bounds.size - 1, dtype=bool)
    flags[::2] = True
    return np.repeat(flags, np.diff(bounds))


class StoredRegions:
    """The regions an artifact holds (format version 3), by loop set; each decoded on first use.

    ``rows`` maps a loop set's key (``np.packbits`` of its bool row) to its row in the
    sections.  The load checked the cheap bounds (``from_container``); the packed bits are
    checked when a row is decoded (``region``), and ``verify`` rebuilds every region.
    """

    def __init__(self, loops: np.ndarray, node_bits: np.ndarray, token_bits: np.ndarray,
                 exit_offsets: np.ndarray, exit_nodes: np.ndarray, source: str):
        self.loops = loops.astype(bool)
        self._node_bits, self._token_bits = node_bits, token_bits
        self.token_ids: StoredTokenIds | None = None  # the regions' tokens by id (version 6)
        self._exit_offsets, self._exit_nodes = exit_offsets, exit_nodes
        self._source = source
        keys = np.packbits(self.loops, axis=1)  # each row padded on its own: a row's np.packbits
        self.rows = {keys[k].tobytes(): k for k in range(len(keys))}
        if len(self.rows) != len(self.loops):
            raise ArtifactError("a loop class set is stored twice", source=source, section="loop_classes")
        # a format 3 file stores the region of every lexer state's self-loop set that is wide,
        # so such a set that is not stored is narrow (``LoopExits.of_lexer_loop``)
        self.lexer_loops_complete = True

    @classmethod
    def empty(cls, n_classes: int) -> "StoredRegions":
        """No stored region (a version 2 file)."""
        none = np.zeros((0, 0), dtype=np.uint8)
        stored = cls(np.zeros((0, n_classes), dtype=np.uint8), none, none, np.zeros(1, dtype=np.int32),
                     np.zeros(0, dtype=np.int32), "")
        stored.lexer_loops_complete = False
        return stored

    @classmethod
    def from_container(cls, c: "Container", n_nodes: int) -> "StoredRegions":
        """The ``loop_*`` sections with their bounds checked: classes 0/1, exit offsets rising
        from 0 to the exit count, exit nodes in ``[1, n_nodes)`` and ascending within a loop."""
        if c.header.format_version < 3:  # sections of that name in an older file are not this format's
            return cls.empty(c.header.dims["n_classes"])
        loops = c.array("loop_classes")
        c.check_below("loop_classes", loops, 2)
        offsets, exits = c.items("loop_exit_offsets"), c.array("loop_exit_nodes")
        if offsets[0] != 0 or offsets[-1] != exits.size or any(map(operator.gt, offsets, offsets[1:])):
            raise c.error(f"offsets must rise from 0 to {exits.size}", "loop_exit_offsets")
        c.check_below("loop_exit_nodes", exits, n_nodes)
        if exits.size and not _exits_ascend_within_loops(exits, offsets):
            raise c.error("exit nodes must be trie nodes other than the root, ascending within a loop",
                          "loop_exit_nodes")
        stored = cls(loops, c.array("loop_region_nodes"), c.array("loop_region_tokens"), c.array("loop_exit_offsets"),
                     exits, c.source)
        if "loop_region_token_ids" in c.header.sections:
            stored.token_ids = StoredTokenIds(c.array("loop_region_token_ids"), c.header.vocab_size,
                                              c.array("special_ids"), c.source)
        return stored

    def region(self, row: int, trie: TrieLike) -> Region:
        """Row ``row`` decoded, with the checks that keep the walk on its rails (no padding bit
        set, the root not in the region, every exit off the loop; ~0.1 ms for Llama-3).  That the
        region is the loop's (each node's whole path by loop classes) is ``check_all``'s: a
        full rebuild."""
        n_nodes, n_tokens = trie.node_class.size, trie.sorted_tokens.size
        in_region = _unpacked(self._node_bits[row], n_nodes, self._source, "loop_region_nodes")
        region_tokens = _unpacked(self._token_bits[row], n_tokens, self._source, "loop_region_tokens")
        exits = self._exit_nodes[self._exit_offsets[row]:self._exit_offsets[row + 1]].astype(np.int64)
        if in_region[0]:
            raise ArtifactError("the root is in the region (it never is)", source=self._source, section="loop_region_nodes")
        if self.loops[row][trie.node_class[exits]].any():
            raise ArtifactError("an exit node's class is a loop class", source=self._source, section="loop_exit_nodes")
        return Region(in_region, region_tokens, exits)

    def check_all(self, trie: TrieLike) -> None:
        """Every stored region equals the one ``find_region`` builds, whatever its size
        (``verify``: ~10 ms a region for Llama-3)."""
        for row, loop in enumerate(self.loops):
            stored, built = self.region(row, trie), find_region(trie, loop, min_nodes=0)
            if built is None or not (np.array_equal(stored.in_region, built.in_region)
                                     and np.array_equal(stored.region_tokens, built.region_tokens)
                                     and np.array_equal(stored.exit_nodes, built.exit_nodes)):
                raise ArtifactError(f"loop {row}: the stored region is not the loop's region", source=self._source,
                                    section="loop_region_nodes")
            if self.token_ids is not None:
                self.token_ids.check(row, trie.sorted_tokens[built.region_tokens])


class StoredTokenIds:
    """A version 6 file's ``loop_region_token_ids``: each stored region's tokens by id, a mask row.

    What the walk ORs into a mask where it jumps to a loop's exits (``Exits.token_flags``).
    Versions 3-5 store the tokens in the trie's order only, and their first use scattered them
    by id (~0.3-0.45 ms of a fresh process for Llama-3's 128k tokens; unpacking this row costs
    ~20 us)."""

    def __init__(self, rows: np.ndarray, vocab_size: int, special_ids: np.ndarray, source: str):
        self._rows, self._vocab_size, self._special_ids, self._source = rows, vocab_size, special_ids, source

    def flags(self, row: int) -> np.ndarray:
        """Row ``row`` as flags by token id (uint8), checked as the start mask is: no padding bit,
        no special token (none is in the trie).  That the row is the region's is ``check``'s."""
        flags = np.unpackbits(self._rows[row].view(np.uint8), bitorder="little")
        if _count(flags[self._vocab_size:]) or _count(flags[self._special_ids]):
            raise ArtifactError(f"loop {row}: a padding bit or a special token is set", source=self._source,
                                section="loop_region_token_ids")
        return flags

    def check(self, row: int, region_token_ids: np.ndarray) -> None:
        """The row holds exactly ``region_token_ids`` (``verify``)."""
        expected = np.zeros(32 * self._rows.shape[1], dtype=np.uint8)
        expected[region_token_ids] = 1
        if not np.array_equal(expected, np.unpackbits(self._rows[row].view(np.uint8), bitorder="little")):
            raise ArtifactError(f"loop {row}: the stored token ids are not the region's tokens", source=self._source,
                                section="loop_region_token_ids")


class LoopExits:
    """The exits of loop class sets: stored ones decoded, others built, on first use; shared by
    an index's matchers."""

    def __init__(self, trie: TrieLike, flag_count: int, stored: StoredRegions | None = None):
        self._trie = trie
        self._flag_count = flag_count
        self._stored = stored
        self._decoded: dict[bytes, Exits] = {}
        self._found: dict[bytes, Exits | None] = {}
        self._class_nodes: np.ndarray | None = None  # trie nodes by the class of their edge
        self._root_classes: np.ndarray | None = None  # the classes of the root's children

    def of(self, loop: np.ndarray) -> Exits | None:
        """The exits of the loop class set ``loop`` (bool per class), or None for a small region."""
        key = np.packbits(loop).tobytes()
        exits = self._decoded.get(key)
        if exits is not None:
            return exits
        if key in self._found:
            return self._found[key]
        row = self._stored.rows.get(key) if self._stored is not None else None
        if row is not None:
            token_ids = self._stored.token_ids
            flags = None if token_ids is None else token_ids.flags(row)
            exits = self._decoded[key] = self._exits(self._stored.region(row, self._trie), flags)
            return exits
        if MIN_REGION_NODES > 0 and not self._leaves_root(loop):
            exits = None  # the region is empty (below any positive minimum): find_region's answer, for free
        else:
            if self._class_nodes is None:
                self._class_nodes = class_node_counts(self._trie, loop.size)
            region = find_region(self._trie, loop, class_nodes=self._class_nodes)
            exits = None if region is None else self._exits(region)
        if len(self._found) < MAX_REGIONS:
            self._found[key] = exits
        return exits

    def of_lexer_loop(self, loop: np.ndarray) -> Exits | None:
        """``of`` for a lexer state's self-loop set ``L(q)``: where the artifact stores every
        wide one (format 3), a set it does not store is narrow, and is answered without
        building its region (~1 ms for Llama-3: arithmetic's whitespace loop on a first mask)."""
        stored = self._stored
        if stored is not None and stored.lexer_loops_complete and np.packbits(loop).tobytes() not in stored.rows:
            return None
        return self.of(loop)

    def _leaves_root(self, loop: np.ndarray) -> bool:
        """Whether some child of the root is reached by a loop class.

        A node is in the region only if every class on its path is a loop class, the first one
        included, so with no root child by a loop class the region is empty, whatever the
        numbering of the nodes.  That answers the loop sets of lexer states that loop on no
        class at all (the first mask of rfc.lark asks for one) from the root's few hundred
        children, where ``class_node_counts`` reads every node's class (~0.6 ms of a fresh
        process for Llama-3's 274k nodes)."""
        if self._root_classes is None:
            trie = self._trie
            root = int(trie.child_offsets[0]), int(trie.child_offsets[1])
            self._root_classes = trie.node_class[trie.children[root[0]:root[1]]]
        return bool(_count(loop[self._root_classes]))

    def _exits(self, region: Region, flags: np.ndarray | None = None) -> Exits:
        """What the walk reads: the region's tokens as flags by id (``flags``, when the file stores
        them), the exits' classes."""
        trie = self._trie
        if flags is None:
            flags = np.zeros(self._flag_count, dtype=np.uint8)
            flags[trie.sorted_tokens[region.region_tokens]] = 1
        nodes = region.exit_nodes
        return Exits(flags, nodes, trie.node_class[nodes].astype(np.int64), region.in_region, region.region_tokens)


def _exits_ascend_within_loops(exits: np.ndarray, offsets: memoryview) -> bool:
    """No exit is the root, and each loop's exits ascend (the next loop's first may be lower).

    Written for the few loops an artifact stores (one per wide loop set: 1 in the bundled
    grammars): a Python list of the pairs that straddle two loops, one comparison of the
    neighbours, one ``min``; ~0.06 ms less than ``np.diff`` and fancy indexing in a fresh
    process."""
    ascending = np.less(exits[:-1], exits[1:])
    straddling = [start - 1 for start in offsets[1:-1] if 0 < start < exits.size]
    if straddling:
        ascending[straddling] = True
    return _count(ascending) == ascending.size and int(np.minimum.reduce(exits)) > 0


def _unpacked(bits: np.ndarray, size: int, source: str, section: str) -> np.ndarray:
    """A little-endian packed bit row as ``size`` bools; the padding bits must be 0."""
    flags = np.unpackbits(bits, bitorder="little").view(bool)
    if flags[size:].any():
        raise ArtifactError(f"bits past the {size} used are set", source=source, section=section)
    return flags[:size]


def range_cover(starts: np.ndarray, ends: np.ndarray, size: int) -> np.ndarray:
    """int64 (size,): how many of the ranges ``[starts[i], ends[i])`` hold each position."""
    depth = np.bincount(starts, minlength=size + 1)[: size + 1] - np.bincount(ends, minlength=size + 1)[: size + 1]
    return np.cumsum(depth[:size])

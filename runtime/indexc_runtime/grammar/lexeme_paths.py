"""Lexeme paths: a lexer state's undecided tokens grouped by the lexemes they read (format 12).

**Why.**  A token that may finish a thread's lexeme, read a whole second one and start a third
cannot be decided by the precomputed masks (``undecided``): until format 11 the walk stepped
each such token through the parser's configurations, byte by byte.  lark.lark after a name in
a rule body holds ~25k of them (camel-case words: ``taskId`` is a rule name, a token name, a
rule name), and such a mask cost 2-20 ms; its stored item bounds (format 11) only help where a
compile-time text met the same Earley item.  But what the parser is asked about such a token
is only the sequence of lexemes it reads, and 25k tokens read few distinct sequences: lark.lark's
heaviest state (32k undecided tokens) ends them on 295 distinct lexeme paths, in 446 distinct
sets of pairs (session 30; 420 and 450 in session 29's prototype, before ``STRING`` ended at its
first quote).  So the compiler groups each state's undecided tokens by what they read, and the runtime
asks the parser once per path instead of once per byte of every token.

**What a path is.**  From a thread of terminal ``t`` in lexer state ``q``, the bytes of a token
end ``t`` and the lexemes after it by the file's lexing rule (``configs``: all splits, or longest
match) and leave threads alive at the token's end.  Each final thread is a *pair*: the terminals
completed since the thread's origin (ignored ones left out: they leave the parser where it was),
its *path*, and the terminal it is in.  For ``t`` not ignored a path starts with ``t``; for an
ignored ``t`` with the first terminal after it.  The token is allowed from the thread's origin
set ``O`` iff for one of its pairs, the parser scans the path from ``O`` (``EarleySets.scan``,
one terminal after another) and the set reached expects the pair's terminal (or it is ignored).
Without the parser the compiler cannot tell which pairs hold, so it finds them with a parser
that allows what the grammar's FOLLOW sets allow (``FollowPaths``: a path may go on with any
terminal that may follow its last one anywhere in the grammar), a superset of every context;
the tokens that die even so are never allowed.  Tokens with the same set of pairs form a *group*.

**What is stored**, per decomposed lexer state (int32 unless said; ``path_*`` sections):

    path_states (n,)                  lexer states, strictly increasing
    path_node_offsets (n+1,)          state k's paths: nodes [offsets[k], offsets[k+1]), a trie
    path_nodes (n_nodes, 2)           parent (local index, earlier; the root: -1), terminal read
                                      to reach the node from its parent (the root: -1)
    path_pair_offsets (n_nodes+1,)    node j's pairs: path_pair_terminal[offsets[j]:offsets[j+1]]
    path_pair_terminal (n_pairs,)     the terminal a final thread is in
    path_group_offsets (n+1,)         state k's groups: [offsets[k], offsets[k+1])
    path_group_pair_offsets (g+1,)    group i's pairs: path_group_pairs[offsets[i]:offsets[i+1]]
    path_group_pairs (m,)             pair indices, local to the state (its first pair is 0)
    path_group_token_offsets (g+1,)   group i's tokens: path_group_tokens[offsets[i]:offsets[i+1]]
    path_group_tokens (n_tokens,)     token ids, ascending within a group: each undecided token of
                                      the state in the group of all its pairs (a token that dies
                                      under FOLLOW is in none)

**At serving time** (``StatePaths.held_groups``, then ``row_of``; a format 13 file's path keys are
asked first, ``path_keys``): the walker asks, for a thread ``(O, t, q)`` of a
decomposed state, the scans of the state's path trie from ``O`` (memoised by the parser, a dead
node's subtree skipped, a leaf only asking which terminals its set would expect), which pairs hold, which groups hold, and so which of the state's
undecided tokens are allowed: a row the walker ORs into the thread's precomputed masks, the
state's undecided set then leaving the walk (``walker``).  lark.lark's sample, every state
decomposed, fresh process: its masks' total 141 -> 19 ms, the slowest 22 -> 2.5 ms; C 10.0 ->
6.4 ms (slowest 1,056 -> 592 us), JSON 2.5 -> 1.9 ms, arithmetic 2.6 -> 1.5 ms; every mask the
same (the prototype, session 29; the states kept, and the figures of the grammar bench, in
``indexc.artifact.lexeme_paths`` and ``docs/grammar-path.md``).

**Limits** (the compiler's, ``Decomposer.decompose``): a state is left undecomposed (its tokens
are walked as before) past ``MAX_PATHS`` paths, ``MAX_GROUPS`` groups, ``MAX_CONFIGS``
configurations or ``MAX_THREADS`` threads of its terminal's FOLLOW parser, or where its tokens
reach more than ``MAX_PAIRS_PER_TOKEN`` threads each (all splits of RFC-XML's text start a thread
of every terminal at every byte: walking its few undecided tokens costs less).  States whose
undecided set holds more than half of the trie's tokens, or fewer than 256, are not decomposed
either (the loop exits decide the first; the walk steps the second for less than a first path
row costs: ``indexc.artifact.lexeme_paths``).

**Checks.**  At load, every section but the group pairs and group tokens: the states (in range,
increasing, none whose every token is undecided), the offsets (rising and adding up; a state has
its root, a group a pair), roots first, parents before their children, terminals in range
(0.13 ms for lark.lark, warm).  A state's group pairs (inside its own pairs) and group tokens (in
the vocabulary), 2.6 MB for lark.lark, are bounded on its first use.  ``verify`` reads every
state, then decomposes each again and compares.
"""

from __future__ import annotations

import itertools

import numpy as np

from indexc_runtime.container import Container
from indexc_runtime.errors import ArtifactError
from indexc_runtime.grammar.configs import DEAD, UNKNOWN, Configs
from indexc_runtime.grammar.errors import GrammarLimitExceeded, GrammarLimits
from indexc_runtime.grammar.format import LEXEME_PATH_SECTIONS
from indexc_runtime.grammar.runs import distinct, distinct_array, expand_runs
from indexc_runtime.grammar.stored_memo import within
from indexc_runtime.grammar.undecided import UNRESTRICTED

PATH_SECTION_NAMES = tuple(spec.name for spec in LEXEME_PATH_SECTIONS)
MAX_PATHS = 4096  # paths the FOLLOW parser interns for one terminal's states; past it a state is left undecomposed
MAX_GROUPS = 16384  # distinct pair sets of one state (its tokens' groups)
MAX_CONFIGS = 65536  # the FOLLOW parser's configurations for one terminal's states
MAX_THREADS = 1024  # threads of one FOLLOW configuration (all splits start one per terminal at each byte)
# A state whose walk reaches configurations holding more threads in all (each a pair its groups
# would hold) than this many per undecided token, plus ``PAIRS_SLACK``, is left to the walk:
# scanning its pairs would cost more than walking its tokens.  RFC-XML's all-splits text states:
# 382 states of 33-222 tokens, ~300 pairs a group, 1.5M group pairs for 41k tokens, 9 s of
# compile; lark.lark's heavy states ~0.13 pairs a token.
MAX_PAIRS_PER_TOKEN = 1.0
PAIRS_SLACK = 64
TAIL_PLACES = 32  # places below a level's nodes, at most, for the rest of the walk to go on in Python (``_walk_tail``)


class StatePaths:
    """One lexer state's decomposition (local indices; see the module note)."""

    __slots__ = ("parent", "terminal", "pair_offsets", "pair_terminal", "group_pair_offsets", "group_pairs",
                 "group_token_offsets", "group_tokens", "first_terminal", "root_pairs", "_all_row", "_nodes", "_pairs")

    def __init__(self, parent, terminal, pair_offsets, pair_terminal, group_pair_offsets, group_pairs,
                 group_token_offsets, group_tokens):
        self.parent, self.terminal = parent, terminal
        self.pair_offsets, self.pair_terminal = pair_offsets, pair_terminal
        self.group_pair_offsets, self.group_pairs = group_pair_offsets, group_pairs
        self.group_token_offsets, self.group_tokens = group_token_offsets, group_tokens
        self._all_row: np.ndarray | None = None  # every group's tokens as a row (``row_of``), made on first need
        # for the per-node loop (``held_pairs``): each node's parent, terminal, pair range and whether
        # it has a child, as lists of Python ints (made by ``tolist``: a tuple per node cost ~0.1 µs
        # a node, ~20 µs of a state's first use)
        offsets = pair_offsets.tolist()
        inner = np.zeros(len(parent), dtype=bool)
        inner[parent[parent >= 0]] = True  # a node with a child: its set is scanned (a leaf's expected terminals suffice)
        self._nodes = (parent.tolist(), terminal.tolist(), offsets[:-1], offsets[1:], inner.tolist())
        self._pairs = pair_terminal.tolist()
        # the one terminal every path starts with (None: several, or none) and the root's pair
        # terminals: what ``path_keys`` reads to key the row by the set that terminal's scan reaches
        first = set(terminal[parent == 0].tolist())
        self.first_terminal = first.pop() if len(first) == 1 else None
        self.root_pairs = frozenset(self._pairs[offsets[0]:offsets[1]])

    @property
    def n_groups(self) -> int:
        return len(self.group_pair_offsets) - 1

    def arrays(self) -> tuple[np.ndarray, ...]:
        """The state's arrays (the writer's and ``verify``'s comparison)."""
        return (self.parent, self.terminal, self.pair_offsets, self.pair_terminal, self.group_pair_offsets,
                self.group_pairs, self.group_token_offsets, self.group_tokens)

    def held_pairs(self, root: int, configs: Configs) -> list[int]:
        """The pairs that hold from Earley set ``root`` (the thread's origin) in ``configs``' parser:
        their path scans from ``root`` and the set reached expects their terminal or ignores it
        (``Configs.followers``).  One scan a live inner node (the parser memoises them); a
        leaf only asks which terminals its set would expect (``EarleySets.expected_after``: the
        closure without interning the set, ~40% of a scan); a node whose parent died is skipped."""
        parents, terminals, firsts, ends, inners = self._nodes
        reached = [DEAD] * len(parents)
        pairs, scan, expected_after = self._pairs, configs.sets.scan, configs.sets.expected_after
        followers, ignored = configs.followers, configs.ignored
        held: list[int] = []
        nodes = zip(range(len(parents)), parents, terminals, firsts, ends, inners)
        for j, parent, terminal, first, end, inner in nodes:
            if parent < 0:
                at = root
            else:
                at = reached[parent]
                if at < 0:
                    continue
                if not inner:
                    wanted = expected_after(at, terminal)
                    if wanted is not None:
                        held += [i for i in range(first, end) if pairs[i] in wanted or pairs[i] in ignored]
                    continue
                at = scan(at, terminal)
            reached[j] = at
            if at >= 0 and first < end:
                wanted = followers(at)
                held += [i for i in range(first, end) if pairs[i] in wanted]
        return held

    def held_groups(self, root: int, configs: Configs) -> np.ndarray:
        """Bool per group: one of its pairs holds from ``root`` (``held_pairs``)."""
        if not self.n_groups:
            return np.zeros(0, dtype=bool)
        held = np.zeros(len(self._pairs), dtype=np.uint8)
        held[self.held_pairs(root, configs)] = 1
        return np.maximum.reduceat(held[self.group_pairs], self.group_pair_offsets[:-1]).view(bool)

    def allowed_tokens(self, root: int, configs: Configs) -> np.ndarray:
        """The state's undecided tokens allowed from ``root``: those of the groups with a held pair."""
        if not self.n_groups:
            return self.group_tokens
        return self._tokens_of(self.held_groups(root, configs))

    def _tokens_of(self, groups: np.ndarray) -> np.ndarray:
        """The tokens of the groups flagged in ``groups`` (stored group after group: one run each)."""
        first, end = self.group_token_offsets[:-1][groups], self.group_token_offsets[1:][groups]
        return self.group_tokens[expand_runs(first, end - first)]

    def row_of(self, groups: np.ndarray, words: int) -> np.ndarray:
        """The tokens of the groups flagged in ``groups`` as a new int32 row of ``words`` words.
        Where most of the state's tokens are in (lark.lark after ``start:``: 25,053 of 25,112,
        session 31), the row of all its groups' tokens (made once) is copied and the others' bits
        cleared, instead of setting tens of thousands of bits (~0.1-0.15 ms a thread)."""
        if not self.n_groups:
            return np.zeros(words, dtype=np.int32)
        lost = ~groups
        offsets = self.group_token_offsets
        if 2 * int((offsets[1:][lost] - offsets[:-1][lost]).sum()) > self.group_tokens.size:  # most not allowed
            return _row_of(self._tokens_of(groups), words)
        if self._all_row is None or self._all_row.size != words:
            self._all_row = _row_of(self.group_tokens, words)
        row = self._all_row.copy()
        cleared = self._tokens_of(lost)
        np.bitwise_and.at(row.view(np.uint32), cleared >> 5, ~np.left_shift(np.uint32(1), (cleared & 31).astype(np.uint32)))
        return row


def _all_below(values: np.ndarray, bound: int) -> bool:
    """Every int32 value in ``[0, bound)``: one pass over the values read as unsigned (a negative
    one is then above every bound), where ``min`` and ``max`` made two (~11 -> ~5 µs a state's
    tokens)."""
    return not values.size or int(values.view(np.uint32).max()) < bound


def _row_of(tokens: np.ndarray, words: int) -> np.ndarray:
    """An int32 bitmask row of ``words`` words holding ``tokens``."""
    flags = np.zeros(32 * words, dtype=np.uint8)
    flags[tokens] = 1
    return np.packbits(flags, bitorder="little").view(np.int32)


class LexemePaths:
    """The decomposed states of one file, each decoded and checked on its first use."""

    def __init__(self, arrays: dict[str, np.ndarray], vocab_size: int, n_terminals: int, source: str = ""):
        self._arrays, self._vocab_size, self._n_terminals, self._source = arrays, vocab_size, n_terminals, source
        states = arrays["path_states"].tolist()
        self._slot = {state: k for k, state in enumerate(states)}
        self.states = frozenset(states)
        self._decoded: dict[int, StatePaths] = {}

    def __len__(self) -> int:
        return len(self._slot)

    @classmethod
    def empty(cls) -> "LexemePaths":
        return cls(empty_arrays(), 0, 0)

    @classmethod
    def from_container(cls, c: Container, n_lexer_states: int, n_terminals: int, undecided) -> "LexemePaths":
        """A format 12 file's paths, bounded (``_check``); none for an older file."""
        if c.header.format_version < 12 or not c.header.dims.get("n_path_states"):
            return cls.empty()
        arrays = {name: c.array(name) for name in PATH_SECTION_NAMES}
        _check(arrays, n_lexer_states, n_terminals, undecided, c.source)
        return cls(arrays, c.header.vocab_size, n_terminals, c.source)

    def states_and_group_offsets(self) -> tuple[np.ndarray, np.ndarray]:
        """The decomposed states (increasing) and their groups' offsets (``path_keys``' bits a key)."""
        return self._arrays["path_states"].astype(np.int64), self._arrays["path_group_offsets"].astype(np.int64)

    def of(self, state: int) -> StatePaths:
        """State ``state``'s decomposition (``state in self.states``), decoded on first use."""
        found = self._decoded.get(state)
        if found is None:
            found = self._decoded[state] = self._decode(self._slot[state])
        return found

    def _decode(self, k: int) -> StatePaths:
        """State ``k``'s slices of the sections (bounded at load, ``_check``), its group pairs and
        group tokens bounded here: the largest sections, which a load does not read."""
        a = self._arrays
        node_start, node_end = int(a["path_node_offsets"][k]), int(a["path_node_offsets"][k + 1])
        group_start, group_end = int(a["path_group_offsets"][k]), int(a["path_group_offsets"][k + 1])
        nodes = a["path_nodes"][node_start:node_end]
        pair_offsets = a["path_pair_offsets"][node_start:node_end + 1].astype(np.int64)
        group_pair_offsets = a["path_group_pair_offsets"][group_start:group_end + 1].astype(np.int64)
        token_offsets = a["path_group_token_offsets"][group_start:group_end + 1].astype(np.int64)
        tokens = a["path_group_tokens"][int(token_offsets[0]):int(token_offsets[-1])]
        group_pairs = a["path_group_pairs"][int(group_pair_offsets[0]):int(group_pair_offsets[-1])]
        state = int(a["path_states"][k])
        if not _all_below(tokens, self._vocab_size):
            self._refuse("path_group_tokens", f"holds a token id outside the vocabulary (lexer state {state})")
        if not _all_below(group_pairs, int(pair_offsets[-1] - pair_offsets[0])):
            self._refuse("path_group_pairs", f"names a pair outside its state (lexer state {state})")
        return StatePaths(nodes[:, 0], nodes[:, 1], pair_offsets - pair_offsets[0],
                          a["path_pair_terminal"][int(pair_offsets[0]):int(pair_offsets[-1])],
                          group_pair_offsets - group_pair_offsets[0], group_pairs.astype(np.intp),
                          token_offsets - token_offsets[0], tokens)

    def _refuse(self, section: str, what: str):
        raise ArtifactError(f"section {section!r} {what}", source=self._source)

    def check_all(self) -> None:
        """Decode every state (``verify``: every group's pairs and tokens bounded)."""
        for state in self._slot:
            self.of(state)


def empty_arrays() -> dict[str, np.ndarray]:
    """The sections of a file with no decomposed state (each offsets section its one 0)."""
    arrays = {name: np.zeros(1 if name.endswith("_offsets") else 0, dtype=np.int32) for name in PATH_SECTION_NAMES}
    arrays["path_nodes"] = arrays["path_nodes"].reshape(0, 2)
    return arrays


def sections_of(decomposed: dict[int, StatePaths]) -> dict[str, np.ndarray]:
    """The ``path_*`` sections of ``decomposed`` (lexer state -> its paths), states ascending."""
    if not decomposed:
        return empty_arrays()
    states = sorted(decomposed)
    parts = [decomposed[state] for state in states]

    def offsets(sizes) -> np.ndarray:
        return np.concatenate([[0], np.cumsum(sizes)]).astype(np.int32)

    def joined(name: str, sizes) -> np.ndarray:  # per-state CSR offsets made global
        starts = np.cumsum([0] + list(sizes[:-1]))
        return np.concatenate([[0]] + [getattr(p, name)[1:] + start for p, start in zip(parts, starts)]).astype(np.int32)

    return {
        "path_states": np.array(states, dtype=np.int32),
        "path_node_offsets": offsets([p.parent.size for p in parts]),
        "path_nodes": np.concatenate([np.stack([p.parent, p.terminal], axis=1) for p in parts]).astype(np.int32),
        "path_pair_offsets": joined("pair_offsets", [p.pair_terminal.size for p in parts]),
        "path_pair_terminal": np.concatenate([p.pair_terminal for p in parts]).astype(np.int32),
        "path_group_offsets": offsets([p.n_groups for p in parts]),
        "path_group_pair_offsets": joined("group_pair_offsets", [p.group_pairs.size for p in parts]),
        "path_group_pairs": np.concatenate([p.group_pairs for p in parts]).astype(np.int32),
        "path_group_token_offsets": joined("group_token_offsets", [p.group_tokens.size for p in parts]),
        "path_group_tokens": np.concatenate([p.group_tokens for p in parts]).astype(np.int32),
    }


# -- the decomposition (the compiler, and ``verify``) ---------------------------------------------


class FollowPaths:
    """A stand-in for ``EarleySets`` that allows what FOLLOW allows: a set is a path (the terminals
    scanned since the thread's origin), and it expects every terminal that may follow the path's
    last one in the grammar; the root expects the thread's own terminal (any terminal for an
    ignored one, whose origin is any set).  No set accepts: only text tokens are decomposed."""

    initial = 0  # expects nothing: ``Configs`` makes its initial configuration from it, and it is never used
    ROOT = 1  # the empty path: the thread's origin

    def __init__(self, follow: list[frozenset[int]], root_expects: tuple[int, ...]):
        self._follow = [tuple(sorted(f)) for f in follow]
        self.paths: list[tuple[int, ...] | None] = [None, ()]
        self._id = {(): self.ROOT}
        self.expected = _Expected(self, root_expects)
        self.accepting = _Never()
        # configuration -> its pairs, each ``path id << 32 | terminal`` (``_grouped``), for every state of the terminal
        self.pairs_of: dict[int, frozenset] = {}

    def scan(self, set_id: int, terminal: int) -> int:
        if terminal not in self.expected.of(set_id):
            return DEAD
        path = self.paths[set_id] + (terminal,)
        found = self._id.get(path)
        if found is None:
            if len(self.paths) >= MAX_PATHS:
                raise GrammarLimitExceeded("max_paths", MAX_PATHS, "too many lexeme paths for one terminal's states")
            found = self._id[path] = len(self.paths)
            self.paths.append(path)
        return found


class _Expected:
    def __init__(self, paths: FollowPaths, root_expects: tuple[int, ...]):
        self._paths, self._root = paths, root_expects
        self._sets = {FollowPaths.initial: frozenset(), FollowPaths.ROOT: frozenset(root_expects)}

    def of(self, set_id: int) -> frozenset[int]:
        found = self._sets.get(set_id)
        if found is None:
            found = self._sets[set_id] = frozenset(self._paths._follow[self._paths.paths[set_id][-1]])
        return found

    def __getitem__(self, set_id: int) -> tuple[int, ...]:
        return tuple(sorted(self.of(set_id)))


class _Never:
    def __getitem__(self, _set_id: int) -> bool:
        return False


class Decomposer:
    """Decomposes the states of one index (``decompose``), the FOLLOW parser shared by the states
    of one terminal: past a token's first lexeme their configurations are the same (lark.lark:
    34 states decomposed, of 25 terminals, since session 31)."""

    def __init__(self, index, follow: list[frozenset[int]]):
        self._index, self._follow = index, follow
        self._parsers: dict[int, tuple[FollowPaths, Configs]] = {}

    def decompose(self, state: int) -> StatePaths | None:
        """State ``state``'s decomposition (its lexer, trie and undecided set), or None past a
        limit (``MAX_PATHS``, ``MAX_GROUPS``, ``MAX_CONFIGS``, ``MAX_THREADS``, ``MAX_PAIRS_PER_TOKEN``)."""
        index = self._index
        terminal = int(index._lexer.state_terminal[state])
        sets, configs = self._parser(terminal)
        undecided = index._undecided
        try:
            start = configs.adopt({(FollowPaths.ROOT, terminal, state)}, False)
            places, tokens = undecided.members(undecided.of(state))
            ends = _walk_places(index._trie, configs, start, places,
                                int(MAX_PAIRS_PER_TOKEN * places.size) + PAIRS_SLACK)
        except GrammarLimitExceeded:
            return None
        return _grouped(configs, sets, ends, tokens)

    def _parser(self, terminal: int) -> tuple[FollowPaths, Configs]:
        found = self._parsers.get(terminal)
        if found is None:
            index, rules = self._index, self._index._rules
            sets = FollowPaths(self._follow[:rules.n_terminals],
                               tuple(range(rules.n_terminals)) if terminal in rules.ignore else (terminal,))
            found = self._parsers[terminal] = (sets, Configs(index._lexer, sets, rules.ignore, index.n_classes,
                                                             GrammarLimits(max_configs=MAX_CONFIGS,
                                                                           max_threads=MAX_THREADS)))
        return found


def _walk_places(trie, configs: Configs, start: int, places: np.ndarray, most_pairs: int) -> np.ndarray:
    """The configuration each of ``places`` (sorted trie places) ends in (``DEAD`` where it dies):
    the trie walked level by level from the root, only into subtrees holding one of them, and
    below a level holding at most ``TAIL_PLACES`` of them depth first in Python (``_walk_tail``).
    ``GrammarLimitExceeded`` once the configurations reached hold more than ``most_pairs`` threads."""
    ends = np.full(places.size, DEAD, dtype=np.int64)
    reached = _Reached(configs, most_pairs)
    below = np.zeros(trie.sorted_tokens.size + 1, dtype=np.int64)  # below[p]: how many of ``places`` lie before p
    np.cumsum(np.bincount(places, minlength=trie.sorted_tokens.size), out=below[1:])
    nodes, at = np.zeros(1, dtype=np.int64), np.full(1, start, dtype=np.int64)
    held = np.full(1, places.size, dtype=np.int64)  # places below each node of the level
    offsets, children, node_class = trie.child_offsets, trie.children, trie.node_class
    while nodes.size:
        if int(held.sum()) <= TAIL_PLACES:
            _walk_tail(trie, configs, nodes.tolist(), at.tolist(), below, ends, reached)
            break
        first = offsets[nodes].astype(np.int64)
        count = offsets[nodes + 1] - first
        kids = children[expand_runs(first, count)].astype(np.int64)
        at = np.repeat(at, count)
        low = below[trie.token_start[kids]]
        held = below[trie.subtree_token_end[kids]] - low
        keep = held > 0
        kids, at, low, held = kids[keep], at[keep], low[keep], held[keep]
        classes = node_class[kids].astype(np.int64)
        after = configs.table[at, classes]
        unknown = after == UNKNOWN
        if unknown.any():
            configs.resolve(at[unknown], classes[unknown])
            after = configs.table[at, classes]
        alive = after >= 0
        nodes, at, low, held = kids[alive], after[alive].astype(np.int64), low[alive], held[alive]
        reached.add_all(at)
        high = below[trie.token_end[nodes]]
        ending = high > low
        if ending.any():
            counts = high[ending] - low[ending]
            ends[expand_runs(low[ending], counts)] = np.repeat(at[ending], counts)
    return ends


class _Reached:
    """The configurations a state's walk reached (a bit each: a numpy level asks for all of its
    own at once), their threads counted against the budget (``max_pairs``).  A Python set was
    asked once per distinct configuration of each level: 34k times over lark.lark's 34 states,
    for 8.3k configurations."""

    def __init__(self, configs: Configs, most_pairs: int):
        self._configs, self._most = configs, most_pairs
        self._seen = np.zeros(max(64, 2 * len(configs)), dtype=bool)
        self.pairs = 0

    def add_all(self, at: np.ndarray) -> None:
        self._cover()
        new = at[~self._seen[at]]
        if new.size:
            for config in distinct(new):
                self.add(config)

    def add(self, config: int) -> None:
        if config >= self._seen.size:
            self._cover()
        if not self._seen[config]:
            self._seen[config] = True
            self.pairs += len(self._configs.threads[config])
            if self.pairs > self._most:
                raise GrammarLimitExceeded("max_pairs", self._most,
                                           "a lexer state's lexeme paths would cost more than its walk")

    def _cover(self) -> None:
        """Room for a bit per configuration made so far."""
        if len(self._configs) > self._seen.size:
            self._seen = np.concatenate([self._seen, np.zeros(len(self._configs), dtype=bool)])


def _walk_tail(trie, configs: Configs, nodes: list[int], configs_at: list[int], below: np.ndarray, ends: np.ndarray,
               reached: _Reached) -> None:
    """``_walk_places`` below ``nodes`` (in ``configs_at``), depth first in Python: the thin deep
    levels (long runs of spaces or dashes), where a numpy level's ~20 calls cost more than
    stepping its few nodes one by one: over a third of lark.lark's numpy levels stepped at most
    4 nodes, and its 34 states' decomposition (min of 5 in one process) took ~500 ms with no
    tail, ~465 with ``TAIL_PLACES`` 16-64 (4,096: ~600)."""
    py = trie.py
    offsets, children, node_class = py["child_offsets"], py["children"], py["node_class"]
    token_start, token_end, subtree_end = py["token_start"], py["token_end"], py["subtree_token_end"]
    count = memoryview(below)
    stack = list(zip(nodes, configs_at))
    while stack:
        node, config = stack.pop()
        for kid in children[offsets[node]:offsets[node + 1]]:
            low = count[token_start[kid]]
            if count[subtree_end[kid]] == low:
                continue
            after = configs.next(config, node_class[kid])
            if after < 0:
                continue
            reached.add(after)
            high = count[token_end[kid]]
            if high > low:
                ends[low:high] = after
            stack.append((kid, after))


def _grouped(configs: Configs, sets: FollowPaths, ends: np.ndarray, tokens: np.ndarray) -> StatePaths | None:
    """The paths, pairs and groups of the configurations ``ends`` holds (see the module note), in
    an order that depends on the paths alone (not on the configurations' ids, which depend on
    what the shared parser met before).

    A configuration's pairs are kept as a frozenset of ``path id << 32 | terminal``, hashed once;
    only the distinct sets are ordered, in numpy (``_ordered_groups``; lark.lark: at most 446
    groups a state, from 6,120 configurations over its 34 states).  Sorted tuples of paths per
    configuration cost lark.lark's compile ~190 ms over its 34 states; this ~80 ms."""
    pairs_of: dict[int, frozenset] = {}
    known = sets.pairs_of  # a configuration's pairs, kept by the terminal's shared parser
    threads = configs.threads
    for config in distinct(ends):
        if config != DEAD:
            found = known.get(config)
            if found is None:
                found = known[config] = frozenset([origin << 32 | terminal for origin, terminal, _ in threads[config]])
            pairs_of[config] = found
    signatures = list(set(pairs_of.values()))
    if len(signatures) > MAX_GROUPS:
        return None
    group_of_signature, parent, terminal, pair_offsets, pair_terminal, group_pair_offsets, group_pairs = \
        _ordered_groups(signatures, sets.paths)
    index_of = {signature: k for k, signature in enumerate(signatures)}
    lookup = np.full(max(pairs_of, default=0) + 2, -1, dtype=np.int64)  # the last entry: DEAD's
    lookup[list(pairs_of)] = group_of_signature[[index_of[signature] for signature in pairs_of.values()]]
    group = lookup[ends]
    kept = group >= 0
    by_group = np.sort((group[kept] << 32) | tokens[kept].astype(np.int64))  # by group, then token id
    return StatePaths(parent, terminal, pair_offsets, pair_terminal, group_pair_offsets, group_pairs,
                      np.concatenate([[0], np.cumsum(np.bincount(group[kept], minlength=len(signatures)))]).astype(np.int64),
                      (by_group & 0xFFFFFFFF).astype(np.int32))


def _ordered_groups(signatures: list[frozenset], paths: list) -> tuple[np.ndarray, ...]:
    """The groups of ``signatures`` (sets of pairs, each ``path id << 32 | terminal``) in the
    paths' order: each signature's group, then the path trie (parent, terminal per node, parents
    first), its pairs (offsets per node, terminal) and each group's pairs (offsets, ascending
    pair indices).

    The order is the one the paths themselves give: a group's pairs sorted by (path, terminal),
    the groups by the sequence of their pairs' ((len(path), path), terminal), the nodes by
    (len(path), path) and the pairs by (node, terminal): so the file does not depend on the ids
    the shared parser gave its paths."""
    size = np.fromiter(map(len, signatures), dtype=np.int64, count=len(signatures))
    flat = np.fromiter(itertools.chain.from_iterable(signatures), dtype=np.int64, count=int(size.sum()))
    origin, terminal = flat >> 32, flat & 0xFFFFFFFF
    owner = np.repeat(np.arange(len(signatures)), size)
    ids = np.flatnonzero(np.bincount(origin, minlength=len(paths)))
    nodes = sorted({paths[o][:k] for o in ids.tolist() for k in range(len(paths[o]) + 1)} | {()}, key=_path_order)
    node_of = {path: j for j, path in enumerate(nodes)}  # parents first: so by (len, path), the groups' order
    node = np.zeros(len(paths), dtype=np.int64)
    node[ids] = [node_of[paths[o]] for o in ids.tolist()]
    natural = np.zeros(len(paths), dtype=np.int64)  # each path id's rank by its path in tuple order
    natural[sorted(ids.tolist(), key=paths.__getitem__)] = np.arange(ids.size)
    # each signature's pairs in (path, terminal) order, then the signatures by their sequences of
    # pair codes (node, terminal), compared as tuples: a prefix first
    within = np.lexsort((terminal, natural[origin], owner))
    origin, terminal, owner = origin[within], terminal[within], owner[within]
    n_terminals = int(terminal.max()) + 1 if terminal.size else 1
    code = node[origin] * n_terminals + terminal
    codes, ends = code.tolist(), np.cumsum(size).tolist()
    sequences = [tuple(codes[end - length:end]) for end, length in zip(ends, size.tolist())]
    group_of = np.empty(len(signatures), dtype=np.int64)
    group_of[sorted(range(len(signatures)), key=sequences.__getitem__)] = np.arange(len(signatures))
    pair_codes = distinct_array(code)
    pair_index = np.searchsorted(pair_codes, code)
    pair_node, pair_terminal = pair_codes // n_terminals, pair_codes % n_terminals
    group = group_of[owner]
    by_group = np.lexsort((pair_index, group))
    return (group_of,
            np.array([node_of[path[:-1]] if path else -1 for path in nodes], dtype=np.int64),
            np.array([path[-1] if path else -1 for path in nodes], dtype=np.int64),
            np.concatenate([[0], np.cumsum(np.bincount(pair_node, minlength=len(nodes)))]).astype(np.int64),
            pair_terminal.astype(np.int32),
            np.concatenate([[0], np.cumsum(np.bincount(group, minlength=len(signatures)))]).astype(np.int64),
            pair_index[by_group].astype(np.intp))


def _path_order(path: tuple[int, ...]) -> tuple:
    return len(path), path


def _check(a: dict[str, np.ndarray], n_lexer_states: int, n_terminals: int, undecided, source: str) -> None:
    """Every bound of the small sections (a state's group pairs and group tokens: on its first
    use, ``LexemePaths._decode``; lark.lark's 52k and 608k of them cost a load ~0.4 ms more)."""
    def require(ok: bool, section: str, what: str) -> None:
        if not ok:
            raise ArtifactError(f"section {section!r} {what}", source=source)

    states = a["path_states"]
    n, n_nodes, n_groups = states.size, len(a["path_nodes"]), len(a["path_group_pair_offsets"]) - 1
    require(within(states, 0, n_lexer_states) and bool((np.diff(states) > 0).all()), "path_states",
            "names a lexer state out of range or is not strictly increasing")
    require(all(undecided.of(s) != UNRESTRICTED for s in states.tolist()), "path_states",
            "names a lexer state whose every token is undecided")
    for name, total, rows, least in (("path_node_offsets", n_nodes, n, 1), ("path_group_offsets", n_groups, n, 0),
                                     ("path_pair_offsets", len(a["path_pair_terminal"]), n_nodes, 0),
                                     ("path_group_pair_offsets", len(a["path_group_pairs"]), n_groups, 1),
                                     ("path_group_token_offsets", len(a["path_group_tokens"]), n_groups, 0)):
        offsets = a[name]  # a state has its root and a group a pair; a state may have no group
        require(offsets.size == rows + 1 and int(offsets[0]) == 0 and int(offsets[-1]) == total
                and bool((np.diff(offsets) >= least).all()), name,
                f"does not rise from 0 to {total} in {rows + 1} entries" + (", one or more each" if least else ""))
    node_offsets, nodes = a["path_node_offsets"], a["path_nodes"]
    local = np.arange(n_nodes) - np.repeat(node_offsets[:-1], np.diff(node_offsets))
    parent, terminal, root = nodes[:, 0], nodes[:, 1], local == 0
    require(bool((parent[root] == -1).all() and (terminal[root] == -1).all()), "path_nodes", "has a root that is not -1, -1")
    inner = ~root
    require(bool(((parent[inner] >= 0) & (parent[inner] < local[inner])).all()), "path_nodes",
            "has a parent that is not an earlier node of its state")
    require(within(terminal[inner], 0, n_terminals), "path_nodes", "names a terminal out of range")
    require(within(a["path_pair_terminal"], 0, n_terminals), "path_pair_terminal", "names a terminal out of range")

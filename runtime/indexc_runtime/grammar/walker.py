"""A configuration's token mask: precomputed in-lexeme masks, plus a live walk of the token trie.

mask(C) = eos if C accepts, plus every text token whose bytes leave some thread of C alive.
Two parts:

1. *Precomputed*: a token whose bytes stay inside one thread's lexeme is allowed (the thread
   stays live): the compiled in-lexeme mask of the thread's lexer state.  So is a token that
   finishes the lexeme and stays inside a next one the parser expects there: the compiled
   boundary mask of (lexer state, next terminal) (``indexc.grammar.boundary_masks``).  The OR
   of those masks is written first (a dense copy or a scatter each).
2. *Live walk*: the tokens that complete a lexeme part-way (and go on in the next one) are
   found by walking the token trie level by level with numpy: the frontier is an array of
   (trie node, configuration) pairs, a level is one gather in the configurations' transition
   table (``Configs.table``; entries never asked before are computed by the parser, in
   Python, and kept), dead pairs are dropped, the tokens ending at live nodes are allowed.
   A subtree whose tokens are all allowed already (``coverage``: part 1 laid out in trie
   order) is not entered; and a configuration that loops on most byte classes (inside a
   string body) starts the walk at its loop's exits, its region's tokens allowed at once
   (``loop_exits``), so the walk only goes where a token can leave the loop.  The same jump
   is taken in the middle of the walk by any pair whose configuration is a single thread in
   such a loop, at a node of the loop's region (``_loop_jumps``: a key after ``{"`` keeps
   its literal keys' threads for a letter or two, then it is a plain string body).  A trie
   leaf needs no configuration after it: an entry the parser has not computed means alive
   there (``Configs`` marks the dead ones up front), so it is not computed.  A level whose
   live pairs hold few tokens below them (``TAIL_TOKENS``) goes on in Python, depth first;
   there a node whose configuration goes back to itself on the node's byte class enters the
   chain of that class below it in one numpy pass (``_class_chain_pairs``: Llama-3's dash runs
   after a C operand, ~100 of a mask's ~130 pairs; C's cold walk 11.1 -> 10.5 ms CPU).

With format 5 the walk looks at *undecided* tokens only: every boundary pair is stored, so a
token that crosses at most one boundary is decided by part 1 (allowed iff a precomputed mask
holds it), and each thread's lexer state names the tokens that may cross two
(``undecided``).  The coverage test then treats every other token as done, the walk starts at
the root, takes no loop jump, and hands a level to the Python tail by its count of open
tokens; a configuration whose undecided sets are all empty is not walked.  Cold walks of the
bundled samples went from 23 / 53 / 63 / 17 ms CPU (JSON / C / RFC-XML / arithmetic, wide
pairs only) to ~9 / ~19 / ~47 / ~8 ms (session 9, fresh processes, busy host).  Small sets
give an ``OpenPlaces`` coverage (the open places, sorted): a wide node's open children are
then found by place (``_children_at``) and the walk's tokens are set in a copy of the
precomputed row, with no 128k flags (session 10: arithmetic's cold walk 6.0 -> 2.5 ms
CPU with the compiler's tighter sets, C 14.1 -> 9.1; ``docs/grammar-path.md``).

With format 11 a thread's *item bounds* join part 1 (``item_masks``, ``item_bounds``): each item
of the set its lexeme leads to, keyed with the thread's lexer state, may have a stored lower
mask (undecided tokens that item allows in any context: OR-ed with the precomputed masks) and
upper set (the undecided tokens it may allow beyond them); when every item of a thread has a
key, the thread's undecided set is replaced by the union of its upper sets.  lark.lark's name
in a rule body: 25,405 undecided tokens (camel-case words: a rule name, a token name, a rule
name), ~25k of them allowed; with the bounds the walk is left 310 tokens, none allowed
(session 28, ``docs/grammar-path.md``).

With format 12 a thread of a *decomposed* lexer state (``lexeme_paths``) leaves its undecided
set out of the walk: its state's undecided tokens are grouped by the lexemes they read, and the
parser scans the state's path trie from the thread's origin once (``_path_row``, memoised by
state and origin); the tokens of the groups whose paths hold join the mask.  A thread whose
items are all keyed (format 11) reads its bounds instead.  lark.lark's sample: cold p99 23 ->
3.4 ms, its cold walk 152 -> 24 ms (session 29's host, ``docs/grammar-path.md``).

Part 2 is skipped when no token can cross: a configuration of one thread whose lexeme, once
scanned, leaves the parser expecting nothing (``_may_cross``).  Every mask of a one-terminal
grammar is then part 1 alone (chess, vllm-sql: a cold mask p50 ~30-40 us instead of ~460).

Where the parser's work went (the pkg_schema sample of MaskBench, 688 masks along its
valid instances): 83,513 configuration transitions computed at the session-3 state; 70,275
of them were dead (no thread survives the class: now known from the lexer states), 6,037 a
single thread looping on its class (now set when the configuration is made) and ~700 at
leaves: 6,969 are left.  The walk's CPU time against the session-start runtime, interleaved
runs: 501 -> 391 and 353 -> 330 ms (mask p50 671 -> 469 and 454 -> 397 us); this host moves
such figures by +-30% between minutes, hence two pairs.

A configuration whose ``OpenPlaces`` leave at most ``OPEN_TOKENS`` tokens open has them stepped
one by one instead (``_open_allowed``, ``_alive_tokens``): they are all the walk would have to
decide (MaskBench's 90 grammar-path files: masks over 200 us 14,343 -> 11,835 against the
walk, before the two were merged; merged, 2,048 against 512 open tokens, two pairs of runs:
11,108 / 11,208 and 11,933 / 11,780 such masks, p99 1,445 / 2,060 and 1,573 / 2,112 us).  C's
sample prefers fewer: its open tokens are dash runs, which the walk enters as chains (a mask
with 636 open tokens: 570-793 us stepped, 355-651 us walked), so its two masks over 1 ms are
stepped ones; the bench's p99 decided for 2,048.  From ``WIDE_STEPS`` (512) open tokens on, their
first classes are stepped together in numpy, then the rest one by one (``_alive_tokens_wide``):
inside a long string (``maxLength`` over 128) a mask has ~1,000 of them.  A *wide* coverage
that leaves at most ``OPEN_FROM_WIDE`` tokens open is turned into their places
(``Coverage.narrowed``) and stepped the same way: RFC-XML's text content has every token
undecided (all splits of ``text+``) but only ~400 open, which the trie walk reached through
4-5 numpy levels.

The mask of each configuration is memoised (bounded, least recently used), and by its future
(``futures``: configurations that differ only in origins scanning to one set share a mask; a
long string's chunk positions, up to what one token can read: ``horizon``), and where the file
stores language keys, by the texts that may follow it (``languages``: one mask whatever the
parser context, read from the file's keys or from an earlier computed mask); so is part 1 with
its coverage per set of precomputed masks.  Cost and where it goes: ``docs/grammar-path.md``.
The walk stops with ``GrammarLimitExceeded`` past ``walk_budget`` frontier pairs.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections import OrderedDict

import numpy as np

from indexc_runtime.grammar.configs import DEAD, UNKNOWN, Configs
from indexc_runtime.grammar.coverage import WIDE_UNDECIDED, Coverage, OpenPlaces, TrieOrderMasks
from indexc_runtime.grammar.errors import GrammarLimitExceeded, GrammarLimits
from indexc_runtime.grammar.futures import FutureMasks, future_key
from indexc_runtime.grammar.item_masks import NO_LOWER, ItemMasks, thread_items
from indexc_runtime.grammar.languages import LanguageKeys
from indexc_runtime.grammar.lexeme_paths import LexemePaths
from indexc_runtime.grammar.path_keys import PathRows
from indexc_runtime.grammar.horizon import TerminalLengths, TokenHorizon
from indexc_runtime.grammar.loop_exits import Exits, LoopExits, range_cover
from indexc_runtime.grammar.runs import distinct, expand_runs
from indexc_runtime.grammar.tables import LexerTables, TrieArrays
from indexc_runtime.grammar.undecided import UNRESTRICTED, UndecidedSets
from indexc_runtime.grammar.unions import MaskUnions
from indexc_runtime.masks import MaskStore, set_bits

MASK_MEMO = 256  # memoised masks per memo, shared by an index's matchers (16 KB each for a 128k vocabulary: 4 MB)
PATH_ROW_MEMO = 256  # memoised path rows per memo (``_path_row``; 16 KB each for Llama-3: 4 MB)
REGION_RUNS_MEMO = 64  # memoised region tokens of a walk's jumped runs, packed (16 KB each for Llama-3: 1 MB)
NARROW = 16  # frontier size below which the walk goes on in Python: a numpy level costs ~30-100 us, a node ~2 us
# From the DEEP_LEVEL-th level on, subtrees are small (long tokens are runs: ``=====``, ``////``,
# spaces), so a frontier of up to DEEP_NARROW pairs is cheaper in Python, unless a pair sits in a
# loop region the numpy levels would jump over.  Measured on MaskBench Github_easy o9772 (a
# base64 string value): 82 levels a mask, ~33 pairs from the 9th to the 64th, ~5 ms a mask in
# numpy levels; 2.3-3.3 s -> 1.7-1.8 s CPU for its 450 masks.
DEEP_LEVEL = 6
DEEP_NARROW = 64
# A level whose live pairs hold at most TAIL_TOKENS tokens below them hands them to the Python
# tail at once, whatever their number: it was the usual level (recursive MaskBench schemas'
# first instances, 59k numpy levels: median 8 live pairs after a frontier of more than
# NARROW), and a numpy level's cover, jump and expansion steps cost ~40 calls whatever the
# frontier's size.  256: 12% less CPU on the 5 slowest of those walks than 0 (the old rule),
# 1,024 the same within noise, 4,096 35% more (min of 3 interleaved runs each).
TAIL_TOKENS = 256
# A node of the Python tail whose configuration goes back to itself on the node's own class
# enters the chain of nodes of that class below it at once (``_class_chain_pairs``) when the
# chain is CLASS_CHAIN_MIN nodes deep or more, and open there; chains memoised per node.
CLASS_CHAIN_MIN = 8
CLASS_CHAINS_MEMO = 4096
# A configuration whose coverage leaves at most OPEN_TOKENS tokens open has them stepped one by
# one (``_alive_tokens``) instead of walked: per token ~1 us where the trie walk cuts a dead or
# covered subtree at once.  MaskBench's 90 cfg files, cold walks of all instances (process time,
# one fresh process a file, one pass each): no limit 10.6 -> 21.5 s (thousands of open tokens
# stepped one by one), 512: 10.1 s, 2,048: 9.2 s, masks over 200 us 14,343 -> 11,978 / 11,835.
OPEN_TOKENS = 2048
# A wide coverage (every token undecided, or undecided sets of WIDE_UNDECIDED tokens or more)
# whose precomputed masks leave at most OPEN_FROM_WIDE tokens open is served as the open tokens'
# places (``Coverage.narrowed``), stepped one by one like a narrow one's, instead of walked in
# the trie.  RFC-XML's text content: 122k undecided tokens (all splits of ``text+``), 359-412 of
# them open, which the wide walk reached through 4-5 numpy levels and the loop regions' bookkeeping
# (~0.5-1.5 ms a mask); stepped, its cold walk 33-36 -> 30-31 ms and its p99 1,467-1,594 ->
# 1,046-1,109 us on the same host (three interleaved pairs, every mask the same).
OPEN_FROM_WIDE = OPEN_TOKENS
# At least WIDE_STEPS open tokens are stepped together in numpy (``_alive_tokens_wide``), one
# class position a level, for at most STEP_LEVELS levels or until at most STEP_HANDOFF tokens
# are still going; the rest go on one by one.  Session 13, cold walks of all instances, process
# time, two interleaved runs each: the 14 long-string files of MaskBench's grammar path
# (~1,000 open tokens a mask inside a long string) 2,171-2,183 ms (session 12's runtime) ->
# 1,772-1,777 ms; 7 parser-bound ones 848-866 -> 867-872 ms (within the host's noise), 870-882
# without the numpy levels, 3-5% more with a threshold of 128 or 256 (a few hundred short open
# tokens, most dead on their second class: one by one is cheaper).  Deeper levels cost more
# than they save: the tokens still going after six classes are runs (``#####...``, 60-128
# characters), one new step each in trie order.
WIDE_STEPS = 512
STEP_LEVELS = 6
STEP_HANDOFF = 32
LONG_SHARED = 8  # a token sharing this many classes or more with the previous one is compared in one slice first
WIDE_NODE = 48  # a node of the Python tail with this many children has them filtered in numpy (``_open_children``)
FEW_PLACES = 16  # ... or found by place, one binary search each, with at most this many open places under it


class MaskWalker:
    """Computes (and memoises) the bitmask row of the configurations of one memo (``matcher.ParserMemo``)."""

    def __init__(self, lexer: LexerTables, masks: MaskStore, trie: TrieArrays, trie_order: TrieOrderMasks,
                 loop_exits: LoopExits, undecided: UndecidedSets, lengths: TerminalLengths, configs: Configs,
                 eos_ids: tuple[int, ...], limits: GrammarLimits):
        self._lexer, self._masks, self._trie, self._configs = lexer, masks, trie, configs
        self._undecided = undecided
        self._trie_order = trie_order
        self._loop_exits = loop_exits
        self._eos = np.array(sorted(set(eos_ids)), dtype=np.intp)
        self._limits = limits
        self._memo: OrderedDict[int, np.ndarray] = OrderedDict()
        self._unions = MaskUnions(masks)  # part 1's ORs (``unions``: neither memo refers back to the walker)
        self._futures = FutureMasks(self._unions.row)  # masks by what they depend on (``futures``)
        self._horizon = TokenHorizon(configs.sets, lengths, trie.classes.longest)
        self._pinned: dict[int, np.ndarray] = {}  # masks read from the file (``pin``), never evicted
        self._items = ItemMasks.empty()  # the file's item bounds (``use_item_masks``, format 11)
        self._paths = LexemePaths.empty()  # the file's decomposed states (``use_lexeme_paths``, format 12)
        self._path_rows: OrderedDict[tuple[int, int], np.ndarray] = OrderedDict()  # see _path_row
        self._path_keys: PathRows | None = None  # path rows by the language they are scanned from (format 13)
        self._thread_bounds: dict[tuple[int, int, int], tuple] = {}  # thread -> _item_bounds' answer
        self._stored: dict[int, int] = {}  # configuration -> its mask id in the file (``stored_pinner``)
        self._languages: LanguageKeys | None = None  # masks by language key, if the file stores keys (``languages``)
        self._stored_languages: dict[bytes, int] = {}  # language key -> its mask id in the file
        self.by_language = 0  # masks read by language key (stored or computed before), not computed
        self.computed = 0  # masks computed so far, not read from a memo (``bench/parser_floor.py``)
        self.part_one_only = 0  # of those, the ones no token could cross: their precomputed OR (``stored_memo``'s writer)
        self._state_loops: dict[int, Exits | None] = {}  # a looping lexer state's region, if wide
        self._jump_marks = np.zeros(0, dtype=np.int8)  # per configuration, see _jumpable
        self._jump_known = 0  # configurations whose mark is set
        self._region_runs_memo: OrderedDict[tuple, tuple[Exits, np.ndarray]] = OrderedDict()
        self._class_chains: dict[int, tuple | None] = {}  # see _class_chain_pairs
        # a wide node's children's first places, by its first child's offset (``_children_at``;
        # at most one list per wide node of the trie)
        self._child_starts: dict[int, list[int]] = {}
        root = slice(int(trie.child_offsets[0]), int(trie.child_offsets[1]))
        self._root_children = trie.children[root]
        self._root_classes = trie.node_class[self._root_children]
        # the classes of the root's children, ascending (in Python: np.unique's first call costs ~0.1 ms of a first mask)
        self._root_class_set = np.array(sorted(set(self._root_classes.tolist())), dtype=np.int64)

    def pin(self, config: int, row: np.ndarray) -> None:
        """Serve ``row`` as ``config``'s mask from now on (the file's start mask, format 4)."""
        self._pinned[config] = row

    def stored_pinner(self):
        """``pin(config, mask_id)``: serve stored mask ``mask_id`` as ``config``'s mask (format 7's
        memo, ``stored_match``), decoded on first use, then memoised like a computed one.  It is
        the dictionary's own setter, which holds no reference to the walker: the memo's hooks keep
        it, and a walker they referred to would close a cycle that only the collector frees
        (``test_memory_release``)."""
        return self._stored.__setitem__

    def use_item_masks(self, items: ItemMasks) -> None:
        """Read the file's item bounds (``item_masks``) for the threads they key."""
        self._items = items

    def use_lexeme_paths(self, paths: LexemePaths) -> None:
        """Decide the undecided tokens of the file's decomposed states by their lexeme paths."""
        self._paths = paths

    def walked_path_rows(self) -> list[tuple[tuple[int, int], np.ndarray]]:
        """The path rows this walker keeps, by ``(state, origin)`` (the compiler's path-key check)."""
        return list(self._path_rows.items())

    def use_path_keys(self, rows: PathRows) -> None:
        """Ask ``rows`` for a decomposed thread's held groups (``path_keys``: by key, else scanned)."""
        self._path_keys = rows

    def use_languages(self, keys: LanguageKeys) -> None:
        """Share masks between configurations with one language key (``languages``)."""
        self._languages = keys

    def use_stored_languages(self, table: dict[bytes, int], shapes) -> None:
        """Serve a configuration whose language key is in ``table`` (key -> mask id, format 8)
        that stored mask (``shapes``: the stored configurations' shapes, ``LanguageKeys.unknown_shape``)."""
        self._stored_languages = table
        if self._languages is not None:
            self._languages.add_shapes(shapes)

    def forget_mask(self, config: int) -> None:
        """Drop ``config``'s memoised mask (by configuration, by future, a pinned one) and keep
        the rest: the parser's sets, configurations and transitions, the ORs of precomputed
        masks with their coverages.  Its mask asked again pays the walk alone, as if the parser
        cost nothing: the floor of this design (``bench/parser_floor.py``)."""
        self._memo.pop(config, None)
        self._futures.forget(future_key(self._configs, self._lexer, config, self._horizon))
        language = self._languages.known(config) if self._languages is not None else None
        if language is not None:
            self._futures.forget(language)
        self._pinned.pop(config, None)
        self._stored.pop(config, None)

    def mask(self, config: int) -> np.ndarray:
        """The int32 bitmask row of ``config`` (memoised: do not modify it)."""
        row = self._memo.get(config)
        if row is not None:
            self._memo.move_to_end(config)
            return row
        row = self._pinned.get(config)
        if row is not None:
            return row
        mask_id = self._stored.get(config)
        row = self._masks.row(mask_id) if mask_id is not None else self._future_or_computed(config)
        self._memo[config] = row
        if len(self._memo) > MASK_MEMO:
            self._memo.popitem(last=False)
        return row

    def _future_or_computed(self, config: int) -> np.ndarray:
        """``config``'s mask from a configuration with the same language key (asked first: it makes
        no scan) or the same future, else computed."""
        keys = self._languages
        unknown = keys.unknown_shape(config) if keys is not None else None
        language = keys.of(config) if keys is not None and unknown is None else None
        if language is not None:
            row = self._by_language(language)
            if row is not None:
                return row
        future = future_key(self._configs, self._lexer, config, self._horizon)
        row = self._futures.get(future)
        if row is not None:
            return row
        self.computed += 1
        row, mask_ids, walked = self._computed(config)
        if walked:  # a part-1 mask is its precomputed OR again: nothing worth keeping
            self._futures.put(future, row, mask_ids)
            if language is not None:
                self._futures.put(language, row, mask_ids)
            elif unknown is not None:  # a shape met first: its next configuration is keyed
                keys.note(unknown)
        else:
            self.part_one_only += 1
        return row

    def _by_language(self, language: bytes) -> np.ndarray | None:
        """The mask of a configuration with key ``language``: stored in the file, or computed before."""
        mask_id = self._stored_languages.get(language)
        row = self._masks.row(mask_id) if mask_id is not None else self._futures.get(language)
        self.by_language += row is not None
        return row

    def _computed(self, config: int) -> tuple[np.ndarray, tuple[int, ...], bool]:
        """``config``'s mask row, computed (the precomputed masks, and the live walk where a
        token may cross), the ids of the precomputed masks it started from, and whether it
        walked (a one-terminal grammar's masks never do: keeping them by future cost chess and
        SQL ~5 us a cold mask, p50 14-16 -> 19-21 us).  The future is looked up before part 1
        (``mask``): asking part 1 first, so that only walked masks build a key, made a hit pay
        it: MaskBench's 90 grammar-path files, mask p50 8.6-8.8 -> 11.0 us."""
        mask_ids, undecided, paths = self._precomputed_masks(config)
        if undecided != () and self._may_cross(config):
            base, coverage = self._in_lexeme(mask_ids, undecided)
            if coverage.wide:
                flags = np.unpackbits(base.view(np.uint8), bitorder="little")
                flags[self._tokens_ending(self._walk(config, coverage, flags))] = 1
                flags[self._eos] = self._configs.accepting[config]
                row = np.packbits(flags, bitorder="little").view(np.int32)
            else:  # no loop region is flagged: the walk's tokens are set in a copy of the row
                row = base.copy()
                set_bits(row.view(np.uint32), self._open_allowed(config, coverage))
                self._end_allowed(row, config)
            return self._with_paths(row, paths), mask_ids, True
        row = self._end_allowed(self._unions.row(mask_ids).copy(), config)
        return self._with_paths(row, paths), mask_ids, bool(paths)

    def _end_allowed(self, row: np.ndarray, config: int) -> np.ndarray:
        """``row`` with the end-of-sequence tokens set where ``config`` accepts (the text may end), in place."""
        if self._configs.accepting[config]:
            set_bits(row.view(np.uint32), self._eos)
        return row

    def _with_paths(self, row: np.ndarray, paths: tuple[tuple[int, int], ...]) -> np.ndarray:
        """``row`` with the allowed undecided tokens of the decomposed threads ``paths`` (each
        ``(state, origin)``: ``lexeme_paths``) OR-ed in, in place."""
        for state, origin in paths:
            row |= self._path_row(state, origin)
        return row

    def _path_row(self, state: int, origin: int) -> np.ndarray:
        """The undecided tokens of ``state`` allowed from Earley set ``origin``, as an int32 row
        (``LexemePaths``), memoised (``PATH_ROW_MEMO`` rows, least recently used first out)."""
        key = (state, origin)
        row = self._path_rows.get(key)
        if row is not None:
            self._path_rows.move_to_end(key)
            return row
        paths = self._paths.of(state)
        held = paths.held_groups(origin, self._configs) if self._path_keys is None else self._path_keys.held(state, origin)
        row = self._path_rows[key] = paths.row_of(held, self._masks.words)
        if len(self._path_rows) > PATH_ROW_MEMO:
            self._path_rows.popitem(last=False)
        return row

    def mask_given(self, config: int, allowed: np.ndarray) -> np.ndarray:
        """``config``'s mask when the tokens of ``allowed`` (an int32 row) are known to be in it:
        only its undecided tokens outside them are walked (not memoised; ``item_bounds``' upper
        bound, whose lower bound is ``allowed``: the walk of a body's name confirmed ~25k
        undecided tokens twice).  Exact if ``allowed`` is a subset of the mask."""
        mask_ids, undecided, paths = self._precomputed_masks(config)
        if undecided is None or not self._may_cross(config):
            return self.mask(config) | allowed
        row = self._with_paths(self._unions.row(mask_ids) | allowed, paths)
        if undecided:
            coverage = OpenPlaces.of_undecided([self._undecided.probes(k) for k in undecided], row)
            set_bits(row.view(np.uint32), self._open_allowed(config, coverage))
        return self._end_allowed(row, config)

    def _may_cross(self, config: int) -> bool:
        """Whether a token could finish a thread's lexeme and go on in another one: else the
        precomputed masks are the whole mask, and nothing is walked.

        A configuration of one thread whose lexeme, once scanned, leaves the parser expecting
        no terminal (and no terminal is ignored) can only be continued inside its lexeme,
        whose in-lexeme mask holds exactly those tokens.  That is every configuration of a
        grammar that is one terminal (a regular GBNF grammar folds into one: ``vllm-sql``,
        ``chess``: a cold mask p50 459 -> 41 and 29 us), and the last lexeme of a document.  Its one
        scan is one the walk would make at the lexeme's first end anyway; a configuration of
        several threads is walked without asking (their scans are not all needed by the walk:
        asking them all took C's cold walk from 54 to 80 ms CPU, min of 3)."""
        configs = self._configs
        threads = configs.threads[config]
        if configs.ignore or len(threads) != 1:
            return True
        (origin, terminal, _), = threads
        after = configs.sets.scan(origin, terminal)
        return after >= 0 and bool(configs.sets.expected[after])

    def _precomputed_masks(self, config: int) -> tuple[tuple[int, ...], tuple[int, ...] | None,
                                                       tuple[tuple[int, int], ...]]:
        """Mask ids known to hold only allowed tokens: each thread's in-lexeme mask, and its
        boundary mask for every terminal the parser expects once the thread's lexeme is scanned;
        the ids of the threads' nonempty undecided sets (None: some thread's are every token);
        and the ``(state, origin)`` of the threads whose state is decomposed (``lexeme_paths``:
        their undecided tokens are decided by ``_path_row``, their sets left out; none when the
        undecided sets are None, since the walk then decides every token), unless every
        item of the thread has stored bounds (``item_masks``: its lower masks join the others and
        only its upper sets are walked, which costs no parser step where the paths would scan).
        A token in none of the undecided sets is allowed iff a precomputed mask or a path row holds it."""
        lexer, configs, undecided_sets = self._lexer, self._configs, self._undecided
        found = set()
        undecided: set[int] | None = set()
        items, decomposed = self._items, self._paths.states
        paths = set()
        for origin, terminal, state in configs.threads[config]:
            found.add(lexer.state_mask[state])
            if undecided is not None:
                set_id = undecided_sets.of(state)
                if set_id == UNRESTRICTED:
                    undecided = None
                elif not undecided_sets.is_empty(set_id):
                    lower, upper = self._item_bounds(origin, terminal, state) if state in items.states else _NO_BOUNDS
                    if upper is not None:
                        found.update(lower)
                        undecided.update(upper)
                    elif state in decomposed:  # not every item keyed: its paths decide
                        paths.add((state, origin))
                    else:
                        found.update(lower)
                        undecided.add(set_id)
            pairs = lexer.boundary_masks(state)
            scanned = configs.scanned(origin, terminal) if pairs else ()
            if not scanned:
                continue
            followers = (configs.followers(scanned[0]) if len(scanned) == 1
                         else frozenset().union(*map(configs.followers, scanned)))
            found.update(pairs[u] for u in followers if u in pairs)
        if undecided is None:  # the walk steps every token the masks leave: a path row would add nothing
            return tuple(sorted(found)), None, ()
        return tuple(sorted(found)), tuple(sorted(undecided)), tuple(sorted(paths))

    def _item_bounds(self, origin: int, terminal: int, state: int) -> tuple[tuple[int, ...], tuple[int, ...] | None]:
        """A thread's stored item bounds (``item_masks``): the lower masks of its items' keys
        found, and their nonempty upper sets if every item has a key (else None).  Memoised."""
        key = (origin, terminal, state)
        found = self._thread_bounds.get(key)
        if found is None:
            configs, items, sets = self._configs, self._items, self._undecided
            listed = thread_items(configs.sets, origin, terminal, configs.scanned(origin, terminal))
            found = _NO_BOUNDS
            if listed:
                hits = [items.get(state, rule, dot, wanted) for rule, dot, wanted in listed]
                lower = tuple(sorted({hit[0] for hit in hits if hit is not None and hit[0] != NO_LOWER}))
                upper = None if None in hits else tuple(sorted({hit[1] for hit in hits if not sets.is_empty(hit[1])}))
                found = (lower, upper)
            self._thread_bounds[key] = found
        return found

    def _in_lexeme(self, mask_ids: tuple[int, ...],
                   undecided: tuple[int, ...] | None) -> tuple[np.ndarray, Coverage | OpenPlaces]:
        """OR of the precomputed masks (vocabulary order), and the coverage (trie order) of the
        tokens they decide: the ones they hold, and every one outside ``undecided``."""
        row, coverages = self._unions.entry(mask_ids)
        coverage = coverages.get(undecided)
        if coverage is None:
            sets, words = self._undecided, self._trie_order.words
            if undecided is not None and sum(map(sets.size, undecided)) < WIDE_UNDECIDED:
                coverage = OpenPlaces.of_undecided([sets.probes(k) for k in undecided], row)
            else:
                rows = None if undecided is None else [sets.row(k, words) for k in undecided]
                coverage = Coverage.of_masks(self._trie_order, mask_ids, row, rows).narrowed(OPEN_FROM_WIDE)
            coverages[undecided] = coverage
        return row, coverage

    def _walk(self, config: int, coverage: Coverage | OpenPlaces, flags: np.ndarray | None, *,
              loops: bool = True) -> list:
        """The nodes reached alive by the live walk (see the module note), in parts (arrays, or
        the Python tail's list); the tokens of the loop regions it jumped over are flagged in
        ``flags`` (``loops`` only).

        Wide levels go through numpy; once the frontier is at most ``NARROW`` pairs
        (``DEEP_NARROW`` from the ``DEEP_LEVEL``-th level on), or its live pairs hold at most
        ``TAIL_TOKENS`` tokens, the rest (the deep, thin tails below a few tokens) is a
        depth-first walk in Python ints, where a node costs ~1-2 us instead of a numpy level's
        ~30-100 us.

        ``loops``: False when the coverage leaves only a few undecided tokens open
        (``Coverage.wide``): the walk then starts at the root and takes no loop jump, since the
        coverage prunes every subtree but the few holding an open token, and a loop region's
        tokens stay inside their lexeme (the in-lexeme mask holds them).  Decoding or building a
        region cost more than that walk (JSON's first walked mask: ~1 ms of ~2).
        """
        trie, configs = self._trie, self._configs
        nodes, classes = self._starts(config, flags) if loops else (self._root_children, self._root_classes)
        current = np.full(nodes.size, config, dtype=np.int64)
        visited = 0
        hits = []
        region_runs: dict[int, tuple[Exits, list, list]] = {}
        level = 0
        while nodes.size > NARROW and not (level >= DEEP_LEVEL and nodes.size <= DEEP_NARROW
                                            and not (loops and self._any_loop(current))):
            level += 1
            nxt = configs.table[current, classes]
            lo, hi = trie.token_start[nodes], trie.subtree_token_end[nodes]
            alive = nxt != DEAD
            if coverage.wide:
                if (hi - lo)[alive].sum() <= TAIL_TOKENS:  # what is left is small: the Python tail walks it
                    nodes, current = nodes[alive], current[alive]
                    break
                # dead as known so far, or covered: neither is entered, nor its transition asked
                kept = alive & coverage.open_runs(lo, hi)
            else:  # a few undecided tokens: count the open ones, not the subtrees' (see TAIL_TOKENS)
                open_counts = coverage.open_counts(lo, hi)
                kept = alive & (open_counts > 0)
                if open_counts[kept].sum() <= TAIL_TOKENS:
                    nodes, current = nodes[kept], current[kept]
                    break
            if _count(kept) != kept.size:  # (np.count_nonzero: a third of .all()'s cost on a level's arrays)
                nodes, classes, current, nxt = nodes[kept], classes[kept], current[kept], nxt[kept]
            unknown = nxt == UNKNOWN
            if _count(unknown):  # a leaf needs no configuration after it: UNKNOWN there means alive
                inner = unknown & (trie.child_offsets[nodes + 1] != trie.child_offsets[nodes])
                if _count(inner):
                    configs.resolve(current[inner], classes[inner])
                    nxt = configs.table[current, classes]
                    alive = nxt != DEAD
                    nodes, nxt = nodes[alive], nxt[alive]
            current = nxt
            hits.append(nodes)
            visited += nodes.size
            if visited > self._limits.walk_budget:
                raise GrammarLimitExceeded("walk_budget", self._limits.walk_budget, "the live trie walk for one mask")
            known = current >= 0  # the leaves left UNKNOWN have nothing below them
            if _count(known) != known.size:
                nodes, current = nodes[known], current[known]
            jumps = self._loop_jumps(nodes, current, region_runs) if loops else None
            if jumps is not None:
                stay, jump_nodes, jump_classes, jump_configs = jumps
                nodes, current = nodes[stay], current[stay]
            first = trie.child_offsets[nodes]
            counts = trie.child_offsets[nodes + 1] - first
            nodes = trie.children[expand_runs(first, counts)]
            classes = trie.node_class[nodes]
            current = np.repeat(current, counts)
            if jumps is not None:
                nodes = np.concatenate((nodes, jump_nodes))
                classes = np.concatenate((classes, jump_classes))
                current = np.concatenate((current, jump_configs))
        if nodes.size:
            hits.append(self._narrow_tail(nodes.tolist(), current.tolist(), coverage, visited))
        for exits, starts, ends in region_runs.values():
            self._flag_region_runs(exits, np.concatenate(starts), np.concatenate(ends), flags)
        return hits

    def _tokens_ending(self, hits: list) -> np.ndarray:
        """The tokens that end at the nodes of ``hits`` (``_walk``'s parts); the Python tail's
        list alone (most walks of a format 5 file) in Python: a few dozen nodes, most ending
        one token or none."""
        trie = self._trie
        if len(hits) == 1 and isinstance(hits[0], list):
            start, end = trie.py["token_start"], trie.py["token_end"]
            return trie.sorted_tokens[[place for node in hits[0] for place in range(start[node], end[node])]]
        if not hits:
            return np.zeros(0, dtype=np.intp)
        ended = np.concatenate([np.asarray(part, dtype=np.intp) for part in hits])
        starts = trie.token_start[ended]
        return trie.sorted_tokens[expand_runs(starts, trie.token_end[ended] - starts)]

    def _open_allowed(self, config: int, coverage: OpenPlaces) -> np.ndarray:
        """The open tokens of a narrow coverage that ``config`` allows: at most ``OPEN_TOKENS``
        are stepped one by one (``_alive_tokens``), more are walked in the trie."""
        if len(coverage) <= OPEN_TOKENS:
            tokens = self._trie.sorted_tokens[coverage.places]
            if tokens.size >= WIDE_STEPS:
                return self._alive_tokens_wide(config, tokens)
            return np.array(self._alive_tokens(config, tokens.tolist()), dtype=np.intp)
        return self._tokens_ending(self._walk(config, coverage, None, loops=False))

    def _alive_tokens_wide(self, config: int, tokens: np.ndarray) -> np.ndarray:
        """``_alive_tokens`` for many open tokens: their first classes stepped together in
        numpy, one gather in the transition table per class position, while more than
        ``STEP_HANDOFF`` tokens are still going; the rest go on one by one from where they
        are (``_alive_tokens`` with their configurations and depth).  Inside a long string
        (``maxLength`` over 128: a new configuration at every position) a mask has ~1,000
        open tokens, most of them a few characters, the closing quote and what follows
        (``"},``): one by one they cost ~1 us each, the mask ~1 ms."""
        offsets, data = self._trie.classes.arrays()
        starts = offsets[tokens].astype(np.intp)
        lengths = offsets[tokens + 1] - starts
        if _count(lengths > 0) != lengths.size:  # not text tokens, or a row running backwards: the slow path says which
            return np.array(self._alive_tokens(config, tokens.tolist()), dtype=np.intp)
        configs, budget = self._configs, self._limits.walk_budget
        going = np.arange(tokens.size)
        current = np.full(tokens.size, config, dtype=np.intp)
        alive, depth, steps = [going[:0]], 0, 0
        while going.size > STEP_HANDOFF and depth < STEP_LEVELS:
            steps += going.size
            if steps > budget:
                raise GrammarLimitExceeded("walk_budget", budget, "the live trie walk for one mask")
            classes = data[starts[going] + depth]
            after = configs.table[current, classes]
            last = lengths[going] == depth + 1
            unknown = (after == UNKNOWN) & ~last  # a last class needs no configuration after it
            if _count(unknown):
                configs.resolve(current[unknown], classes[unknown])
                after = configs.table[current, classes]
            live = after != DEAD
            alive.append(going[live & last])
            kept = live & ~last
            going, current = going[kept], after[kept]
            depth += 1
        rest = self._alive_from(current.tolist(), tokens[going].tolist(), depth)
        return np.concatenate((tokens[np.concatenate(alive)], np.array(rest, dtype=tokens.dtype)))

    def _alive_from(self, configs_at: list[int], tokens: list[int], depth: int) -> list[int]:
        """The tokens of ``tokens`` alive, each stepped on from its configuration after its
        first ``depth`` classes (``configs_at``).  Grouped by that configuration, in trie order
        within a group, so that they share steps: the space runs of a mask are interleaved in
        trie order with runs of other characters, in other configurations."""
        groups: dict[int, list[int]] = {}
        for config, token in zip(configs_at, tokens):
            groups.setdefault(config, []).append(token)
        return [token for config, group in groups.items() for token in self._alive_tokens(config, group, depth)]

    def _alive_tokens(self, config: int, tokens: list[int], depth: int = 0) -> list[int]:
        """The tokens of ``tokens`` (open tokens, in trie order) whose byte classes leave
        ``config`` alive: each token's classes are stepped through the transition table from
        where it parts from the previous token's path (neighbours in trie order share their
        prefixes).  A last class needs no configuration after it: ``UNKNOWN`` there means alive
        (``Configs`` marks the dead ones up front), as at a trie leaf of ``_walk``.  A token
        that shares a dead token's classes up to the one it died on is dead without a step
        (C's ``)`` runs outside parentheses: the sample's cold walk -12%).

        This is the walk of a configuration whose coverage leaves a few undecided tokens open
        (``OpenPlaces``): every other token is decided by part 1, so the open tokens
        are all the walk has to look at, and their paths are what it visited, without the numpy
        levels and the children it pushed only to find them covered (a JSON string body's 95
        undecided tokens: 429 pairs popped, 301 of them covered).  ``depth``: every token's
        first ``depth`` classes are already stepped and ``config`` is where they lead."""
        classes_of = self._trie.token_classes
        rows, fill, budget = self._configs.rows, self._configs.fill, self._limits.walk_budget
        path = [config]  # path[d]: the configuration after the previous token's first d classes
        previous: memoryview | tuple = ()
        dead: memoryview | None = None  # the last dead token's classes, up to the one it died on
        alive, steps = [], 0
        for token in tokens:
            classes = classes_of(token)
            if depth:
                classes = classes[depth:]
            if dead is not None and classes[:len(dead)] == dead:  # on the dead path past the death: dead too
                continue
            last = len(classes) - 1
            shared, limit = 0, min(len(path) - 1, last)
            if limit >= LONG_SHARED and classes[:limit] == previous[:limit]:  # a run one class longer: one comparison
                shared = limit
            while shared < limit and classes[shared] == previous[shared]:
                shared += 1
            del path[shared + 1:]
            here = path[shared]
            steps += last - shared + 1
            if steps > budget:
                raise GrammarLimitExceeded("walk_budget", budget, "the live trie walk for one mask")
            for byte_class in classes[shared:last]:
                after = rows[here][byte_class]
                if after == UNKNOWN:
                    after = fill(here, byte_class)
                if after == DEAD:
                    dead = classes[:len(path)]
                    break
                here = after
                path.append(here)
            else:
                if rows[here][classes[last]] != DEAD:
                    alive.append(token)
                else:
                    dead = classes
            previous = classes
        return alive

    def _flag_region_runs(self, exits: Exits, starts: np.ndarray, ends: np.ndarray, flags: np.ndarray) -> None:
        """Flag the region's tokens inside the runs ``[starts[i], ends[i])`` of the trie's token
        order (the subtrees the walk jumped over).  Short runs (a jump a few letters down a
        key or a comment: the C sample's ~76 tokens) are expanded position by position; long
        ones go through one difference array over the trie's tokens (~1 ms), and their flags
        are memoised by the runs: configurations that differ only past the jumps (a string
        value after each key of an object) jump at the same nodes.  On MaskBench's
        Github_hard---o79664 the walk of one instance flagged the same 30 runs (79,721 of the
        region's 93,178 tokens) for 115 masks: 117 of its 677 ms."""
        total = int((ends - starts).sum())
        if total * 8 < exits.region_tokens.size:
            positions = expand_runs(starts, ends - starts)
            flags[self._trie.sorted_tokens[positions[exits.region_tokens[positions]]]] = 1
            return
        key = (id(exits), starts.tobytes(), ends.tobytes())
        found = self._region_runs_memo.get(key)
        if found is not None and found[0] is exits:  # (an id is reused only after its region was dropped)
            self._region_runs_memo.move_to_end(key)
            np.bitwise_or(flags, np.unpackbits(found[1], count=flags.size, bitorder="little"), out=flags)
            return
        inside = range_cover(starts, ends, exits.region_tokens.size) > 0
        inside &= exits.region_tokens
        row = np.zeros_like(flags)
        row[self._trie.sorted_tokens[inside]] = 1
        np.bitwise_or(flags, row, out=flags)
        self._region_runs_memo[key] = (exits, np.packbits(row, bitorder="little"))
        if len(self._region_runs_memo) > REGION_RUNS_MEMO:
            self._region_runs_memo.popitem(last=False)

    def _starts(self, config: int, flags: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Where the walk of ``config`` starts (nodes, their classes): its loop's exits when it
        loops on a wide region (whose tokens are flagged here), else the root's children."""
        configs = self._configs
        row = configs.table[config]
        ask = self._may_loop(config)[self._root_class_set] & (row[self._root_class_set] == UNKNOWN)
        if _count(ask):
            asked = self._root_class_set[ask]
            configs.resolve(np.full(asked.size, config, dtype=np.int64), asked)
            row = configs.table[config]
        loop = row == config  # a class not asked yet counts as leaving: its nodes are walked (exact)
        exits = self._loop_exits.of(loop) if _count(loop) else None
        if exits is None:
            return self._root_children, self._root_classes
        np.bitwise_or(flags, exits.token_flags, out=flags)
        return exits.nodes, exits.classes

    def _may_loop(self, config: int) -> np.ndarray:
        """Per class: whether some thread's lexer state goes back to itself on it: how a
        configuration is itself again on a class (its thread stays inside its lexeme).
        ``_starts`` asks the parser for those classes only; the others are asked by the walk's
        first level where it needs them, and not at all under a subtree a precomputed mask
        covers.  A configuration that could only be itself again by its threads trading places
        is then walked as one that leaves, which is exact (its loop is just not jumped)."""
        lexer = self._lexer
        found = np.zeros(lexer.n_classes, dtype=bool)
        for state in {state for _, _, state in self._configs.threads[config]}:
            found[lexer.loop_classes(state)] = True
        return found

    def _loop_jumps(self, nodes: np.ndarray, configs_at: np.ndarray, region_runs: dict):
        """Jump over the loop regions of a frontier's pairs: (pairs kept, exit pairs) or None.

        A pair ``(n, C)`` whose configuration loops on a wide region (``_loop_of``) that holds
        ``n`` (every class on ``n``'s path is a loop class) keeps ``C`` on every path of the
        region below ``n``: those tokens are allowed (their runs go to ``region_runs``, flagged
        once at the end of the walk), and the pair's children are replaced by the region's
        exits inside ``n``'s subtree (an id range in depth-first order), from which the walk
        goes on in ``C``.  This is ``_starts`` in the middle of the walk: after
        ``{"`` a key's first letters still keep literal key threads alive, so the start does
        not loop, but one or two letters down the configuration is a plain string body's, and
        without the jump the walk went down ~17 levels of it.
        """
        jumping = self._jumpable(configs_at)
        if not _count(jumping):  # the usual level: no pair's configuration loops on a wide region
            return None
        loops = [(config, self._loop_of(config)) for config in distinct(configs_at[jumping != 0])]
        if not loops:
            return None
        trie = self._trie
        stay = np.ones(nodes.size, dtype=bool)
        found = []
        for config, exits in loops:
            chosen = np.flatnonzero((configs_at == config) & exits.in_region[nodes])
            if not chosen.size:
                continue
            stay[chosen] = False
            at = nodes[chosen]
            lo, hi = trie.token_start[at], trie.subtree_token_end[at]
            _, starts, ends = region_runs.setdefault(id(exits), (exits, [], []))
            starts.append(lo)
            ends.append(hi)
            end = np.searchsorted(trie.token_start, hi, side="left")  # first node after the subtree
            first = np.searchsorted(exits.nodes, at, side="right")
            picked = expand_runs(first, np.searchsorted(exits.nodes, end, side="left") - first)
            found.append((exits.nodes[picked], exits.classes[picked], np.full(picked.size, config, dtype=np.int64)))
        if not found:
            return None
        return stay, *(np.concatenate(parts) for parts in zip(*found))

    def _any_loop(self, configs_at: np.ndarray) -> bool:
        """Does a pair's configuration loop on a wide region (then the numpy levels, which jump
        over it, go on: the Python tail would walk the region node by node)?"""
        return _count(self._jumpable(configs_at)) > 0

    def _jumpable(self, configs_at: np.ndarray) -> np.ndarray:
        """Per pair: 2 if its configuration loops on a wide region (``_loop_of`` not None),
        else 0 (int8).

        One gather of a per-configuration mark (0: no, 1: loops in a lexer state, region not
        asked yet, 2: yes), grown with the configurations; a region is asked only for a
        configuration met at a numpy level, as before (asking decodes or builds it), and a
        small one (chess's move tokens) is marked no once instead of asked at every level."""
        marks = self._jump_marks
        if self._jump_known < len(self._configs):
            marks = self._grown_marks()
        found = marks[configs_at]
        if _count(found) and _count(found == 1):
            for config in distinct(configs_at[found == 1]):
                marks[config] = 2 if self._loop_of(config) is not None else 0
            found = marks[configs_at]
        return found

    def _grown_marks(self) -> np.ndarray:
        """``_jump_marks`` with a mark for every configuration made since the last call."""
        marks, total, loop_state = self._jump_marks, len(self._configs), self._configs.loop_state
        if marks.size < total:
            grown = np.zeros(max(2 * marks.size, total, 64), dtype=np.int8)
            grown[: marks.size] = marks
            marks = self._jump_marks = grown
        for config in range(self._jump_known, total):
            marks[config] = loop_state[config] >= 0
        self._jump_known = total
        return marks

    def _loop_of(self, config: int) -> Exits | None:
        """The wide loop region of a configuration that goes back to itself on its loop classes
        (``Configs.loop_state``: one thread in a non-accepting state), or None (the walk goes on
        as usual).  Regions are kept per lexer state: configurations at other origins share them."""
        state = self._configs.loop_state[config]
        if state < 0:
            return None
        found = self._state_loops.get(state, False)
        if found is False:
            found = self._state_loops[state] = self._loop_exits.of_lexer_loop(self._lexer.next[state] == state)
        return found

    def _narrow_tail(self, nodes: list[int], configs_at: list[int], coverage: Coverage | OpenPlaces,
                     visited: int) -> list[int]:
        """Depth-first walk of (node, configuration-before-the-node) pairs; the live, open nodes.

        The hot loop of a mask: everything is a local, the transition is a list read, the
        coverage test is written out (``Coverage.is_open``, ``OpenPlaces.is_open``)."""
        py = self._trie.py
        node_class, child_offsets, children = py["node_class"], py["child_offsets"], py["children"]
        token_start, subtree_end = py["token_start"], py["subtree_token_end"]
        rows, fill = self._configs.rows, self._configs.fill
        places = coverage.places_py  # a few open places (``OpenPlaces``), else the bits' prefix counts
        if places is None:
            prefix, bits = coverage.prefix_py, coverage.bits_py
        else:
            n_places = len(places)
        budget = self._limits.walk_budget
        stack = list(zip(nodes, configs_at))
        pop, push, found = stack.pop, stack.append, []
        while stack:
            node, config = pop()
            byte_class = node_class[node]
            config_after = rows[config][byte_class]
            if config_after == DEAD:  # known dead: no coverage test (most popped pairs)
                continue
            lo, hi = token_start[node], subtree_end[node]
            if places is None:
                allowed = (prefix[hi >> 5] + (bits[hi >> 5] & ((1 << (hi & 31)) - 1)).bit_count()
                           - prefix[lo >> 5] - (bits[lo >> 5] & ((1 << (lo & 31)) - 1)).bit_count())
                if allowed == hi - lo:  # covered: the transition into it is never asked
                    continue
            else:
                at = bisect_left(places, lo)
                if at == n_places or places[at] >= hi:  # no open place in [lo, hi): decided
                    continue
            if config_after == UNKNOWN and child_offsets[node] != child_offsets[node + 1]:
                config_after = fill(config, byte_class)  # a leaf needs none: UNKNOWN means alive
            if config_after == DEAD:
                continue
            found.append(node)
            visited += 1
            if visited > budget:
                raise GrammarLimitExceeded("walk_budget", budget, "the live trie walk for one mask")
            first, end = child_offsets[node], child_offsets[node + 1]
            if rows[config_after][byte_class] == config_after and end - first:  # it loops on its own class
                entered = len(found)
                pairs = self._class_chain_pairs(node, config_after, coverage, found)
                if pairs is not None:
                    visited += len(found) - entered
                    if visited > budget:
                        raise GrammarLimitExceeded("walk_budget", budget, "the live trie walk for one mask")
                    stack += pairs
                    continue
            if end - first >= WIDE_NODE:
                stack += self._open_children(first, end, config_after, coverage)
                continue
            row = rows[config_after]
            for k in range(first, end):  # a child the configuration dies on is not pushed
                child = children[k]
                if row[node_class[child]] != DEAD:
                    push((child, config_after))
        return found

    def _class_chain_pairs(self, node: int, config: int, coverage: Coverage | OpenPlaces,
                           found: list[int]) -> list | None:
        """Enter at once the chain of nodes below ``node`` by its own byte class, given that
        ``config`` goes back to itself on that class (they are all alive in ``config``): add the
        open ones to ``found`` and return the pairs to walk next, the chain's children by other
        classes that ``config`` does not die on and that hold an open token; or None (the
        usual steps): no such chain of ``CLASS_CHAIN_MIN`` nodes, or its ``CLASS_CHAIN_MIN``-th
        node is decided (then fewer are entered, and pair by pair costs less).

        A node is entered iff it is open: a decided node's descendants are decided too.  C's
        unary minus after an operand (``a -``, then ``- factor`` once per dash) walked Llama-3's
        dash runs (chains of 32-109 nodes) one pair at a time in every mask where an operand
        ended: ~100 of the ~130 pairs of such a mask.  Only chains (no node of the region with
        two children of the class): a branching region (letters) is mostly decided, which the
        usual steps prune at its top (one of C's, 3,572 nodes, had 1 open)."""
        chain = self._class_chains.get(node, False)
        if chain is False:
            chain = self._class_chains[node] = self._class_chain(node)
            if len(self._class_chains) > CLASS_CHAINS_MEMO:
                self._class_chains.clear()
        if chain is None or not coverage.is_open(*chain[0]):
            return None
        nodes, lo, hi, others, other_classes = chain[1:]
        is_open = coverage.open_runs(lo, hi)
        found += nodes[is_open[: nodes.size]].tolist()
        kept = is_open[nodes.size:]
        kept &= self._configs.table[config, other_classes] != DEAD
        return [(child, config) for child in others[kept].tolist()]

    def _class_chain(self, node: int) -> tuple | None:
        """(the token run of the chain's ``CLASS_CHAIN_MIN``-th node, the chain below ``node`` by
        edges of its class, the token runs of the chain's nodes then of their other-class
        children, those children, their classes), or None (a shorter chain, or a branch)."""
        py = self._trie.py
        node_class, child_offsets, children = py["node_class"], py["child_offsets"], py["children"]
        own = node_class[node]
        nodes, others, parent = [], [], node
        while parent >= 0:
            below = -1
            for k in range(child_offsets[parent], child_offsets[parent + 1]):
                child = children[k]
                if node_class[child] != own:
                    others.append(child)
                elif below >= 0:
                    return None
                else:
                    below = child
            if below >= 0:
                nodes.append(below)
            parent = below
        if len(nodes) < CLASS_CHAIN_MIN:
            return None
        trie, probe = self._trie, nodes[CLASS_CHAIN_MIN - 1]
        both = np.array(nodes + others, dtype=np.intp)
        return ((py["token_start"][probe], py["subtree_token_end"][probe]), both[: len(nodes)], trie.token_start[both],
                trie.subtree_token_end[both], both[len(nodes):], trie.node_class[both[len(nodes):]])

    def _open_children(self, first: int, end: int, config: int,
                       coverage: Coverage | OpenPlaces) -> list[tuple[int, int]]:
        """(child, ``config``) for the children ``children[first:end]`` of a wide node that
        ``config`` does not die on and whose subtree holds an open token: one numpy pass instead
        of a push and a pop per child (after a dash or a quote, hundreds of children, most of
        them dead or decided).  With a few open places (``OpenPlaces``) the children holding
        them are found by a binary search each instead (``_children_at``)."""
        places = coverage.places_py
        if places is not None:
            found = self._children_at(first, end, config, places)
            if found is not None:
                return found
        trie = self._trie
        nodes = trie.children[first:end]
        kept = self._configs.table[config, trie.node_class[nodes]] != DEAD
        kept &= coverage.open_runs(trie.token_start[nodes], trie.subtree_token_end[nodes])
        return [(child, config) for child in nodes[kept].tolist()]

    def _children_at(self, first: int, end: int, config: int, places: list[int]) -> list[tuple[int, int]] | None:
        """``_open_children`` by the open places under the children (ascending), when they are
        at most ``FEW_PLACES``: the child holding each one (its subtree's run is the last to
        start at or before it), if ``config`` does not die on it; else None.  Arithmetic's
        tail met 28 wide nodes in its cold walk, 1-3 open places under each, ~16 us a numpy pass.
        The children's first places are kept per node (wide nodes are few: the first bytes of
        punctuation runs).  The root is never asked: a walk with an ``OpenPlaces`` coverage has
        more than ``OPEN_TOKENS`` open places (fewer are stepped), all of them under the root."""
        py = self._trie.py
        children, node_class = py["children"], py["node_class"]
        token_start, subtree_end = py["token_start"], py["subtree_token_end"]
        at = bisect_left(places, token_start[children[first]])
        stop = bisect_left(places, subtree_end[children[end - 1]], at)
        if stop - at > FEW_PLACES:
            return None
        child_starts = self._child_starts.get(first)
        if child_starts is None:
            child_starts = self._child_starts[first] = [token_start[child] for child in children[first:end]]
        row, found, last = self._configs.rows[config], [], -1
        for place in places[at:stop]:
            k = bisect_right(child_starts, place) - 1
            if k < 0 or k == last:  # a token of the node itself, or a child already taken
                continue
            child = children[first + k]
            if place < subtree_end[child] and row[node_class[child]] != DEAD:
                found.append((child, config))
                last = k
        return found


_count = np.count_nonzero  # .any() and .all() go through Python wrappers: ~1-1.7 us a call against ~0.5 us


_NO_BOUNDS: tuple[tuple[int, ...], None] = ((), None)  # a thread without keys: no lower mask, its undecided set

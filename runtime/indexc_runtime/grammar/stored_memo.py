"""StoredMemo: a parser memo computed ahead of time (format 7), matched by each new live memo.

Why.  On the grammar path a cold mask is mostly first-seen work: new Earley sets, new
configurations, their transitions, and the walk of the trie for a configuration never seen
(session 12).  A JSON Schema's instances share most of it (properties in schema order, the same
nesting), so most slow masks are in a schema's *first* request: Github_hard o39444's three
instances had 603, 6 and 0 masks over 200 µs (session 18; ``bench/stored_memo.py`` measures it now).  The
compiler therefore walks a synthetic instance of the schema
(``indexc.jsonschema.synthetic_instance``) with this runtime, and stores the configurations at
which it asked for a mask (a token boundary) that a token may cross (``indexc.artifact.warm_memo``:
a precomputed OR is cheaper to compute than to look up and decode), each one's mask (appended to the file's masks),
the Earley sets those configurations need (their threads' origins, and those sets' origins and
Leo tops, transitively) and the scans and transitions between what is stored.

Measured on the prototype (session 19, o39444 / o18637 / sp_20, the instances' cold masks over
200 µs): 560 / 482 / 175 with no memo; 300 / 324 / - with the walk's *whole* parser memo merged
but no masks (the walk of a known configuration is still the cost); 33 / 110 / 75 with the
boundary configurations and their masks.  The whole memo was also 3-5x larger (o18637: 13,688
sets and 28,800 configurations, 2.7 MB, a 1.3-1.6 s merge; its boundary memo: 3,960 sets, 4,049
configurations, 0.5 MB, ~0.2 s).

Layout (int32 unless said; sets and configurations numbered in the order the walk interned
them, so that a set refers only to *earlier* sets):

    memo_set_item_offsets (n_memo_sets+1)   set s's items are memo_set_items[offsets[s]:offsets[s+1]]
    memo_set_items (n, 3)                   rule, dot, origin set (< s): its incomplete items
    memo_set_leo_offsets (n_memo_sets+1)    set s's Leo entries (``EarleySets._leo``)
    memo_set_leo (n, 4)                     symbol, top set (< s), top symbol, passed S' -> start . (0/1)
    memo_set_wanted_offsets (n_memo_sets+1) the nonterminals set s predicts
    memo_set_wanted (n,)                    nonterminal ids
    memo_set_accepting (n_memo_sets,) u1    the set's accepting flag
    memo_scans (n, 3)                       set, terminal, the set after (-1: not expected)
    memo_config_thread_offsets (n_memo_configs+1)
    memo_config_threads (n, 3)              origin set, terminal, lexer state (of that terminal)
    memo_config_accepting (n_memo_configs,) u1
    memo_transitions (n, 3)                 configuration, byte class, the configuration after
    memo_config_mask (n_memo_configs,)      the configuration's mask id (the file's mask sections)
    memo_language_keys (n, 16) u1           format 8: distinct language keys of stored configurations
    memo_language_mask (n,)                 each key's mask id (``languages``)

Using it (``stored_match``, from a memo's first step past the start: ``ParserMemo.use_stored``):
nothing is merged.  The stored sets and configurations are hashed once per loaded file, and
each set and configuration the live memo makes is looked up by content; a configuration with
the content of a stored one reads its stored mask (``MaskWalker.stored_pinner``: decoded on first
use).  Until session 21 the whole memo was merged at that first step instead (``adopt``: ~10-40
µs a stored set or configuration, up to ~80 ms on MaskBench's largest memos); the scans and
transitions it wrote are not read now: ``verify`` still checks them.

Checks.  Every number is bounded when the sections are read (``from_container``, vectorised,
before any is used): rules and dots inside their rule and not at its end, every reference to an
*earlier* set, terminals, lexer states of the thread's own terminal, classes, configurations,
mask ids, flags 0/1.  Matching adds nothing to a live memo, so no limit is at stake.  That the
stored scans, transitions and
masks are the ones the parser and the walk compute from the stored contents is
``GrammarIndex.verify``'s check (``check_derived``: every one recomputed on a memo that holds
the contents alone).

Not stored, rebuilt on use: the walker's other memos (unions, futures, coverage), the closure
and ``_top`` caches, the fresh threads of a set.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from indexc_runtime.container import Container
from indexc_runtime.errors import ArtifactError
from indexc_runtime.grammar.configs import DEAD, Configs
from indexc_runtime.grammar.earley import EarleySets
from indexc_runtime.grammar.languages import KEY_BYTES, LanguageKeys, shape_of
from indexc_runtime.grammar.stored_match import StoredLookup
from indexc_runtime.grammar.tables import EarleyRules, LexerTables

MEMO_SECTION_NAMES = (
    "memo_set_item_offsets", "memo_set_items", "memo_set_leo_offsets", "memo_set_leo", "memo_set_wanted_offsets",
    "memo_set_wanted", "memo_set_accepting", "memo_scans", "memo_config_thread_offsets", "memo_config_threads",
    "memo_config_accepting", "memo_transitions", "memo_config_mask",
)
LANGUAGE_SECTION_NAMES = ("memo_language_keys", "memo_language_mask")  # format 8


@dataclass(frozen=True)
class StoredMemo:
    """The stored memo's arrays (the sections without their ``memo_`` prefix), checked or built here."""

    set_item_offsets: np.ndarray
    set_items: np.ndarray
    set_leo_offsets: np.ndarray
    set_leo: np.ndarray
    set_wanted_offsets: np.ndarray
    set_wanted: np.ndarray
    set_accepting: np.ndarray
    scans: np.ndarray
    config_thread_offsets: np.ndarray
    config_threads: np.ndarray
    config_accepting: np.ndarray
    transitions: np.ndarray
    config_mask: np.ndarray
    # format 8: stored configurations' language keys (``languages``) and their mask ids
    language_keys: np.ndarray = field(default_factory=lambda: np.zeros((0, KEY_BYTES), dtype=np.uint8))
    language_mask: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int32))

    @cached_property
    def lookup(self) -> StoredLookup:
        """The stored sets and configurations by hash (``stored_match``), made on first use."""
        return StoredLookup.of(self)

    @cached_property
    def language_table(self) -> dict[bytes, int]:
        """Mask ids by language key (``languages``), made on first use."""
        return dict(zip(map(bytes, self.language_keys), self.language_mask.tolist()))

    @cached_property
    def shapes(self) -> frozenset:
        """The stored configurations' shapes (``languages.shape_of``), made on first use."""
        threads, at, accepting = self.config_threads.tolist(), self.config_thread_offsets.tolist(), self.config_accepting
        return frozenset(shape_of(threads[at[c]:at[c + 1]], flag) for c, flag in enumerate(accepting.tolist()))

    @property
    def n_languages(self) -> int:
        return len(self.language_mask)

    @property
    def n_sets(self) -> int:
        return len(self.set_accepting)

    @property
    def n_configs(self) -> int:
        return len(self.config_accepting)

    def arrays(self) -> dict[str, np.ndarray]:
        """The sections, by name (the writer's input)."""
        return {name: getattr(self, name[len("memo_"):]) for name in MEMO_SECTION_NAMES + LANGUAGE_SECTION_NAMES}

    @classmethod
    def empty(cls) -> "StoredMemo":
        none, start = np.zeros(0, dtype=np.int32), np.zeros(1, dtype=np.int32)
        flags = none.astype(np.uint8)
        return cls(start, none.reshape(0, 3), start, none.reshape(0, 4), start, none, flags, none.reshape(0, 3),
                   start, none.reshape(0, 3), flags, none.reshape(0, 3), none)

    # -- writing (the compiler, after its warm-up walk) ------------------------------------------

    @classmethod
    def export(cls, sets: EarleySets, configs: Configs, kept: list[int], mask_ids: list[int]) -> "StoredMemo":
        """The configurations ``kept`` (in that order, each with its mask id), the sets they need,
        and the scans and computed transitions between them."""
        item_counts, items, leo_counts, leo, wanted, accepting, scans = sets.stored_form()
        set_items = np.array(items, dtype=np.int64).reshape(-1, 3)
        set_leo = np.array(leo, dtype=np.int64).reshape(-1, 4)
        item_at, leo_at = _offsets(item_counts), _offsets(leo_counts)
        threads = [np.array(sorted(configs.threads[c]), dtype=np.int64).reshape(-1, 3) for c in kept]
        needed = _needed_sets(len(accepting), threads, set_items, item_at, set_leo, leo_at)
        set_id = np.where(needed, np.cumsum(needed) - 1, -1)
        config_id = np.full(len(configs), -1, dtype=np.int64)
        config_id[kept] = np.arange(len(kept))
        scans = np.array(scans, dtype=np.int64).reshape(-1, 3)
        scans = scans[needed[scans[:, 0]] & ((scans[:, 2] < 0) | needed[scans[:, 2]])]
        cells = _computed_cells(configs)
        cells = cells[(config_id[cells[:, 0]] >= 0) & (config_id[cells[:, 2]] >= 0)]
        kept_sets = np.flatnonzero(needed)
        wanted_kept = [wanted[s] for s in kept_sets]
        return cls(
            *_rows_of(kept_sets, item_at, set_items, 2, set_id),
            *_rows_of(kept_sets, leo_at, set_leo, 1, set_id),
            _offsets([len(w) for w in wanted_kept]), np.array([x for w in wanted_kept for x in w], dtype=np.int32),
            np.array(accepting, dtype=np.uint8)[kept_sets],
            _renumbered(scans, {0: set_id, 2: set_id}),
            _offsets([len(t) for t in threads]),
            _renumbered(np.concatenate([np.zeros((0, 3), np.int64), *threads]), {0: set_id}),
            np.array([configs.accepting[c] for c in kept], dtype=np.uint8),
            _renumbered(cells, {0: config_id, 2: config_id}),
            np.array(mask_ids, dtype=np.int32))

    # -- reading (the runtime) --------------------------------------------------------------------

    @classmethod
    def from_container(cls, c: Container, rules: EarleyRules, lexer: LexerTables, n_masks: int) -> "StoredMemo":
        """The memo sections of a format 7 or 8 file, every number bounded (``ArtifactError`` naming
        the section otherwise); an empty memo for older files."""
        if not c.header.dims.get("n_memo_configs"):  # before format 7, or no warm-up: read nothing
            return cls.empty()
        languages = ([c.array(name) for name in LANGUAGE_SECTION_NAMES] if c.header.dims.get("n_memo_languages")
                     else [])  # before format 8, or no keys stored
        memo = cls(*(c.array(name) for name in MEMO_SECTION_NAMES), *languages)
        memo._check(rules, lexer, n_masks, c.source)
        return memo

    def _check(self, rules: EarleyRules, lexer: LexerTables, n_masks: int, source: str) -> None:
        def require(ok: bool, section: str, what: str) -> None:
            if not ok:
                raise ArtifactError(f"section {section!r} {what}", source=source)

        T, S = rules.n_terminals, len(rules.nullable)
        for name, n, rows in (("set_item_offsets", self.n_sets, len(self.set_items)),
                              ("set_leo_offsets", self.n_sets, len(self.set_leo)),
                              ("set_wanted_offsets", self.n_sets, len(self.set_wanted)),
                              ("config_thread_offsets", self.n_configs, len(self.config_threads))):
            offsets = getattr(self, name).astype(np.int64)
            require(offsets.size == n + 1 and offsets[0] == 0 and offsets[-1] == rows
                    and bool((np.diff(offsets) >= 0).all()), "memo_" + name,
                    f"does not rise from 0 to {rows} in {n + 1} entries")
        owners = {name: np.repeat(np.arange(self.n_sets), np.diff(getattr(self, name)))  # each row's set
                  for name in ("set_item_offsets", "set_leo_offsets")}
        rule, dot, origin = self.set_items.T.astype(np.int64)
        first = np.asarray(rules.first, dtype=np.int64)
        lengths = np.diff(np.append(first, len(rules.dotted))) - 1  # each rule's symbols (COMPLETE ends it)
        require(within(rule, 0, len(first)) and within(dot, 0, lengths[rule] if rule.size else 1),
                "memo_set_items", "names a rule out of range or a dot at or past its rule's end")
        require(within(origin, 0, owners["set_item_offsets"]), "memo_set_items",
                "names an origin that is not an earlier set")
        symbol, top, top_symbol, through = self.set_leo.T.astype(np.int64)
        require(within(symbol, T, S) and within(top, 0, owners["set_leo_offsets"]) and within(top_symbol, T, S)
                and within(through, 0, 2), "memo_set_leo", "has a symbol, set or flag out of range")
        require(within(self.set_wanted, 0, S - T), "memo_set_wanted", "names a nonterminal out of range")
        scan_set, terminal, after = self.scans.T.astype(np.int64)
        require(within(scan_set, 0, self.n_sets) and within(terminal, 0, T) and within(after, -1, self.n_sets),
                "memo_scans", "has a set or terminal out of range")
        origin, terminal, state = self.config_threads.T.astype(np.int64)
        require(within(origin, 0, self.n_sets) and within(terminal, 0, T) and within(state, 0, len(lexer.accepting)),
                "memo_config_threads", "has a set, terminal or lexer state out of range")
        require(bool((np.asarray(lexer.state_terminal)[state] == terminal).all()), "memo_config_threads",
                "has a lexer state of another terminal than its thread's")
        config, byte_class, after = self.transitions.T.astype(np.int64)
        require(within(config, 0, self.n_configs) and within(byte_class, 0, lexer.n_classes)
                and within(after, 0, self.n_configs), "memo_transitions", "has a configuration or class out of range")
        require(self.config_mask.size == self.n_configs and within(self.config_mask, 0, n_masks),
                "memo_config_mask", "has a mask id out of range")
        for name, flags in (("memo_set_accepting", self.set_accepting), ("memo_config_accepting", self.config_accepting)):
            require(within(flags, 0, 2), name, "holds a flag other than 0 or 1")
        require(self.language_keys.shape == (self.n_languages, KEY_BYTES), "memo_language_keys",
                f"is not one {KEY_BYTES}-byte key per entry of memo_language_mask")
        require(within(self.language_mask, 0, n_masks), "memo_language_mask", "has a mask id out of range")

    def _adopted(self, sets: EarleySets, configs: Configs) -> tuple[list[int], list[int]]:
        """Intern every stored set and configuration into a fresh memo by content (``check_derived``):
        the live id of each stored set and configuration."""
        items, leo, wanted = self.set_items.tolist(), self.set_leo.tolist(), self.set_wanted.tolist()
        item_at, leo_at, wanted_at = (o.tolist() for o in (self.set_item_offsets, self.set_leo_offsets,
                                                             self.set_wanted_offsets))
        set_ids: list[int] = []
        for s, accepting in enumerate(self.set_accepting.tolist()):
            own = frozenset((r, d, set_ids[o]) for r, d, o in items[item_at[s]:item_at[s + 1]])
            entries = {symbol: (set_ids[top], top_symbol, bool(through))
                       for symbol, top, top_symbol, through in leo[leo_at[s]:leo_at[s + 1]]}
            set_ids.append(sets.adopt(own, entries, frozenset(wanted[wanted_at[s]:wanted_at[s + 1]]), bool(accepting)))
        threads, at = self.config_threads.tolist(), self.config_thread_offsets.tolist()
        config_ids = [configs.adopt({(set_ids[o], t, q) for o, t, q in threads[at[c]:at[c + 1]]}, bool(flag))
                      for c, flag in enumerate(self.config_accepting.tolist())]
        return set_ids, config_ids

    def check_derived(self, sets: EarleySets, configs: Configs, computed_mask, stored_mask,
                      walked_rows: Sequence[np.ndarray] | None = None,
                      languages: LanguageKeys | None = None) -> str | None:
        """Recompute every stored scan, transition and mask from the stored contents alone, interned
        into the fresh memo ``sets``/``configs``
        (``computed_mask(config)``: the walk's row; ``stored_mask(mask_id)``: the file's); the
        first difference, described, or None.  ``walked_rows``: each stored configuration's row
        as the compiler's own walk gave it, compared instead of ``computed_mask``'s.  With
        ``languages`` (keys over that memo), the stored language keys are the keys of stored
        configurations, each with that configuration's mask (format 8)."""
        set_ids, config_ids = self._adopted(sets, configs)
        for s, terminal, after in self.scans.tolist():
            if sets.scan(set_ids[s], terminal) != (set_ids[after] if after >= 0 else -1):
                return f"its scan of set {s} by terminal {terminal} is not the parser's"
        for config, byte_class, after in self.transitions.tolist():
            if configs.next(config_ids[config], byte_class) != config_ids[after]:
                return f"its transition of configuration {config} on class {byte_class} is not the parser's"
        for config, mask_id in enumerate(self.config_mask.tolist()):
            expected = computed_mask(config_ids[config]) if walked_rows is None else walked_rows[config]
            if not np.array_equal(expected, stored_mask(mask_id)):
                return f"the mask of its configuration {config} is not the walk's"
        if self.n_languages and languages is not None:
            return self._check_languages([languages.of(c) for c in config_ids], stored_mask)
        return None

    def _check_languages(self, keys: list[bytes | None], stored_mask) -> str | None:
        """Every stored language key is some stored configuration's key (``keys``, in stored
        order), and its mask is that configuration's."""
        table = self.language_table
        if len(table) != self.n_languages:
            return "its language keys repeat"
        found = set()
        for config, (key, mask_id) in enumerate(zip(keys, self.config_mask.tolist())):
            if key in table:
                found.add(key)
                if not np.array_equal(stored_mask(table[key]), stored_mask(mask_id)):
                    return f"the mask of its language key of configuration {config} is not that configuration's"
        if len(found) != len(table):
            return "a language key is no stored configuration's"
        return None


def _needed_sets(n_sets: int, threads: list[np.ndarray], items: np.ndarray, item_at: np.ndarray,
                 leo: np.ndarray, leo_at: np.ndarray) -> np.ndarray:
    """The sets the given threads name, and the sets those name (origins, Leo tops), transitively."""
    needed = np.zeros(n_sets, dtype=bool)
    for found in threads:
        needed[found[:, 0]] = True
    for s in range(n_sets - 1, -1, -1):  # a set names earlier sets only: one pass down
        if needed[s]:
            needed[items[item_at[s]:item_at[s + 1], 2]] = True
            needed[leo[leo_at[s]:leo_at[s + 1], 1]] = True
    return needed


def _computed_cells(configs: Configs) -> np.ndarray:
    """``(configuration, class, after)`` of every transition the parser computed (not a dead one,
    nor a loop back to itself: both are set when a configuration is made)."""
    table = configs.table[: len(configs)]
    config, byte_class = np.nonzero(table >= 0)
    after = table[config, byte_class]
    looping = np.asarray(configs.loop_state, dtype=np.int64)[config] >= 0
    kept = ~(looping & (after == config))
    return np.stack([config[kept], byte_class[kept], after[kept]], axis=1).astype(np.int64)


def _rows_of(kept: np.ndarray, offsets: np.ndarray, rows: np.ndarray, column: int,
             new_id: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The CSR rows of the ``kept`` owners, their ``column`` renumbered by ``new_id``."""
    pieces = [rows[offsets[k]:offsets[k + 1]] for k in kept.tolist()]
    return _offsets([len(x) for x in pieces]), _renumbered(np.concatenate([rows[:0], *pieces]), {column: new_id})


def _renumbered(rows: np.ndarray, columns: dict[int, np.ndarray]) -> np.ndarray:
    """``rows`` as int32 with each given column mapped through its table (-1 stays -1)."""
    out = rows.astype(np.int64, copy=True)
    for column, new_id in columns.items():
        out[:, column] = np.where(out[:, column] < 0, -1, new_id[np.maximum(out[:, column], 0)])
    return out.astype(np.int32)


def _offsets(counts: list[int]) -> np.ndarray:
    offsets = np.zeros(len(counts) + 1, dtype=np.int32)
    np.cumsum(counts, out=offsets[1:])
    return offsets


def within(values, low, high) -> bool:
    """Every value in ``[low, high)`` (``high`` may be an array: one bound per value)."""
    values = np.asarray(values, dtype=np.int64)
    return bool(((values >= low) & (values < high)).all())

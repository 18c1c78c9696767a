"""Parser configurations: the lexer threads alive at one text position, and their transitions.

Lexing follows the *all splits* rule (or longest match, below): a lexeme may end at any byte
where its DFA accepts, and every way of cutting the text into lexemes is followed at once.  The state after a text
prefix is therefore a set of *threads* ``(origin set, terminal, lexer state)``: "at Earley set
``origin`` the parser expected ``terminal`` (or it is an ignored terminal), and the bytes since
then took its DFA to ``lexer state``".  Every lexer state is live and every Earley item can
complete (the compiler trims the grammar), so a configuration with at least one thread is a
prefix of some sentence; the empty configuration is dead.

On a byte class ``c`` every thread steps in its DFA; a thread that dies is dropped; a thread
that reaches an accepting state also *completes* its lexeme: the parser scans it from the
thread's origin (``EarleySets.scan``) and the resulting set starts one fresh thread per
terminal it expects and per ignored terminal; an ignored terminal's completion returns to its
origin set unchanged (it starts the same fresh threads again).  The configuration accepts
(eos allowed) when a set completed at this position holds ``S' -> start .``.

Under *longest match* (a Lark file, format 10: ``indexc.grammar.longest_match``), a thread of a
terminal that ends so does not complete on reaching an accepting state: its lexeme ends only
where the next byte cannot extend it.  Stepping class ``c``, such a thread in an accepting state
that dies on ``c`` completes *before* the byte, and the fresh threads of the set its scan leads
to read ``c`` themselves (``_step_longest``); the configuration accepts when one of its threads
could end at the end of the text.  A fresh thread of such a terminal starts in a state that does
not accept (nullable terminals keep all splits), so one byte ends at most one lexeme of that
kind per thread.  A lark.lark name is then one thread, not one per way to cut it into names.

Configurations are interned (id = sorted threads + accepting flag) and their transitions kept
in a table ``configs x classes`` filled lazily (``UNKNOWN`` until first asked): this is a DFA
over configurations built on demand.  It is held as Python rows (``rows``: ``advance`` reads
one entry per byte, the open tokens' steps and the walk's tail read them) and as a numpy array
for the walk's numpy levels (one gather per trie level), written from the rows when it is
read (``table``): most configurations are only ever stepped in Python, and writing their numpy
rows and cells as they were made cost ~4 us a new configuration (seven grammar-path MaskBench
files, cold walks, 5 interleaved pairs: walk CPU median 1,043 -> 1,012 ms, masks over 200 us
1,621 -> 1,564, every mask byte-identical; the bundled grammars' walks unchanged within noise).
A row is an ``array("i")``, not a list: the cyclic garbage collector tracks it (Python 3.11)
but has no entries of it to visit, where the lists' entries were most of what a full collection
visited once a memo had grown (o39444 after its cold walks: 5,421 lists holding 412k entries,
against 28k other tracked objects), and such a collection lands in one mask.  Six grammar-path
MaskBench files, two interleaved pairs, every mask the same: masks over 1 ms 245 -> 206, over
200 us 2,730 -> 2,689, fills 1,861 -> 1,810 ms (both passes summed); the bundled samples the
same within noise (RFC-XML's p99 1,154-1,368 -> 934-1,184 us, C's 953-1,589 -> 986-1,272).
Limits: threads per configuration and configurations per memo (``GrammarLimits``).

A step depends on the class only through the lexer states its threads go to, so when the walk
asks one configuration for many classes at once (its first level) the classes that take every
thread alike are stepped once (``_fill_alike``): RFC-XML's cold walk made 1,213 steps, of
which 395 distinct (configuration, next states) pairs; now 494 (session 10).
"""

from __future__ import annotations

from array import array
from collections.abc import Callable

import numpy as np

from indexc_runtime.grammar.earley import EarleySets
from indexc_runtime.grammar.errors import GrammarLimitExceeded, GrammarLimits
from indexc_runtime.grammar.tables import LexerTables

UNKNOWN = -2
DEAD = -1
ALIKE_MIN_CLASSES = 4  # a resolve asking one configuration for this many classes groups them (``_fill_alike``)
FEW_TO_SYNC = 8  # new rows, or filled cells, written one by one when the numpy table is read (``_sync``)
MAX_UNSYNCED_CELLS = 1 << 16  # cells of the numpy table noted before it is written anyway (memory stays bounded)


class Configs:
    """Interned configurations of one memo (``matcher.ParserMemo``) and their lazily built transition table."""

    def __init__(self, lexer: LexerTables, sets: EarleySets, ignore: frozenset[int], n_classes: int,
                 limits: GrammarLimits):
        self._lexer = lexer
        self._sets = self.sets = sets
        self._ignore = self.ignore = tuple(sorted(ignore))
        self.ignored = frozenset(ignore)  # membership, per completed thread (and the walker's)
        self._limits = limits
        self._id_of: dict[tuple, int] = {}
        self.threads: list[tuple[tuple[int, int, int], ...]] = []
        self.accepting: list[bool] = []
        self.loop_state: list[int] = []  # per configuration: the lexer state it loops in, or -1 (``_loop_state``)
        self.rows: list[array] = []  # the transitions as int32 arrays, the truth (``next``, the walk's tail)
        self._table = np.full((64, n_classes), UNKNOWN, dtype=np.int32)  # the same, for numpy reads (``table``)
        self._synced = 0  # configurations whose rows the numpy table has (ids below: those made before its last read)
        self._unsynced_cells: tuple[list[int], list[int], list[int]] = ([], [], [])  # their cells filled since
        self._row_templates: dict[int, array] = {}  # live-class bits -> a new row
        self._fresh_afters: dict[tuple[frozenset[int], int], tuple] = {}  # see _fresh_after
        self._fresh_lives: dict[frozenset[int], int] = {}  # followers -> what one of their fresh threads survives
        self._fresh: dict[int, tuple[tuple[int, int, int], ...]] = {}
        self._scanned: dict[tuple[int, int], tuple[int, ...]] = {}  # see scanned
        self._followers: dict[int, frozenset[int]] = {}  # see followers
        self._follower_sets: dict[frozenset[int], frozenset[int]] = {}  # one object per distinct followers set
        self.steps = 0  # parser steps made (``fill``): what a compile-time warm-up's budget counts
        # called with each new configuration's threads and flag (``stored_match.StoredMatch.new_config``), if set
        self.on_new: Callable[[int, set, bool], None] | None = None
        # drops threads another of the same language makes redundant (``languages.OriginMerger``), if set
        self.merger = None
        self._merged_ids: dict[tuple[frozenset, bool], int] = {}  # threads before a merge that dropped some -> id
        self._longest = lexer.longest  # None: all splits
        if self._longest is not None:
            self._step = self._step_longest
        self.initial = self._intern(set(self.fresh(sets.initial)), sets.accepting[sets.initial])

    def __len__(self) -> int:
        return len(self.threads)

    @property
    def table(self) -> np.ndarray:
        """The transitions as a numpy table ``configurations x classes`` (int32), for the walk's
        numpy levels: written from ``rows`` when read (see the module note).  Do not keep it
        across a change: a later read may return another array."""
        if self._synced < len(self.rows) or self._unsynced_cells[0]:
            self._sync()
        return self._table

    def _sync(self) -> None:
        """Write the configurations made, and the cells of older ones filled, since the last read.

        A few of each (the usual read: a mask's walk makes a handful) are written one by one: the
        batch forms (a joined buffer reshaped into a slice, a scatter from three lists) cost
        ~20-50 us each the first time a process calls them, on its first computed mask."""
        made = len(self.rows)
        if made > self._table.shape[0]:
            grown = np.full((max(2 * self._table.shape[0], made), self._table.shape[1]), UNKNOWN, dtype=np.int32)
            grown[: self._table.shape[0]] = self._table
            self._table = grown
        table, rows = self._table, self.rows
        if made - self._synced <= FEW_TO_SYNC:
            for config in range(self._synced, made):
                table[config] = rows[config]
        else:
            written = np.frombuffer(b"".join(rows[self._synced:made]), dtype=np.int32)
            table[self._synced:made] = written.reshape(made - self._synced, -1)
        self._synced = made
        configs, classes, found = self._unsynced_cells
        if configs:
            if len(configs) <= FEW_TO_SYNC:
                for config, byte_class, after in zip(configs, classes, found):
                    table[config, byte_class] = after
            else:
                table[configs, classes] = found
            self._unsynced_cells = ([], [], [])

    def fresh(self, set_id: int) -> tuple[tuple[int, int, int], ...]:
        """The threads a new Earley set starts: one per terminal that may start a lexeme there."""
        found = self._fresh.get(set_id)
        if found is None:
            starts = self._lexer.terminal_start
            found = tuple((set_id, t, starts[t]) for t in sorted(self.followers(set_id)))
            self._fresh[set_id] = found
        return found

    def followers(self, set_id: int) -> frozenset[int]:
        """The terminals that may start a lexeme at Earley set ``set_id``: the ones it expects and
        the ignored ones (memoised: the walker's boundary masks and lexeme paths ask it too)."""
        found = self._followers.get(set_id)
        if found is None:
            found = self.ignored.union(self._sets.expected[set_id])
            found = self._followers[set_id] = self._follower_sets.setdefault(found, found)
        return found

    def next(self, config: int, byte_class: int) -> int:
        """The configuration after one byte of ``byte_class`` (``DEAD`` if no thread survives)."""
        found = self.rows[config][byte_class]
        if found == UNKNOWN:
            found = self.fill(config, byte_class)
        return found

    def fill(self, config: int, byte_class: int) -> int:
        """Compute one unknown transition and record it (the numpy table on its next read)."""
        found = self._step(config, byte_class)
        self.steps += 1
        self.rows[config][byte_class] = found
        self._record(config, byte_class, found)
        return found

    def _record(self, config: int, byte_class: int, found: int) -> None:
        """Note a cell for the numpy table (a configuration it has not got yet will be copied whole)."""
        if config < self._synced:
            configs, classes, after = self._unsynced_cells
            configs.append(config)
            classes.append(byte_class)
            after.append(found)
            if len(configs) >= MAX_UNSYNCED_CELLS:
                self._sync()

    def resolve(self, configs: np.ndarray, classes: np.ndarray) -> None:
        """Fill the table for every (configuration, class) pair given (the walk's unknown entries)."""
        rows = self.rows
        unknown: dict[int, list[int]] = {}
        for config, byte_class in set(zip(configs.tolist(), classes.tolist())):
            if rows[config][byte_class] == UNKNOWN:
                unknown.setdefault(config, []).append(byte_class)
        for config, found in unknown.items():
            if len(found) < ALIKE_MIN_CLASSES:
                for byte_class in found:
                    self.fill(config, byte_class)
            else:
                self._fill_alike(config, found)

    def _fill_alike(self, config: int, classes: list[int]) -> None:
        """Fill ``config``'s entries on ``classes``, one parser step per group of classes that take
        every thread to the same lexer state: a step depends on the class through those states
        only, so the group's configuration after is one.  A walk's first level asks a
        configuration for many classes at once, and in RFC-XML's text content most of them are
        letters that every thread takes alike (the cold walk's 1,213 steps were 395 distinct
        (configuration, next states) pairs)."""
        states = np.array([state for _, _, state in self.threads[config]], dtype=np.intp)
        after = self._lexer.next[states][:, classes].T  # a row of next states per class
        if self._longest is not None:
            after = self._with_ending(config, states, classes, after)
        after = np.ascontiguousarray(after)
        width = after.shape[1] * after.itemsize
        keys = after.tobytes()
        groups: dict[bytes, list[int]] = {}
        for k, byte_class in enumerate(classes):
            groups.setdefault(keys[k * width:(k + 1) * width], []).append(byte_class)
        row = self.rows[config]
        for alike in groups.values():
            found = self.fill(config, alike[0])
            for byte_class in alike[1:]:
                row[byte_class] = found
                self._record(config, byte_class, found)

    def _with_ending(self, config: int, states: np.ndarray, classes: list[int], after: np.ndarray) -> np.ndarray:
        """``after`` (classes x threads) and, under longest match, per thread that may end (it
        accepts), the next states of the threads its end starts, where it dies on the class
        (else ``UNKNOWN``): with those the step again depends on the class through states only.
        Grouping each ending class alone made lark.lark's cold masks step ~3x more than needed
        (495 steps for 171 distinct outcomes after ``start:``)."""
        lexer, columns = self._lexer, [after]
        for k, (origin, terminal, state) in enumerate(self.threads[config]):
            if not (self._longest[state] and lexer.accepting[state]):
                continue
            starts = [start for set_id in self.scanned(origin, terminal) for _, _, start in self.fresh(set_id)]
            if starts:
                started = lexer.next[np.array(starts, dtype=np.intp)][:, classes].T
                columns.append(np.where(after[:, k:k + 1] < 0, started, UNKNOWN).astype(after.dtype))
        return np.hstack(columns) if len(columns) > 1 else after

    def _step_longest(self, config: int, byte_class: int) -> int:
        """``_step`` under longest match: a longest-match thread completes when it accepts and
        dies on the class, and the threads its scan starts read the byte."""
        flat, width = self._lexer.next_flat, self._lexer.n_classes
        accepting_state, longest = self._lexer.accepting, self._longest
        threads: set[tuple[int, int, int]] = set()
        accepting = False
        ended: list[tuple[int, int]] = []
        for origin, terminal, state in self.threads[config]:
            after = flat[state * width + byte_class]
            if after < 0:
                if longest[state] and accepting_state[state]:
                    ended.append((origin, terminal))
            else:
                accepting = self._moved(threads, origin, terminal, after) or accepting
        for origin, terminal in ended:
            for set_id in self.scanned(origin, terminal):
                for fresh_terminal, after in self._fresh_after(set_id, byte_class):
                    accepting = self._moved(threads, set_id, fresh_terminal, after) or accepting
        if not threads:
            return DEAD
        return self._merged(threads, accepting) if self.merger is not None else self._intern(threads, accepting)

    def _moved(self, threads: set, origin: int, terminal: int, state: int) -> bool:
        """Add the thread that moved to ``state`` (and, all splits, what its completion starts);
        whether the text may end there."""
        threads.add((origin, terminal, state))
        if not self._lexer.accepting[state]:
            return False
        accepting = False
        for set_id in self.scanned(origin, terminal):
            accepting = accepting or self._sets.accepting[set_id]
            if not self._longest[state]:
                threads.update(self.fresh(set_id))
        return accepting

    def scanned(self, origin: int, terminal: int) -> tuple[int, ...]:
        """The sets a lexeme of ``terminal`` from ``origin`` leads to: its origin again if ignored,
        and the parser's scan where the parser expects it (the walker's boundary masks ask it too).
        Kept: every completing thread asks (lark.lark's decomposition: 58k asks)."""
        key = (origin, terminal)
        found = self._scanned.get(key)
        if found is None:
            after = self._sets.scan(origin, terminal)
            found = ((origin,) if terminal in self.ignored else ()) + ((after,) if after >= 0 else ())
            self._scanned[key] = found
        return found

    def _step(self, config: int, byte_class: int) -> int:
        lexer, sets, ignored = self._lexer, self._sets, self.ignored
        flat, width, accepting_state = lexer.next_flat, lexer.n_classes, lexer.accepting
        threads: set[tuple[int, int, int]] = set()
        accepting = False
        for origin, terminal, state in self.threads[config]:
            state = flat[state * width + byte_class]
            if state < 0:
                continue
            threads.add((origin, terminal, state))
            if not accepting_state[state]:
                continue
            if terminal in ignored:
                threads.update(self.fresh(origin))
                accepting = accepting or sets.accepting[origin]
            after = sets.scan(origin, terminal)
            if after >= 0:
                threads.update(self.fresh(after))
                accepting = accepting or sets.accepting[after]
        if not threads:
            return DEAD
        return self._merged(threads, accepting) if self.merger is not None else self._intern(threads, accepting)

    def _merged(self, threads: set, accepting: bool) -> int:
        """The configuration of ``threads`` once the merger has dropped what it drops: a step's
        threads before the merge are kept with the configuration they made, where the merge
        dropped some.  Such a merge is made again the same way: it reads the threads and their
        origins' digests, which never change, and the digests' budget only eases as they are kept
        (a merge over it drops nothing and is not kept).  RFC-XML's cold walk made 629 merges,
        258 of them of a thread set merged before, ~15-70 us each."""
        if len(threads) <= self.merger.from_shared:
            return self._intern(threads, accepting)
        frozen = frozenset(threads)
        found = self._merged_ids.get((frozen, accepting))
        if found is None:
            merged = self.merger.merged(threads)
            if merged is threads:  # nothing dropped: its key is made already
                return self._intern(threads, accepting, frozen)
            found = self._merged_ids[(frozen, accepting)] = self._intern(merged, accepting)
        return found

    def _intern(self, threads: set, accepting: bool, frozen: frozenset | None = None) -> int:
        """The id of the configuration of ``threads`` (``frozen``: them as a frozenset, if made)."""
        # no sort: a configuration's threads are iterated, never ordered
        key = (frozenset(threads) if frozen is None else frozen, accepting)
        found = self._id_of.get(key)
        if found is not None:
            return found
        if len(threads) > self._limits.max_threads:
            raise GrammarLimitExceeded("max_threads", self._limits.max_threads, "too many lexer threads at once")
        if len(self.threads) >= self._limits.max_configs:
            raise GrammarLimitExceeded("max_configs", self._limits.max_configs, "too many parser configurations")
        config = len(self.threads)
        self._id_of[key] = config
        self.threads.append(tuple(threads))
        self.accepting.append(accepting)
        self.loop_state.append(self._loop_state(threads, accepting))
        row = self._row_template(self.threads[config])[:]
        if self.loop_state[config] >= 0:
            self._loop_to_itself(config, self.loop_state[config], row)
        self.rows.append(row)
        if self.on_new is not None:
            self.on_new(config, threads, accepting)
        return config

    def _loop_state(self, threads: set, accepting: bool) -> int:
        """The lexer state whose loop classes take the configuration back to itself, or -1.

        One thread in a state that does not accept, in a configuration that does not accept: on
        a class where that state loops nothing completes and no eos flag changes, so the
        configuration is itself again.  Known from the lexer alone; the walker's loop jumps ask
        the same question (``MaskWalker._loop_of``)."""
        if len(threads) != 1 or accepting:
            return -1
        (_, _, state), = threads
        return -1 if self._lexer.accepting[state] else state

    def _loop_to_itself(self, config: int, state: int, row: array) -> None:
        """Set the configuration's row to itself on its loop state's loop classes (6,037 of the
        13,238 transitions the parser still computed on the pkg_schema walk)."""
        for byte_class in self._lexer.loop_classes(state):
            row[byte_class] = config

    def _row_template(self, threads: tuple[tuple[int, int, int], ...]) -> array:
        """A new configuration's first row: ``DEAD`` on every class no thread survives, else ``UNKNOWN``.

        Which classes a thread survives depends on its lexer state alone, so the dead entries
        are known without the parser (under longest match, a thread that may end before the
        class survives it where a thread its scan starts does: the scan is made here); rows are
        shared by every configuration whose threads survive the same classes (a handful of
        distinct ones per grammar).  A thread that may end reads what its scanned sets' fresh
        threads survive, kept per set of terminals (``_fresh_live``)."""
        lexer, longest, live = self._lexer, self._longest, 0
        for origin, terminal, state in threads:
            live |= lexer.live_classes(state)
            if longest is not None and longest[state] and lexer.accepting[state]:
                # it may end before a class it dies on: live there iff what follows takes the class
                for set_id in self.scanned(origin, terminal):
                    live |= self._fresh_live(set_id)
        found = self._row_templates.get(live)
        if found is None:
            width = self._table.shape[1]
            found = self._row_templates[live] = array("i", [UNKNOWN if live >> c & 1 else DEAD for c in range(width)])
        return found

    def _fresh_after(self, set_id: int, byte_class: int) -> tuple[tuple[int, int], ...]:
        """(terminal, state after the class) of each thread ``set_id`` starts (``fresh``) that
        survives ``byte_class``, kept by the terminals they are of (``followers``): a longest-match
        lexeme that ends before a class starts them on it (lark.lark's decomposition: 125k starts
        stepped, 11k alive, for 16k ends)."""
        followers = self.followers(set_id)
        key = (followers, byte_class)
        found = self._fresh_afters.get(key)
        if found is None:
            flat, width, starts = self._lexer.next_flat, self._lexer.n_classes, self._lexer.terminal_start
            stepped = ((terminal, flat[starts[terminal] * width + byte_class]) for terminal in sorted(followers))
            found = tuple((terminal, after) for terminal, after in stepped if after >= 0)
            self._fresh_afters[key] = found
        return found

    def _fresh_live(self, set_id: int) -> int:
        """The classes one of the threads ``set_id`` starts survives (``fresh``), kept by the
        terminals they are of (``followers``: one object per distinct set of them), which sets
        share: lark.lark's decomposition asked 3,478 times, of 3,320 sets, ~50 starts each."""
        followers = self.followers(set_id)
        found = self._fresh_lives.get(followers)
        if found is None:
            starts = self._lexer.terminal_start
            found = 0
            for terminal in followers:
                found |= self._lexer.live_classes(starts[terminal])
            self._fresh_lives[followers] = found
        return found

    # -- a memo computed ahead of time (``stored_memo``) ------------------------------------------

    def adopt(self, threads: set, accepting: bool) -> int:
        """The id of a stored configuration (its threads' origins already live set ids)."""
        return self._intern(threads, accepting)

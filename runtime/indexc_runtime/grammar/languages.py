"""Configurations keyed by the language that may follow them: one mask for many parser contexts.

Why.  A mask is a function of the texts that may follow its position (a token is allowed iff
the text stays a prefix of a sentence), but the memos key it by *content*: a configuration by
its threads, a thread by its origin set, a set by its items and their origins.  Content names
the context a position was reached in, so positions that accept the same texts are still apart:
in C, ``return a`` in the first function (items whose origins reach ``S' -> . program``) and in
any later one (``program -> program . function``); the first and the fifth statement of a block;
in RFC-XML, the same text content under other elements.  Each paid a cold mask (~1-3 ms in C),
and a compile-time warm-up (``stored_memo``) only helps where it met the very same context.

The key.  An Earley set's language is fixed by its own items and what follows each of them: an
item ``A -> alpha . beta`` from origin ``o`` is followed by ``beta`` and then by whatever
follows ``A`` at ``o``, which is the set the parser reaches when ``A`` completes there
(``goto(o, A)``: the items of ``o`` waiting on ``A`` stepped over it and closed, Leo's path
followed, as ``EarleySets._close`` completes: ``EarleySets.completed``).  So a set is keyed by its items' ``(rule, dot)``,
each with the key of its ``goto`` set (and whether that completion passes ``S' -> start .``),
its Leo entries the same way, its wanted nonterminals and its accepting flag; recursively, up the
chain of origins, until the chains of two contexts meet: ``goto`` of the first function's
origin and of a later one's by ``function`` is one set.  The recursion is a digest (blake2b, 16
bytes) over ``(rule, dot)`` numbers and child digests: no set id enters it, so it is the same in
every process and memo, and the compiler stores the digests of its warm-up's configurations
beside their masks (format 8, ``memo_language_*``).  A cycle (left recursion: the set after a
statement is its own ``goto`` by the statement list) is a back-reference to the set on the
current path, by its distance; a digest that names no set outside its own subtree is kept per set.

A configuration's key: its accepting flag and, per thread, its terminal, lexer state and the key
of its origin set (whose language fixes what the thread's lexeme may be followed by).  Two
configurations with one key accept the same texts after them, with the same lexer states, so
they have one mask: exact, not a heuristic.  The walk asks the
parser, the precomputed masks and the undecided sets only through that (``futures``' argument),
and the compiler checks every stored key against the mask its walk computed.

Measured before building it (scratch protocol of ``bench/key_bounds.py``: the compile's warm-up
texts walked live, then the sample documents, computed masks keyed both ways, rows compared;
that prototype keyed a thread by its scan's set, as ``futures`` does): no two masks with one key
differed; of the documents' computed masks, the language key found an earlier one for C 9 of
23 (c-other 4 of 34), RFC-XML 66 of 94, arithmetic 3 of 4 (other 4 of 4), where the future key
found 1, 3 and 0; JSON and the recursive MaskBench schemas (o39444, sp_20, kb_222, o9771) none
more than the future key, so the compiler stores no keys for a JSON Schema and a file without
keys never computes one.

What a key costs, and where it is asked.  A key makes the sets its chain reaches (``completed``:
a closure and an interning each, ~30 us in Python) and a thread keyed by its scan's set made
the scan too: 100-440 us a key on the C sample, as much as a served mask saved on the
documents where keys rarely match (c-other).  So a thread is keyed by its origin (the origin's
language fixes its scan's: exact, a little less shared), the key is asked before the future key
(which makes the scans) and only for a configuration whose *shape* (threads without origins,
accepting flag: a part of every key) is a stored configuration's or one computed before
(``unknown_shape``).  Five alternated rounds of the bench's cold walks, one file each, process time,
min / median (scratch script): C sample, first request 26.7 / 28.8 -> 19.8 / 24.4 ms, mask p50
347 / 397 -> 98 / 132 us; c-other 30.5 / 42.5 -> 31.1 / 39.5 ms, p50 120 / 155 -> 75 / 98;
RFC-XML 49.9 / 76.6 -> 42.0 / 68.3 ms, p50 35 / 47 -> 32 / 53; arithmetic-other 7.0 / 10.1 ->
6.4 / 8.8 ms.  Without the shape test: C 23.7 / 25.1 ms, c-other 33.1 / 41.9 ms, p50 99 / 116.
Format 13 keys a thread by the sets its lexeme leads to instead (``Configs.scanned``: its scan,
and its origin for an ignored terminal), each by a digest that reads an item by the symbols after
its dot and a Leo entry as its item (``SetLanguages(by_rest=True)``, the path keys' digest): a
thread's mask depends on those sets only (its lexer state's masks, the terminals they expect, the
lexeme paths scanned from them), and two origins that differ only before the thread's terminal
(a C statement's first token at a block's first statement or a later one, lark.lark's rule name
with or without parameters) scan into sets of one digest.  The scans are made for the key, but
only for a known shape, and the walk makes them anyway on a miss.  Measured (session 33, thread
time of the samples' walks in fresh processes, three alternated runs, the format 12 keys against
these): C 6.7-11.4 -> 5.5-5.6 ms, its slowest mask 1.13-1.72 -> 1.12-1.17 ms (the one that is
still computed pays its key: 0.81-1.56 -> 1.12-1.17 ms); c-other 9.5-11.1 -> 8.0-9.6 ms; lark.lark
5.9-6.5 -> 4.8-5.3 ms; lark-other 13.1-13.6 -> 10.7-11.8 ms.  A file of format 8-12 is keyed by
origins, as its stored keys were (``for_version``).
Bounded: at most ``MAX_VISITS`` sets keyed afresh per configuration (no key past that: the mask
is computed as before); a ``GrammarLimitExceeded`` while making a set gives no key.

The same digests merge threads (``OriginMerger``, format 9, session 26).  Two threads of one
terminal and lexer state whose origin sets have one digest accept the same texts, so a
configuration keeps one of them.  It matters where all splits meet adjacency (since session 27
a Lark file is lexed by longest match and its names no longer split; a GBNF grammar, or a Lark
grammar read as all splits, still can): lark.lark's names
may stand side by side (``expansion: expr*``, spaces ignored), so every letter of an identifier
may end a name, and each split's set names the previous split's (``value: name . "{" ...``
waits with its origin).  Its sample's walk made configurations of up to 1,440 threads from
102 origins, and the compile's warm-up stopped at ``max_threads`` (4,096) after 151 of its
2,048 tokens; merged, at most 32 threads and 5 origins, every mask of the walk the same (a
digest of all of them), the cold walk 420 -> 142 ms.  Digests are made only where more than
``MERGE_FROM_SHARED`` threads share a terminal and state with another origin's: MaskBench's
recursive schemas name up to 45 origins in a configuration, never more than two for one
terminal and state, and digesting them for nothing cost their masks' p99 ~20%.
"""

from __future__ import annotations

import hashlib
import struct

from indexc_runtime.grammar.configs import Configs
from indexc_runtime.grammar.earley import EarleySets
from indexc_runtime.grammar.errors import GrammarLimitExceeded

KEY_BYTES = 16
SCANNED_KEYS_FROM = 13  # the format from which a configuration's key reads its threads' scanned sets
MAX_VISITS = 512  # sets keyed afresh for one configuration's key; past it, no key
# threads beyond one per terminal and state past which a configuration is merged (``OriginMerger``;
# written into each file as ``origin_merge``, format 9)
MERGE_FROM_SHARED = 4
_OPEN = 1 << 62  # "names no set on the path": the lowest path position a digest refers to
_NONE = b"\x00" * KEY_BYTES  # the key of no set (a completion that leads nowhere but maybe to the end)
_PACK4 = struct.Struct("<4i").pack
_PACK3 = struct.Struct("<3i").pack


class _OverBudget(Exception):
    pass


class SetLanguages:
    """Language digests of one memo's Earley sets (see the module note); the sets made on the way
    (``EarleySets.completed``) go into the memo like any other."""

    def __init__(self, sets: EarleySets, *, by_rest: bool = False):
        """``by_rest``: an item is digested by the symbols after its dot, not its rule and dot, and a
        Leo entry as the item it stands for (``path_keys``' digests; see ``_item_part``)."""
        self._sets = sets
        self.by_rest = by_rest
        self._rests: dict[tuple[int, int], bytes] = {}
        self._lhs_of = sets.rules.lhs_symbol
        self._closed: dict[int, bytes] = {}  # set id -> its digest, where it is the same on every path
        self._completions: dict[tuple[int, int], tuple[int, bool]] = {}  # (origin, symbol) -> ``completed``
        self._visits = 0

    def digests(self, set_ids) -> dict[int, bytes]:
        """The digests of ``set_ids``, under one budget of ``MAX_VISITS`` sets keyed afresh
        (``_OverBudget`` past it; ``GrammarLimitExceeded`` from the sets made on the way)."""
        self._visits = 0
        found: dict[int, bytes] = {}
        for set_id in set_ids:
            if set_id not in found:
                found[set_id] = self._digest(set_id, {})[0]
        return found

    def digest(self, set_id: int) -> bytes | None:
        """One set's digest, or None where it would cost more than ``MAX_VISITS`` sets (or a set
        made on the way meets a limit): ``path_keys``' key."""
        try:
            return self.digests((set_id,))[set_id]
        except (_OverBudget, GrammarLimitExceeded):
            return None

    def _digest(self, set_id: int, path: dict[int, int]) -> tuple[bytes, int]:
        """(the set's digest, the lowest position on ``path`` it refers to, or ``_OPEN``).

        A digest is kept per set only where it is the same on every path: a set on a cycle
        longer than one step through itself is not kept (met again from inside that cycle, it
        is a back-reference there, not the kept digest), so the key of a configuration is a
        function of its content alone, whatever was keyed before."""
        if set_id < 0:
            return _NONE, _OPEN
        found = self._closed.get(set_id)
        if found is not None:
            return found, _OPEN
        at = path.get(set_id)
        if at is not None:  # a cycle: the distance back to the set, which the path fixes
            distance = len(path) - at
            return _hash(b"B%d" % distance, ()), (_OPEN if distance == 1 else at)
        self._visits += 1
        if self._visits > MAX_VISITS:
            raise _OverBudget
        sets, lhs_of = self._sets, self._lhs_of
        position = len(path)
        path[set_id] = position
        lowest = _OPEN
        own, leo, wanted, accepting = sets.content(set_id)
        items, entries = [], []
        for rule, dot, origin in own:
            after, through = self._completed(origin, lhs_of[rule])
            digest, low = self._digest(after, path)
            lowest = min(lowest, low)
            items.append(self._item_part(rule, dot, through) + digest)
        for symbol, (top, top_symbol, through) in leo.items():
            after, through_too = self._completed(top, top_symbol)
            digest, low = self._digest(after, path)
            lowest = min(lowest, low)
            entries.append(self._entry_part(symbol, through or through_too) + digest)
        del path[set_id]
        if self.by_rest:  # one list, each distinct part once: the same texts, one digest
            items, entries, kind = sorted(set(items + entries)), [], b"K"
        else:
            items.sort()
            entries.sort()
            kind = b"S"
        head = _PACK4(len(items), len(entries), len(wanted), accepting)
        digest = _hash(kind + head + struct.pack(f"<{len(wanted)}i", *sorted(wanted)), items + entries)
        if lowest > position:  # refers to nothing at or above itself: the same on every path
            self._closed[set_id] = digest
        return digest, (lowest if lowest < position else _OPEN)

    def _item_part(self, rule: int, dot: int, through: bool) -> bytes:
        """An own item's part of a digest, before its ``goto`` set's digest: its rule and dot, or
        (``by_rest``) the symbols after its dot, which with the ``goto`` set fix the texts it
        accepts (rules lowered from one Lark rule's optional parts, or a list's first and later
        elements, then share)."""
        if not self.by_rest:
            return _PACK3(rule, dot, through)
        rest = self._rests.get((rule, dot))
        if rest is None:
            symbols = self._sets.rules.rhs(rule)[dot:]
            rest = self._rests[(rule, dot)] = struct.pack(f"<{len(symbols) + 1}i", len(symbols), *symbols)
        return rest + _PACK3(through, 0, 0)

    def _entry_part(self, symbol: int, through: bool) -> bytes:
        """A Leo entry's part: its symbol, or (``by_rest``) the item ``A -> alpha . symbol`` it
        stands for, whose rest is that one symbol."""
        if not self.by_rest:
            return _PACK3(symbol, through, -1)
        return struct.pack("<2i", 1, symbol) + _PACK3(through, 0, 0)

    def _completed(self, origin: int, symbol: int) -> tuple[int, bool]:
        key = (origin, symbol)
        found = self._completions.get(key)
        if found is None:
            found = self._completions[key] = self._sets.completed(origin, symbol)
        return found


class OriginMerger:
    """Drops the threads of a configuration that another of its threads makes redundant: the same
    terminal and lexer state, from an origin with the same language (``SetLanguages``), which the
    same texts follow (a thread meets its origin only through the sets it leads to, whose
    languages are its origin's: the language keys' argument).  Of such threads the one with the
    lowest origin id is kept, a choice made from the configuration's own threads, so that a
    fresh memo that adopts a stored one (``verify``) makes the same choice.

    Why: all splits lets a lexeme end at any byte where it accepts, so where a grammar puts two
    names side by side with only optional separators (lark.lark's ``expansion: expr*``), every
    letter of an identifier may end one name and start the next; each split's Earley set names
    the previous one (an item ``value: name . "{" ...`` waits with its origin), so a
    configuration held one thread per letter so far: lark.lark's sample walk made configurations
    of up to 1,440 threads from 102 origins (docs/grammar-path.md, session 26).

    Asked of every new configuration of a version 9 or later file, it does something only where more than
    ``MERGE_FROM_SHARED`` (the file's ``origin_merge``) threads share their terminal and state with
    another thread: MaskBench's recursive schemas' configurations name up to 45 origins (a long
    string's chunk positions), but never more than two for one terminal and state; digesting
    their origins for nothing cost their masks' p99 ~20%, and the test as it is, one set
    comprehension a new configuration, nothing measurable (61 files, two alternated rounds each
    way: p99 313-331 against 314-324 µs)."""

    def __init__(self, languages: SetLanguages, ignored: frozenset[int], from_shared: int):
        self._languages = languages
        self._ignored = ignored
        self.from_shared = from_shared  # the file's ``origin_merge`` (format 9)
        self.dropped = 0  # threads dropped so far (tests)

    def merged(self, threads: set) -> set:
        """``threads`` without those another thread keeps."""
        limit = self.from_shared
        if len(threads) <= limit or len(threads) - len({thread[1:] for thread in threads}) <= limit:
            return threads  # few threads share a lexeme (one set comprehension: the usual answer)
        ignored = self._ignored
        by_lexeme: dict[tuple[int, int], list[int]] = {}
        for origin, terminal, state in threads:
            if terminal not in ignored:
                by_lexeme.setdefault((terminal, state), []).append(origin)
        shared = {lexeme: origins for lexeme, origins in by_lexeme.items() if len(origins) > 1}
        if sum(map(len, shared.values())) - len(shared) <= limit:  # the ignored terminals' threads left out
            return threads
        try:
            digests = self._languages.digests(sorted({origin for origins in shared.values() for origin in origins}))
        except _OverBudget:
            return threads
        dropped = set()
        for (terminal, state), origins in shared.items():
            first: dict[bytes, int] = {}
            for origin in sorted(origins):
                if first.setdefault(digests[origin], origin) != origin:
                    dropped.add((origin, terminal, state))
        self.dropped += len(dropped)
        return threads - dropped if dropped else threads


class LanguageKeys:
    """Language keys of one memo's configurations (see the module note), from its sets' digests."""

    def __init__(self, configs: Configs, set_languages: SetLanguages | None = None, *, by_scan: bool = False):
        """``by_scan`` (format 13, ``for_version``): a thread is keyed by the sets its lexeme leads
        to (``Configs.scanned``), each by its digest of items by their rest (``set_languages`` must
        be such); else (formats 8-12) by its origin's digest."""
        if set_languages is not None and set_languages.by_rest != by_scan:
            raise ValueError("internal error: language keys by scan read digests by rest, and only those")
        self._configs = configs
        self._by_scan = by_scan
        self._sets = set_languages if set_languages is not None else SetLanguages(configs.sets, by_rest=by_scan)
        self._keys: dict[int, bytes | None] = {}  # configuration -> its key (None: over the budget)
        self._shapes: set[tuple[frozenset, bool]] = set()  # shapes met, worth a key (``unknown_shape``)

    def unknown_shape(self, config: int) -> tuple[frozenset, bool] | None:
        """``config``'s *shape* (its threads' terminals and lexer states, and its accepting flag:
        its key without the origins) if it was not met before (``note``, ``add_shapes``), else
        None (a known shape: its key is worth making).  Two configurations with one key have one
        shape, so a key of a new shape can find nothing."""
        shape = shape_of(self._configs.threads[config], self._configs.accepting[config])
        return None if shape in self._shapes else shape

    def note(self, shape: tuple[frozenset, bool]) -> None:
        """Make keys of configurations of ``shape`` worth making from now on."""
        self._shapes.add(shape)

    def add_shapes(self, shapes) -> None:
        self._shapes.update(shapes)

    def known(self, config: int) -> bytes | None:
        """``config``'s key if it was made already (nothing is computed)."""
        return self._keys.get(config)

    def of(self, config: int) -> bytes | None:
        """``config``'s key (16 bytes), or None where it would cost more than ``MAX_VISITS`` sets."""
        if config in self._keys:
            return self._keys[config]
        try:
            key = self._config_key(config)
        except (_OverBudget, GrammarLimitExceeded):
            key = None
        self._keys[config] = key
        return key

    @classmethod
    def for_version(cls, configs: Configs, version: int, set_languages: SetLanguages | None = None) -> "LanguageKeys":
        """The keys a file of format ``version`` stores: by the scanned sets from 13 on
        (``set_languages``, if given, must be digests of that kind: ``scans_sets``)."""
        return cls(configs, set_languages, by_scan=scans_sets(version))

    def _config_key(self, config: int) -> bytes:
        """Each thread's terminal, state and origin digest, or (``by_scan``) the digests of the
        sets its lexeme leads to (one budget for all of them)."""
        configs = self._configs
        threads = configs.threads[config]
        if not self._by_scan:
            digests = self._sets.digests(origin for origin, _, _ in threads)
            parts = sorted(_PACK3(terminal, state, 0) + digests[origin] for origin, terminal, state in threads)
            return _hash(b"C%d" % configs.accepting[config], parts)
        scanned = [configs.scanned(origin, terminal) for origin, terminal, _ in threads]
        digests = self._sets.digests(set_id for sets in scanned for set_id in sets)
        parts = sorted(_PACK3(terminal, state, len(sets)) + b"".join(digests[set_id] for set_id in sets)
                       for (_, terminal, state), sets in zip(threads, scanned))
        return _hash(b"D%d" % configs.accepting[config], parts)


def scans_sets(version: int) -> bool:
    """Whether a file of format ``version`` keys its configurations by their threads' scanned sets
    (digests by rest) rather than their origins."""
    return version >= SCANNED_KEYS_FROM


def shape_of(threads, accepting: bool) -> tuple[frozenset, bool]:
    """A configuration's shape from its ``(origin, terminal, state)`` threads and accepting flag."""
    return frozenset((terminal, state) for _, terminal, state in threads), bool(accepting)


def _hash(head: bytes, parts: list[bytes]) -> bytes:
    digest = hashlib.blake2b(head, digest_size=KEY_BYTES)
    for part in parts:
        digest.update(part)
    return digest.digest()

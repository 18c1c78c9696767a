"""StoredMatch: a live memo's sets and configurations matched, as they are made, against a stored memo.

Why.  Format 7 files carry a parser memo computed at compile time (``stored_memo``): the
configurations a warm-up walk met, their masks and the Earley sets they need.  Session 19
merged all of it into a live memo at its first ``advance``, ~10-40 µs a stored set or
configuration in Python: 0.3-80 ms paid in one step (MaskBench's largest memos), whatever the
request would use.  Session 21 measured what that costs a grammar whose warm-up is a few dozen
sampled sentences: the merge (7.4-11.4 ms on arithmetic and C) took more than every mask it
served, so the first request's whole time got worse (arithmetic 6.1-6.7 -> 8.0-9.2 ms) although
its masks' p50 fell tenfold.  With this module the first ``advance`` takes 0.7-1.7 ms there, and
0.6-2.5 ms on 7 grammar-path MaskBench files whose merge took 7.7-87 ms.

How.  Nothing is merged.  The stored sets and configurations are hashed once per loaded file,
in numpy (``StoredLookup``: a 64-bit sum of per-row hashes per set or configuration, so the
order of its items does not matter).  A live memo then asks, for each configuration it makes
(``Configs.on_new``), and for each set such a configuration names (on first need, since
session 32), whether a stored one has its content: the live
content is written in stored numbers (a live set is known by its stored number once matched;
an origin that matches none means no stored set or configuration can have this content), hashed
the same way in Python, looked up, and compared exactly on a hit.  A matched configuration's mask
is the stored one (``MaskWalker.stored_pinner``, decoded on first use).  The cost is a few µs per
set or configuration the request makes anyway, and the answers are the merge's: a live position
is at a stored configuration exactly when their contents are equal.

What the merge gave that this does not: the stored scans and transitions.  A matched
configuration's next step is computed by the parser (one token's path, not a mask's walk); the
sections stay in the file, where ``GrammarIndex.verify`` checks them.  Measured and dropped
(session 21): reading them on demand (a matched set's or configuration's stored scan or
transition, the set or configuration after adopted by content with the sets it names) left the
7 files' masks over 200 µs / 1 ms at 693 / 285, against 667 / 245 without (interleaved runs).

Hash collisions cost a match, never a wrong mask: a candidate is compared in full, and of two
stored contents with one hash the lookup keeps one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

MASK64 = (1 << 64) - 1
_UNSEEN = object()  # a live set not matched yet (``StoredMatch.stored_number``)
# A row's value is its fields weighted by K1..K4 plus its kind's tag (mod 2**64); its hash that
# value xor-shifted and multiplied by K5; a set's or configuration's hash the sum of its rows'
# hashes, plus ACCEPTING if it accepts (order-free, so its rows need no sorting).  The Python
# side (``StoredMatch``) and the numpy side (``StoredLookup.of``) must agree: a test checks it.
K1, K2, K3, K4, K5 = (0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0x27D4EB2F165667C5,
                      0xBF58476D1CE4E5B9)
ITEM, LEO, WANTED, THREAD = 0x5851F42D4C957F2D, 0x14057B7EF767814F, 0x2545F4914F6CDD1D, 0x61C8864680B583EB
ACCEPTING = 0xD6E8FEB86659FD93


def row_hash(value: int) -> int:
    """The hash of a row whose value (fields weighted, tag added) is ``value``."""
    value &= MASK64
    return ((value ^ (value >> 32)) * K5) & MASK64


def rows_hash(rows: np.ndarray, tag: int) -> np.ndarray:
    """``row_hash`` of each row of ``rows`` (up to 4 int columns), in uint64."""
    value = np.full(len(rows), tag, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for column, weight in zip(rows.T, (K1, K2, K3, K4)):
            value += column.astype(np.int64).astype(np.uint64) * np.uint64(weight)
        return (value ^ (value >> np.uint64(32))) * np.uint64(K5)


def _sums(owners: np.ndarray, hashes: np.ndarray, n: int) -> np.ndarray:
    out = np.zeros(n, dtype=np.uint64)
    np.add.at(out, owners, hashes)
    return out


@dataclass
class StoredLookup:
    """The stored sets and configurations by hash, and their contents in stored numbers (one per
    loaded file: ``StoredMemo.lookup``)."""

    set_of_hash: dict[int, int]
    config_of_hash: dict[int, int]
    # the StoredMemo's arrays it reads (not the memo: it caches this lookup, and a reference back
    # would be a cycle only the collector frees)
    set_items: np.ndarray
    set_leo: np.ndarray
    set_wanted: np.ndarray
    set_accepting: np.ndarray
    config_threads: np.ndarray
    config_accepting: np.ndarray
    config_mask: np.ndarray
    offsets: tuple[list[int], list[int], list[int], list[int]]  # items, Leo entries, wanted, threads (CSR)

    @classmethod
    def of(cls, memo) -> "StoredLookup":
        n_sets, n_configs = memo.n_sets, memo.n_configs
        set_hash = np.where(memo.set_accepting.astype(bool), np.uint64(ACCEPTING), np.uint64(0))
        for offsets, rows, tag in ((memo.set_item_offsets, memo.set_items, ITEM),
                                   (memo.set_leo_offsets, memo.set_leo, LEO),
                                   (memo.set_wanted_offsets, memo.set_wanted.reshape(-1, 1), WANTED)):
            owners = np.repeat(np.arange(n_sets), np.diff(offsets))
            with np.errstate(over="ignore"):
                set_hash += _sums(owners, rows_hash(rows, tag), n_sets)
        owners = np.repeat(np.arange(n_configs), np.diff(memo.config_thread_offsets))
        config_hash = np.where(memo.config_accepting.astype(bool), np.uint64(ACCEPTING), np.uint64(0))
        with np.errstate(over="ignore"):
            config_hash += _sums(owners, rows_hash(memo.config_threads, THREAD), n_configs)
        return cls(dict(zip(set_hash.tolist(), range(n_sets))), dict(zip(config_hash.tolist(), range(n_configs))),
                   memo.set_items, memo.set_leo, memo.set_wanted, memo.set_accepting, memo.config_threads,
                   memo.config_accepting, memo.config_mask,
                   tuple(o.tolist() for o in (memo.set_item_offsets, memo.set_leo_offsets, memo.set_wanted_offsets,
                                              memo.config_thread_offsets)))

    def set_content(self, s: int) -> tuple[frozenset, frozenset, frozenset, bool]:
        """Stored set ``s`` as ``StoredMatch._match_set`` compares it: its own items, Leo entries,
        wanted nonterminals and flag."""
        items, leo, wanted, _ = self.offsets
        return (frozenset(map(tuple, self.set_items[items[s]:items[s + 1]].tolist())),
                frozenset(map(tuple, self.set_leo[leo[s]:leo[s + 1]].tolist())),
                frozenset(self.set_wanted[wanted[s]:wanted[s + 1]].tolist()), bool(self.set_accepting[s]))

    def config_content(self, c: int) -> tuple[frozenset, bool]:
        """Stored configuration ``c``: its threads ``(origin set, terminal, lexer state)`` and flag."""
        at = self.offsets[3]
        threads = self.config_threads[at[c]:at[c + 1]].tolist()
        return frozenset(map(tuple, threads)), bool(self.config_accepting[c])


class StoredMatch:
    """One live memo's matches with the stored memo: the stored number of a live set (found on
    first need), and the stored mask of each matched configuration (handed to ``pin``).

    Sets are matched when a configuration (or a later set) names them, not as they are made: a
    mask's lexeme-path row (``lexeme_paths``) makes ~20-35 sets no configuration ever names
    (lark.lark after a rule's colon), and matching each cost ~3-4 µs of that mask."""

    def __init__(self, lookup: StoredLookup, pin: Callable[[int, int], None]):
        self._lookup = lookup
        self._pin = pin
        self._mask_of = lookup.config_mask.tolist()
        self._stored_set: dict[int, int | None] = {}  # live set -> stored set (None: none has its content)
        self._sets = None

    def attach(self, sets, configs) -> None:
        """Match every configuration the memo holds already, then each it makes from now on."""
        self._sets = sets
        for c in range(len(configs)):
            self.new_config(c, configs.threads[c], configs.accepting[c])
        configs.on_new = self.new_config

    def stored_number(self, set_id: int) -> int | None:
        """The stored set with live set ``set_id``'s content (None: none).  A set names earlier sets
        only (its origins and Leo tops), so the sets it depends on are matched first, in id order,
        without recursion."""
        stored = self._stored_set
        found = stored.get(set_id, _UNSEEN)
        if found is not _UNSEEN:
            return found
        pending, stack, content = {}, [set_id], self._sets.content
        while stack:
            s = stack.pop()
            if s in stored or s in pending:
                continue
            items, leo, wanted, accepting = pending[s] = content(s)
            stack += [item[2] for item in items]
            stack += [top for top, _, _ in leo.values()]
        for s in sorted(pending):
            stored[s] = self._match_set(*pending[s])
        return stored[set_id]

    def _match_set(self, items: list, leo: dict, wanted: frozenset, accepting: bool) -> int | None:
        """A live set's content (``EarleySets.content``) in stored numbers (the sets it names matched
        already; none if one matches no stored set: then no stored set can have it), hashed,
        compared on a hit."""
        stored = self._stored_set
        own, total = _in_stored_numbers(items, 2, stored, ITEM)
        if own is None:
            return None
        entries = []
        for symbol, (top, top_symbol, through) in leo.items():
            top = stored[top]
            if top is None:
                return None
            entries.append((symbol, top, top_symbol, int(through)))
            total += row_hash(symbol * K1 + top * K2 + top_symbol * K3 + int(through) * K4 + LEO)
        for w in wanted:
            total += row_hash(w * K1 + WANTED)
        found = self._lookup.set_of_hash.get((total + (ACCEPTING if accepting else 0)) & MASK64)
        if found is not None and self._lookup.set_content(found) == (frozenset(own), frozenset(entries),
                                                                      frozenset(wanted), accepting):
            return found
        return None

    def new_config(self, config: int, threads: Iterable, accepting: bool) -> None:
        """Match a new live configuration (as ``_match_set``); a match reads its stored mask."""
        translated, total = _in_stored_numbers(threads, 0, self._stored_set, THREAD, self.stored_number)
        if translated is None:
            return
        found = self._lookup.config_of_hash.get((total + (ACCEPTING if accepting else 0)) & MASK64)
        if found is not None and self._lookup.config_content(found) == (frozenset(translated), accepting):
            self._pin(config, self._mask_of[found])


def _in_stored_numbers(rows: Iterable[tuple[int, int, int]], at: int, stored: dict[int, int | None], tag: int,
                       number: Callable[[int], int | None] | None = None) -> tuple[list | None, int]:
    """Three-field rows (items, threads) with the live set at place ``at`` written as its stored
    number (``stored``'s, or ``number``'s for a set not in it), and the sum of their hashes;
    (None, 0) if a set matches no stored one."""
    out, total = [], 0
    for row in rows:
        found = stored.get(row[at], _UNSEEN)
        if found is _UNSEEN:
            found = number(row[at]) if number is not None else None
        if found is None:
            return None, 0
        row = row[:at] + (found,) + row[at + 1:]
        out.append(row)
        total += row_hash(row[0] * K1 + row[1] * K2 + row[2] * K3 + tag)
    return out, total

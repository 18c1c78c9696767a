"""StoredMatch: a live memo's sets and configurations matched, as they are made, against a stored memo.

Why.  Format 7 files carry a parser memo computed at compile time (``stored_memo``): the
configurations a warm-up walk met, their masks and the Earley sets they need.  Session 19
merged all of it into a live memo at its first ``advance``, ~10-40 µs a stored set or
configuration in Python: 0.3-80 ms paid in one step (MaskBench's largest memos), whatever the
request would use.  Session 21 measured what that costs a grammar whose warm-up is a few dozen
sampled sentences: the merge (7.6-9.6 ms on arithmetic and C) took more than every mask it
served, so the first request's whole time got worse although its masks' p50 fell tenfold.

How.  Nothing is merged.  The stored sets and configurations are hashed once per loaded file,
in numpy (``StoredLookup``: a 64-bit sum of mixed rows per set or configuration, so the order of
its items does not matter).  A live memo then asks, for each set and configuration it makes
(``EarleySets.on_new``, ``Configs.on_new``), whether a stored one has its content: the live
content is written in stored numbers (a live set is known by its stored number once matched;
an origin that matches none means no stored set or configuration can have this content), hashed
the same way in Python, looked up, and compared exactly on a hit.  A matched configuration's mask
is the stored one (``MaskWalker.pin_stored``, decoded on first use).  The cost is a few µs per
set or configuration the request makes anyway, and the answers are the merge's: a live position
is at a stored configuration exactly when their contents are equal.

What the merge gave that this does not: the stored scans and transitions.  A matched
configuration's next step is computed by the parser (one token's path, not a mask's walk); the
sections stay in the file, where ``GrammarIndex.verify`` checks them.

Hash collisions cost a match, never a wrong mask: a candidate is compared in full, and of two
stored contents with one hash the lookup keeps one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

MASK64 = (1 << 64) - 1
# multipliers of the row fields and a tag per kind of row (so that rows of two kinds with equal
# fields differ)
K1, K2, K3, K4 = 0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0x27D4EB2F165667C5
ITEM, LEO, WANTED, THREAD = 1, 2, 3, 4
ACCEPTING = 0xD6E8FEB86659FD93


def mix(value: int) -> int:
    """SplitMix64's finaliser of a 64-bit value (``mix_array`` is the same in numpy)."""
    z = (value * 0x9E3779B97F4A7C15) & MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def mix_array(values: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        z = values.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def row_value(a: int, b: int, c: int, d: int, tag: int) -> int:
    """One row's value before mixing: its fields weighted, its kind added (mod 2**64)."""
    return (a * K1 + b * K2 + c * K3 + d * K4 + tag) & MASK64


def rows_value(rows: np.ndarray, tag: int) -> np.ndarray:
    """``row_value`` of each row of ``rows`` (up to 4 int columns), in uint64."""
    out = np.full(len(rows), tag, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for column, weight in zip(rows.T, (K1, K2, K3, K4)):
            out += column.astype(np.int64).astype(np.uint64) * np.uint64(weight)
    return out


def content_hash(rows: Iterable[tuple[int, int, int, int, int]], accepting: bool) -> int:
    """The hash of a set or configuration given as its rows ``(a, b, c, d, tag)``."""
    total = ACCEPTING if accepting else 0
    for a, b, c, d, tag in rows:
        total += mix(row_value(a, b, c, d, tag))
    return total & MASK64


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
    memo: object  # the StoredMemo

    @classmethod
    def of(cls, memo) -> "StoredLookup":
        n_sets, n_configs = memo.n_sets, memo.n_configs
        set_hash = np.where(memo.set_accepting.astype(bool), np.uint64(ACCEPTING), np.uint64(0))
        for offsets, rows, tag in ((memo.set_item_offsets, memo.set_items, ITEM),
                                   (memo.set_leo_offsets, memo.set_leo, LEO),
                                   (memo.set_wanted_offsets, memo.set_wanted.reshape(-1, 1), WANTED)):
            owners = np.repeat(np.arange(n_sets), np.diff(offsets))
            with np.errstate(over="ignore"):
                set_hash += _sums(owners, mix_array(rows_value(rows, tag)), n_sets)
        owners = np.repeat(np.arange(n_configs), np.diff(memo.config_thread_offsets))
        config_hash = np.where(memo.config_accepting.astype(bool), np.uint64(ACCEPTING), np.uint64(0))
        with np.errstate(over="ignore"):
            config_hash += _sums(owners, mix_array(rows_value(memo.config_threads, THREAD)), n_configs)
        return cls(dict(zip(set_hash.tolist(), range(n_sets))), dict(zip(config_hash.tolist(), range(n_configs))),
                   memo)

    def set_content(self, s: int) -> tuple[frozenset, frozenset, frozenset, bool]:
        memo = self.memo
        items = memo.set_items[memo.set_item_offsets[s]:memo.set_item_offsets[s + 1]].tolist()
        leo = memo.set_leo[memo.set_leo_offsets[s]:memo.set_leo_offsets[s + 1]].tolist()
        wanted = memo.set_wanted[memo.set_wanted_offsets[s]:memo.set_wanted_offsets[s + 1]].tolist()
        return frozenset(map(tuple, items)), frozenset(map(tuple, leo)), frozenset(wanted), bool(memo.set_accepting[s])

    def config_content(self, c: int) -> tuple[frozenset, bool]:
        memo = self.memo
        threads = memo.config_threads[memo.config_thread_offsets[c]:memo.config_thread_offsets[c + 1]].tolist()
        return frozenset(map(tuple, threads)), bool(memo.config_accepting[c])


class StoredMatch:
    """One live memo's matches: each live set's stored number, and the stored mask of each live
    configuration whose content is stored (handed to ``pin``)."""

    def __init__(self, lookup: StoredLookup, pin: Callable[[int, int], None]):
        self._lookup = lookup
        self._pin = pin
        self._mask_of = lookup.memo.config_mask.tolist()
        self._stored_set: dict[int, int] = {}  # live set -> stored set
        self.matched_configs = 0

    def attach(self, sets, configs) -> None:
        """Match what the memo holds already, in id order (a set names earlier sets only), then
        every set and configuration it makes from now on."""
        for s in range(len(sets)):
            self.new_set(s, *sets.content(s))
        for c in range(len(configs)):
            self.new_config(c, configs.threads[c], configs.accepting[c])
        sets.on_new = self.new_set
        configs.on_new = self.new_config

    def new_set(self, set_id: int, items: Iterable, leo: dict, wanted: frozenset, accepting: bool) -> None:
        stored = self._stored_set
        try:
            own = frozenset((r, d, stored[o]) for r, d, o in items)
            entries = frozenset((symbol, stored[top], top_symbol, int(through))
                                for symbol, (top, top_symbol, through) in leo.items())
        except KeyError:  # an origin or top no stored set matches: neither can this one
            return
        rows = [(r, d, o, 0, ITEM) for r, d, o in own]
        rows += [(a, b, c, d, LEO) for a, b, c, d in entries]
        rows += [(w, 0, 0, 0, WANTED) for w in wanted]
        found = self._lookup.set_of_hash.get(content_hash(rows, accepting))
        if found is not None and self._lookup.set_content(found) == (own, entries, frozenset(wanted), accepting):
            stored[set_id] = found

    def new_config(self, config: int, threads: Iterable, accepting: bool) -> None:
        stored = self._stored_set
        try:
            translated = frozenset((stored[o], t, q) for o, t, q in threads)
        except KeyError:
            return
        found = self._lookup.config_of_hash.get(content_hash([(o, t, q, 0, THREAD) for o, t, q in translated],
                                                             accepting))
        if found is not None and self._lookup.config_content(found) == (translated, accepting):
            self._pin(config, self._mask_of[found])
            self.matched_configs += 1

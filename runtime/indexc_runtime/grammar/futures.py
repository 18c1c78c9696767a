"""Masks shared by configurations with the same future: a memo keyed by what a mask depends on.

Configurations are interned by their threads ``(origin set, terminal, lexer state)``, so two
positions that accept the same texts after them are still two configurations when their
threads' origins differ: the first string value of an array (origin: the set after ``[``) and
the next ones (after ``,``), the same key's value in each object of a list, the same property
in two instances of one schema written in another order.  Each paid a cold mask, walk included.

But a thread meets its origin only through ``scan(origin, terminal)`` (the set its completed
lexeme leads to) and, for an ignored terminal, through ``origin`` itself (the fresh threads and
eos flag it restarts, ``Configs._step``); its lexer state does the rest.  So a configuration's
language of continuations, hence its mask, is a function of its accepting flag and the set of
``(terminal, state, scan(origin, terminal))`` of its threads: ``future_key``.  Once the string
is scanned, ``[`` and ``,`` lead to the same interned set, and so do the two masks' keys.
Measured on MaskBench (the 90 recursive/over-limit schemas of every 4th dev file, cold walks of
all their instances, one fresh process per file), keys recorded beside the session-start
runtime's masks: on the five slowest files ~1 computed mask in 2 has the key of an earlier one
(Github_ultra o53885: 2,976 of 4,469), the rows were byte-identical in every such case, and
almost all recur in a *later instance* of the schema, 256-4,096 computed masks later: past the
per-configuration memo (``MASK_MEMO``, 16 KB rows).  With this memo: masks over 200 us on the
90 files 17,687-19,175 -> 14,343, walk CPU 12.4-13.5 -> 10.6 s, every mask byte-identical.

So this memo keeps masks compact: the ids of the precomputed masks whose OR the mask starts
from (``unions.MaskUnions``, memoised and cheap to redo) and the few words the walk and the
eos flag added to it (``row & ~base``, nonzero words and their places), a full row only when
most words differ (a loop region's tokens).  Bounded by bytes (``FUTURE_MEMO_BYTES``), least
recently used first.  A scan is asked only where the walker's part 1 asks it anyway (the state
has boundary masks): other threads keep their origin, a finer key, still exact.

Long strings (session 13): a chunk's scan leads to a set that counts the chunks read, so the
same position in two chunks of a ``maxLength: 32767`` string had two keys; a thread of a long
terminal keys its scan's set up to what a token can read (``horizon.TokenHorizon``), and the
positions far from the string's bounds share their masks.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Callable

import numpy as np

from indexc_runtime.grammar.configs import Configs
from indexc_runtime.grammar.horizon import TokenHorizon
from indexc_runtime.grammar.tables import LexerTables

_NONE: frozenset[int] = frozenset()
FUTURE_MEMO_BYTES = 16 << 20  # compact masks kept per memo (a few hundred bytes each; a full row 16 KB for Llama-3)
ENTRY_OVERHEAD = 200  # bytes counted per entry besides its arrays (the key, the tuple)


def future_key(configs: Configs, lexer: LexerTables, config: int,
               horizon: TokenHorizon | None = None) -> tuple[frozenset, bool]:
    """What ``config``'s mask depends on (see the module note): its accepting flag and, per
    thread, ``(terminal, state, -2 - scan(origin, terminal))``, or ``(terminal, state, origin)``
    for an ignored terminal or a state without boundary masks (negative and non-negative
    values never meet: scans are encoded at -1 and below, origins are set ids).  With a
    ``horizon``, a thread of a long terminal (a chunk of a long string) keys its scan's set by
    ``TokenHorizon.after``: only as far as a token can read (a tuple, or the same encoding)."""
    return frozenset(thread_keys(configs, lexer, configs.threads[config], horizon)), configs.accepting[config]


def thread_keys(configs: Configs, lexer: LexerTables, threads, horizon: TokenHorizon | None = None):
    """Each thread's ``(terminal, state, key)`` in ``future_key``, in the order of ``threads``
    (``bench/key_bounds.py`` makes coarser keys from them)."""
    scan, ignored = configs.sets.scan, configs.ignored
    maybe_long = horizon.candidates if horizon is not None else _NONE
    return ((terminal, state, origin if terminal in ignored or not lexer.boundary_masks(state)
             else -2 - scan(origin, terminal) if terminal not in maybe_long
             else horizon.after(scan(origin, terminal), terminal))
            for origin, terminal, state in threads)


class FutureMasks:
    """Mask rows by ``future_key``: (precomputed mask ids, the words the mask adds to their OR and
    their places), or a full row when most words differ."""

    def __init__(self, base_row: Callable[[tuple[int, ...]], np.ndarray], max_bytes: int = FUTURE_MEMO_BYTES):
        self._base_row = base_row  # mask ids -> the OR of those precomputed masks (int32 words, not modified)
        self._entries: OrderedDict[tuple, tuple] = OrderedDict()
        self._bytes = 0
        self._max_bytes = max_bytes

    def get(self, key: tuple) -> np.ndarray | None:
        """The row kept for ``key`` (do not modify it), or None."""
        found = self._entries.get(key)
        if found is None:
            return None
        self._entries.move_to_end(key)
        mask_ids, places, words = found
        if mask_ids is None:
            return words
        row = self._base_row(mask_ids).copy()
        row[places] |= words
        return row

    def forget(self, key: tuple) -> None:
        """Drop the entry of ``key``, if kept."""
        dropped = self._entries.pop(key, None)
        if dropped is not None:
            self._bytes -= _size(dropped)

    def put(self, key: tuple, row: np.ndarray, mask_ids: tuple[int, ...]) -> None:
        """Keep ``row`` (int32 words holding every token of ``mask_ids``' masks) under ``key``."""
        added = row & ~self._base_row(mask_ids)
        places = np.flatnonzero(added)
        if places.size * 8 < row.nbytes:
            entry = (mask_ids, places.astype(np.int32), added[places])
        else:
            entry = (None, None, row)
        self._entries[key] = entry
        self._bytes += _size(entry)
        while self._bytes > self._max_bytes and self._entries:
            _, dropped = self._entries.popitem(last=False)
            self._bytes -= _size(dropped)


def _size(entry: tuple) -> int:
    """Bytes an entry holds (its arrays and ``ENTRY_OVERHEAD``)."""
    return ENTRY_OVERHEAD + entry[2].nbytes + (0 if entry[1] is None else entry[1].nbytes)

"""ItemMasks: the item bounds a file stores (format 11), and a thread's keys into them.

What is stored (``item_bounds`` says what a bound is and why it holds), int32:

    item_key (n_item_keys, 4)          lexer state, rule, dot, wanted set: one key a row, distinct
    item_wanted_offsets (n_item_wanted+1)  wanted set w's nonterminals: item_wanted[offsets[w]:offsets[w+1]]
    item_wanted (n,)                   nonterminal ids, strictly increasing within a set
    item_lower_mask (n_item_keys,)     the lower bound's undecided tokens: a mask id (the file's masks,
                                       after the others), or -1: none
    item_upper_set (n_item_keys,)      the upper bound: an undecided set id (the places are appended
                                       to the file's undecided sets, ``undecided``)

How the walker reads it (``MaskWalker._precomputed_masks``): a thread ``(origin, terminal,
state)`` whose state has keys is keyed by the items of the sets its lexeme leads to
(``thread_items``: the sets ``Configs.scanned`` gives, their closures' items and each item's
origin's reachable wanted nonterminals); every key found adds its lower mask to the thread's
precomputed masks, and when every item has a key the thread's undecided set is replaced by
its items' upper sets (a tuple of set ids is already read as their union).  A key that is
missing costs nothing but the walk it would have saved.  The compiler stores the keys its
given warm-up text meets (``indexc.artifact.item_masks``).

Checks at load: every number bounded (states, rules, dots inside their rule and not at its
end, wanted sets and their nonterminals, mask and set ids), keys distinct, wanted sets
strictly increasing; ``ArtifactError`` names the section.  That a bound is the one the
grammar gives is ``verify``'s check (each recomputed by ``item_bounds``).
"""

from __future__ import annotations

import numpy as np

from indexc_runtime.container import Container
from indexc_runtime.errors import ArtifactError
from indexc_runtime.grammar.earley import START_RULE, EarleySets
from indexc_runtime.grammar.stored_memo import within
from indexc_runtime.grammar.tables import EarleyRules

ITEM_SECTION_NAMES = ("item_key", "item_wanted_offsets", "item_wanted", "item_lower_mask", "item_upper_set")
Key = tuple[int, int, int, frozenset]  # lexer state, rule, dot, wanted nonterminals
NO_LOWER = -1  # ``item_lower_mask`` of a key whose lower bound holds none of the state's undecided tokens


class ItemMasks:
    """The stored keys of one file, by ``(state, rule, dot, wanted)``."""

    def __init__(self, keys: np.ndarray, wanted_offsets: np.ndarray, wanted: np.ndarray, lower: np.ndarray,
                 upper: np.ndarray):
        self.keys, self.wanted_offsets, self.wanted, self.lower, self.upper = keys, wanted_offsets, wanted, lower, upper
        self.wanted_sets = [frozenset(wanted[wanted_offsets[w]:wanted_offsets[w + 1]].tolist())
                            for w in range(len(wanted_offsets) - 1)]
        self._table = {(state, rule, dot, self.wanted_sets[w]): (low, up)
                       for (state, rule, dot, w), low, up in zip(keys.tolist(), lower.tolist(), upper.tolist())}
        self.states = frozenset(keys[:, 0].tolist())  # lexer states with keys: other threads are not keyed

    def __len__(self) -> int:
        return len(self._table)

    def get(self, state: int, rule: int, dot: int, wanted: frozenset) -> tuple[int, int] | None:
        """(lower mask id, upper undecided set id) of a key, or None."""
        return self._table.get((state, rule, dot, wanted))

    def stored_keys(self) -> list[Key]:
        """Every key, in the file's order (``verify``)."""
        return [(state, rule, dot, self.wanted_sets[w]) for state, rule, dot, w in self.keys.tolist()]

    @classmethod
    def empty(cls) -> "ItemMasks":
        none = np.zeros(0, dtype=np.int32)
        return cls(none.reshape(0, 4), np.zeros(1, dtype=np.int32), none, none, none)

    @classmethod
    def from_container(cls, c: Container, rules: EarleyRules, n_lexer_states: int, n_masks: int,
                       n_undecided_sets: int) -> "ItemMasks":
        """The sections of a format 11 file, bounded; an empty table for older files or none stored."""
        if not c.header.dims.get("n_item_keys"):
            return cls.empty()
        keys, offsets, wanted, lower, upper = (c.array(name).astype(np.int64) for name in ITEM_SECTION_NAMES)
        _check(keys, offsets, wanted, lower, upper, rules, n_lexer_states, n_masks, n_undecided_sets, c.source)
        return cls(keys, offsets, wanted, lower, upper)

    def arrays(self) -> dict[str, np.ndarray]:
        """The sections, by name (the writer's input)."""
        return {name: np.asarray(array, dtype=np.int32) for name, array in
                zip(ITEM_SECTION_NAMES, (self.keys, self.wanted_offsets, self.wanted, self.lower, self.upper))}


def thread_items(sets: EarleySets, origin: int, terminal: int, after: list[int]) -> list[tuple[int, int, frozenset]] | None:
    """The keys' ``(rule, dot, wanted)`` of a thread of ``terminal`` from ``origin`` whose lexeme
    leads to the sets ``after`` (``Configs.scanned``): for the origin itself (an ignored
    terminal) the items of the closure that made it (``EarleySets.kernel``; the initial set's
    one item is ``S' -> . start``), for the scan the items of its own closure
    (``EarleySets.scan_items``), each as ``EarleyRules.same_rest`` with the wanted nonterminals
    of its origin that it can reach (``EarleyRules.wanted_for``).  None where they are not known
    (a set adopted from a stored memo)."""
    rules = sets.rules
    found, same_rest, wanted_for, lhs_symbol = [], rules.same_rest, rules.wanted_for, rules.lhs_symbol
    for set_id in after:
        if set_id != origin:
            items = sets.scan_items(origin, terminal)
        elif set_id == sets.initial:
            items = ((START_RULE, 0, set_id),)
        else:
            items = sets.kernel[set_id]
        if items is None:
            return None
        found += [(*same_rest(rule, dot), wanted_for(lhs_symbol[rule], sets.wanted(item_origin)))
                  for rule, dot, item_origin in items]
    return found


def _check(keys, offsets, wanted, lower, upper, rules: EarleyRules, n_lexer_states: int, n_masks: int,
           n_undecided_sets: int, source: str) -> None:
    def require(ok: bool, section: str, what: str) -> None:
        if not ok:
            raise ArtifactError(f"section {section!r} {what}", source=source)

    n = len(keys)
    require(keys.ndim == 2 and keys.shape[1] == 4, "item_key", "is not n x 4")
    T, S = rules.n_terminals, len(rules.nullable)
    n_wanted = len(offsets) - 1
    require(n_wanted >= 0 and offsets[0] == 0 and offsets[-1] == len(wanted) and bool((np.diff(offsets) >= 0).all()),
            "item_wanted_offsets", f"does not rise from 0 to {len(wanted)}")
    require(within(wanted, 0, S - T), "item_wanted", "names a nonterminal out of range")
    rising = np.diff(wanted) > 0
    starts = np.zeros(len(wanted), dtype=bool)
    starts[offsets[:-1][offsets[:-1] < len(wanted)]] = True
    require(bool((rising | starts[1:]).all()), "item_wanted", "is not strictly increasing within a set")
    state, rule, dot, w = keys.T
    first = np.asarray(rules.first, dtype=np.int64)
    lengths = np.diff(np.append(first, len(rules.dotted))) - 1
    require(within(state, 0, n_lexer_states) and within(rule, 0, len(first)) and within(w, 0, max(n_wanted, 0)),
            "item_key", "names a lexer state, rule or wanted set out of range")
    require(within(dot, 0, lengths[rule] if n else 1), "item_key", "has a dot at or past its rule's end")
    require(len(set(map(tuple, keys.tolist()))) == n, "item_key", "repeats a key")  # (np.unique's axis imports numpy.ma: ~13 ms)
    require(len(lower) == n and within(lower, NO_LOWER, n_masks), "item_lower_mask", "has a mask id out of range")
    require(len(upper) == n and within(upper, 0, n_undecided_sets), "item_upper_set", "has a set id out of range")


"""``item_mask_sections``: the item bounds of the keys a given warm-up text meets (format 11).

After the warm-up walk (``warm_memo``), the given texts (``--warm-up FILE``, a JSON Schema's
synthetic instance) are read again at every byte, and the keys of the threads whose undecided
sets hold from ``MIN_ITEM_UNDECIDED`` tokens to ``MAX_ITEM_UNDECIDED_SHARE`` of the trie's are
counted (``keys_of_config``: lexer state, Earley item, the item's origin's reachable wanted
nonterminals; ``indexc_runtime.grammar.item_masks``), in a grammar with a heavy state only
(``has_heavy_states``).  Here each key's bounds are computed by the runtime's own parser
(``ItemBounds``: the lower bound a mask row, the upper set the places of the state's undecided
tokens it may add); distinct lower rows are appended to the file's masks, each upper set to
its undecided sets.  The sampled texts give no keys (``warm_memo`` says why).

Limits, explicit and reported in the header's ``stats.item_masks`` (keys stored, keys met,
parser steps): at most ``MAX_ITEM_KEYS`` keys, the most met first, and no key begun once the
bounds have walked ``MAX_ITEM_WORK`` undecided tokens; a key whose computation meets a runtime
limit (``GrammarLimitExceeded``) is left out (its threads are walked as before).  Why the
thresholds: a thread with a small undecided set is walked in a few dozen microseconds, less
than its keys cost to look up; lark.lark's heavy threads hold 14-32k undecided tokens, C's
largest set 3.4k, JSON's 74.  Measured (session 28, the grammar bench's ``lark-warm-up`` case:
lark.lark with a 30-line Lark file of another grammar as ``--warm-up``): 74 keys stored of 241
met, compile +0.12-0.24 s, its sample's cold p99 13.6-14.0 -> 1.0-1.1 ms, cold walk 90-94 -> 6 ms.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from indexc.artifact.mask_encoding import EncodedMasks, encode_masks, token_ids_of_row
from indexc_runtime.grammar.errors import GrammarLimitExceeded
from indexc_runtime.grammar.item_bounds import ItemBounds
from indexc_runtime.grammar.item_masks import NO_LOWER, ItemMasks, Key, thread_items
from indexc_runtime.grammar.undecided import UNRESTRICTED

MIN_ITEM_UNDECIDED = 256  # undecided tokens a thread's state holds for its keys to be stored
# ... and at most this share of the trie's tokens: a state where almost every token is undecided
# (all splits of RFC-XML's text runs: 121k of 128k) is decided by the loop exits and the open
# places already, and its keys made RFC-XML's sample slower (p99 ~1.0 -> ~1.2 ms, 10 keys).
MAX_ITEM_UNDECIDED_SHARE = 0.5
# A grammar's keys are stored only if some state's undecided set holds this many tokens: the
# bounds pay where a walk would confirm thousands of tokens (lark.lark's names, 14-32k: its
# sample's cold walk 99 -> 84 ms in the grammar bench), and cost compile time for little where
# the sets are small (C's largest 3.4k: compile 770 -> 875 ms, its masks no faster).
MIN_HEAVY_UNDECIDED = 8192
MAX_ITEM_KEYS = 1024
# Undecided tokens (of the keys' states) the bounds may walk, summed over the keys computed; past
# it no key is begun.  A bound's two walks cost ~0.13 us per undecided token of its state
# (lark.lark, session 28: 680 keys, 12.9M tokens, 1.6 s).
MAX_ITEM_WORK = 1_000_000


def has_heavy_states(index) -> bool:
    """Whether some lexer state's undecided set holds ``MIN_HEAVY_UNDECIDED`` tokens and at most
    ``MAX_ITEM_UNDECIDED_SHARE`` of the trie's: only then are keys stored (for every state from
    ``MIN_ITEM_UNDECIDED`` up)."""
    undecided = index._undecided
    most = index.n_live_tokens * MAX_ITEM_UNDECIDED_SHARE
    sets = {undecided.of(state) for state in range(index.n_states)} - {UNRESTRICTED}
    return any(MIN_HEAVY_UNDECIDED <= undecided.size(set_id) <= most for set_id in sets)


def keys_of_config(index, memo, config: int) -> list[Key]:
    """The keys of ``config``'s threads whose state's undecided set holds at least
    ``MIN_ITEM_UNDECIDED`` tokens and at most ``MAX_ITEM_UNDECIDED_SHARE`` of the trie's (none for
    a thread whose sets' items are not known)."""
    undecided, configs = index._undecided, memo.configs
    most = index.n_live_tokens * MAX_ITEM_UNDECIDED_SHARE
    found: list[Key] = []
    for origin, terminal, state in configs.threads[config]:
        set_id = undecided.of(state)
        if set_id == UNRESTRICTED or not MIN_ITEM_UNDECIDED <= undecided.size(set_id) <= most:
            continue
        listed = thread_items(configs.sets, origin, terminal, configs.scanned(origin, terminal))
        found += [(state, rule, dot, wanted) for rule, dot, wanted in listed or ()]
    return found


@dataclass(frozen=True)
class ItemSections:
    """The item bounds of a file: its masks with the lower bounds appended, the item sections and
    the undecided sections with the upper sets appended, the header's stats, and each stored
    key's (lower row, upper places) for the writer's self-check."""

    masks: EncodedMasks
    sections: dict[str, np.ndarray]
    stats: dict
    rows: list[tuple[np.ndarray, np.ndarray]]

    @classmethod
    def none(cls, masks: EncodedMasks, stats: dict | None = None) -> "ItemSections":
        """No key stored: the masks as they were, empty item sections."""
        return cls(masks, ItemMasks.empty().arrays(), stats or {}, [])


def item_mask_sections(index, keys: Sequence[Key], masks: EncodedMasks, arrays: dict[str, np.ndarray],
                       vocab_size: int) -> ItemSections:
    """The bounds of ``keys`` (distinct, most met first) over ``index`` (the warm-up's, whose
    undecided sets are ``arrays``'), within the limits."""
    bounds = ItemBounds(index)
    kept: list[tuple[Key, np.ndarray, np.ndarray]] = []
    work = 0
    for key in keys:
        if len(kept) >= MAX_ITEM_KEYS or work >= MAX_ITEM_WORK:
            break
        work += index._undecided.size(index._undecided.of(key[0]))
        try:
            kept.append((key, *bounds.of(*key)))
        except GrammarLimitExceeded:
            continue
    stats = {"keys": len(kept), "met": len(keys), "steps": bounds.steps}
    if not kept:
        return ItemSections.none(masks, stats if keys else None)
    distinct: dict[bytes, int] = {}
    lower_ids = [len(masks.form) + distinct.setdefault(row.tobytes(), len(distinct)) if row.any() else NO_LOWER
                 for _, row, _ in kept]
    new_masks = encode_masks([token_ids_of_row(row, vocab_size) for row in distinct], vocab_size)
    first_set = len(arrays["undecided_offsets"]) - 1
    wanted_sets: dict[frozenset, int] = {}
    key_rows = [(state, rule, dot, wanted_sets.setdefault(wanted, len(wanted_sets)))
                for (state, rule, dot, wanted), _, _ in kept]
    ordered_wanted = [sorted(wanted) for wanted in wanted_sets]
    items = ItemMasks(np.array(key_rows, dtype=np.int32).reshape(-1, 4),
                      np.concatenate([[0], np.cumsum([len(w) for w in ordered_wanted])]).astype(np.int32),
                      np.array([x for w in ordered_wanted for x in w], dtype=np.int32),
                      np.array(lower_ids, dtype=np.int32),
                      np.arange(first_set, first_set + len(kept), dtype=np.int32))
    sections = {**items.arrays(), **_with_sets(arrays, [places for _, _, places in kept])}
    return ItemSections(masks.concatenated(new_masks), sections, stats, [(row, places) for _, row, places in kept])


def _with_sets(arrays: dict[str, np.ndarray], added: list[np.ndarray]) -> dict[str, np.ndarray]:
    """The undecided sections with ``added`` sets (ascending places each) after the others, as places."""
    offsets = arrays["undecided_offsets"].astype(np.int64)
    sizes = np.array([places.size for places in added], dtype=np.int64)
    return {"undecided_offsets": np.concatenate([offsets, offsets[-1] + np.cumsum(sizes)]),
            "undecided_positions": np.concatenate([arrays["undecided_positions"], *added]).astype(np.int32),
            "undecided_row": np.concatenate([arrays["undecided_row"], np.full(len(added), -1)]).astype(np.int32)}

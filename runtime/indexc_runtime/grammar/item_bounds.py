"""Item bounds: what a thread's mask must hold, and what it may hold, from one Earley item alone.

Why.  A thread's undecided tokens (``undecided``: they end its lexeme, hold a whole next lexeme
and start a third) are decided by the live walk, which asks the parser for every new
configuration on the way.  In lark.lark an expansion is any run of names, so Llama-3's
camel-case words (``taskId``: a rule name, a token name, a rule name) are allowed after every
name in a rule body, and 20-30k of them are undecided there: each such mask walked ~25k
tokens and made ~340 parser steps, 6-14 ms cold (session 27's p99).  Whether such a token is
allowed depends on the Earley set the thread's lexeme leads to, but mostly on one item of it
(``expansion -> expansion . expr``) and not on the text before, and an item recurs at every
rule of a file where a set never does.

The bounds.  A thread ``(origin o, terminal t, lexer state q)`` leads, when its lexeme ends, to
the Earley set ``E = scan(o, t)`` (and back to ``o`` when ``t`` is ignored).  ``E``'s language
is the union of its items' (``EarleySets.kernel``: the items with an origin; the predicted ones
follow from them), and an item ``A -> alpha . beta`` from origin ``p`` accepts ``beta``, then
whatever ``p``'s items waiting on ``A`` accept after it.  ``p`` holds predicted items (the
closure of the nonterminals it wants, a block many sets share) and its own items with their
origins (the context).  For the key ``(q, rule, dot, wanted nonterminals of p)``:

- the *lower bound* is the mask of the same thread whose lexeme leads to the item alone, from
  a synthetic origin that holds ``p``'s predictions and nothing else: the context is dead.
  Every text it accepts the real thread accepts (fewer items, fewer origins), so every token it
  allows is allowed: its row joins the thread's precomputed masks (``walker``).
- the *upper bound* runs the same item from the same synthetic origin, but where a wanted
  nonterminal of ``p`` completes there (one of ``p``'s own items would step over it, in some
  context) the text goes on with any terminal of that nonterminal's FOLLOW set, then with any
  run of terminals each in the FOLLOW set of the one before (FOLLOW pairs hold of every
  sentence), then may end.  Every text the real thread accepts through this item it accepts.  A thread all of whose items are keyed
  needs the walk only for its undecided tokens inside the union of their upper bounds.

Both are exact bounds, so the mask stays exact: tokens between them are walked as before.  On
lark.lark's sample (prototype, session 28): the keys its 44 masks met were 151; after the
first name of a rule body the walk's open tokens went 25,405 -> 341, after ``start:`` 25,405
-> 0; every mask equal to the walk's.

The synthetic sets.  ``LocalSets`` is an ``EarleySets`` of one computation: ``origin(wanted)``
is the set with no own items and ``wanted``'s predictions (the initial set is such a set, for
wanted ``{S'}``); ``entry(t, Y)`` is a set whose scan of ``t`` is ``Y``, the thread's origin
(it expects nothing, so an ignored lexeme after it starts only ignored lexemes, as from any
set).  For the upper bound, ``_close`` notes each nonterminal completed at a synthetic origin
that the origin wants (``EarleySets._context``; Leo's paths stop at those origins so that each
completion there is seen), and the set it closes to becomes a *mixed* set: its own items plus
the FOLLOW terminals, whose scans lead to the set *after* that terminal (``_after[u]``: it
expects FOLLOW(``u``), each scan leading to the next such set; it holds every continuation of a
sentence after ``u``, so a scan that its items could make too goes there alone).  After
``NUMBER "+"`` in lark.lark, FOLLOW pairs instead of any terminal after the first: open tokens
136 -> 123, after a name in a body 341 -> 310.  A lower bound's sets are plain sets: a
completion at a synthetic origin reads only its predictions.

Cost: each bound is one mask of a configuration of one thread, walked as any other (the
compiler computes them after its warm-up, ``indexc.artifact.item_masks``; ``verify`` again).
Not done: bounds for threads whose undecided sets are small (the walk is cheap there), and a
context read further than FOLLOW pairs: the tokens the walk still refutes after a name in a body
are mostly ``)``, ``]`` and closing quotes before a newline, allowed by FOLLOW inside
parentheses and refused by the real context.
"""

from __future__ import annotations

from collections.abc import Collection

import numpy as np

from indexc_runtime.grammar.configs import Configs
from indexc_runtime.grammar.earley import EarleySets
from indexc_runtime.grammar.first_follow import first_sets, follow_sets
from indexc_runtime.grammar.tables import EarleyRules
from indexc_runtime.grammar.walker import MaskWalker

START_NONTERMINAL = 0  # S' (what ``EarleySets.initial`` predicts): nothing waits on it, its end is the text's


class LocalSets(EarleySets):
    """The Earley sets of one bound's computations: items from synthetic origins.

    ``follow``: each symbol's FOLLOW terminals, for upper bounds; None for lower bounds."""

    def __init__(self, rules: EarleyRules, limits, follow: list[frozenset[int]] | None):
        super().__init__(rules, limits)
        self._follow = follow
        self.reached: set[int] = set()  # nonterminals the last closure completed at a synthetic origin (``_close``)
        self._mixed: dict[int, tuple[int, frozenset[int]]] = {}  # mixed set -> (its items' set or -1, FOLLOW terminals)
        self._mixed_of: dict[tuple[int, frozenset[int]], int] = {}
        if follow is not None:
            self._context = {}
            # after a terminal ``u`` reached through the context: any run of terminals each of which
            # may follow the one before it somewhere in the grammar (FOLLOW pairs), then the end
            self._after = [self._phantom(tuple(sorted(follow[u])), accepting=True) for u in range(rules.n_terminals)]
            self._after_terminal = {set_id: u for u, set_id in enumerate(self._after)}

    def origin(self, wanted: frozenset[int]) -> int:
        """The synthetic origin set holding ``wanted``'s predictions and no own item."""
        set_id = self._intern(frozenset(), wanted, False)
        if self._context is not None:
            self._context[set_id] = wanted - {START_NONTERMINAL}
        return set_id

    def entry(self, terminal: int, after: int) -> int:
        """A new origin for a thread of ``terminal`` whose lexeme leads to set ``after``."""
        set_id = self._phantom((), accepting=False)
        self._scans[set_id * self.stride + terminal] = after
        return set_id

    def item_set(self, rule: int, dot: int, wanted: frozenset[int]) -> int:
        """The set of the item ``(rule, dot)`` from the synthetic origin of ``wanted``, closed."""
        self.reached = set()
        found = self._intern_closed(self._close([(rule, dot, self.origin(wanted))]))
        return self._mix(found) if self.reached else found

    def scan(self, set_id: int, terminal: int) -> int:
        if self._context is None:
            return super().scan(set_id, terminal)
        key = set_id * self.stride + terminal
        found = self._scans.get(key)
        if found is None:
            if set_id in self._after_terminal:
                found = self._after[terminal] if terminal in self._follow[self._after_terminal[set_id]] else -1
            elif set_id in self._mixed:
                inner, follow = self._mixed[set_id]
                found = self._after[terminal] if terminal in follow else (self.scan(inner, terminal) if inner >= 0 else -1)
            else:
                self.reached = set()
                found = super().scan(set_id, terminal)
                if self.reached:
                    found = self._mix(found)
            self._scans[key] = found
        return found

    def expected_after(self, set_id: int, terminal: int) -> Collection[int] | None:
        """With the context let in, a scan may land on a phantom (``scan``): made, not skipped."""
        if self._context is None:
            return super().expected_after(set_id, terminal)
        found = self.scan(set_id, terminal)
        return self.expected[found] if found >= 0 else None

    def _top(self, set_id: int, symbol: int, visiting: tuple[int, ...] = ()) -> tuple[int, int, bool]:
        """Leo's path stops at a synthetic origin of an upper bound (``_close`` must see the
        symbol completed there)."""
        if self._context is not None and set_id in self._context:
            return set_id, symbol, False
        return super()._top(set_id, symbol, visiting)

    def _mix(self, inner: int) -> int:
        """The set ``inner`` (-1: none) that also goes on with the FOLLOW terminals of the
        nonterminals ``_close`` completed at a synthetic origin (``reached``)."""
        follow = frozenset().union(*(self._follow[symbol] for symbol in self.reached))
        key = (inner, follow)
        found = self._mixed_of.get(key)
        if found is None:
            expected = follow.union(self.expected[inner]) if inner >= 0 else follow
            found = self._mixed_of[key] = self._phantom(tuple(sorted(expected)), accepting=True)
            self._mixed[found] = key
        return found

    def _phantom(self, expected: tuple[int, ...], *, accepting: bool) -> int:
        """A new set with no items of its own, registered under a key of its own (its number: no
        content key equals it, ``EarleySets._new_set``): the parser reads only its expected
        terminals, its flag and the scans this class gives it."""
        return self._new_set(("phantom", len(self.expected)), {terminal: () for terminal in expected}, {},
                             self._block(frozenset()), accepting, None)


class _LocalMemo:
    """One bound's parser memo: ``LocalSets``, their configurations and a walker (no stored memo,
    no item masks, no merging: nothing that reads a synthetic set's items)."""

    def __init__(self, index, follow: list[frozenset[int]] | None):
        limits = index.limits
        self.sets = LocalSets(index._rules, limits, follow)
        self.configs = Configs(index._lexer, self.sets, index._rules.ignore, index.n_classes, limits)
        self.walker = MaskWalker(index._lexer, index._masks, index._trie, index._trie_order, index._loop_exits,
                                 index._undecided, index._terminal_lengths, self.configs, index.eos_token_ids, limits)

    def mask(self, state: int, terminal: int, rule: int, dot: int, wanted: frozenset[int],
             allowed: np.ndarray | None = None) -> np.ndarray:
        """The mask of a thread of ``terminal`` in ``state`` whose lexeme leads to the item
        (``allowed``: tokens known to be in it, ``MaskWalker.mask_given``)."""
        after = self.sets.item_set(rule, dot, wanted)
        config = self.configs.adopt({(self.sets.entry(terminal, after), terminal, state)}, False)
        return self.walker.mask(config) if allowed is None else self.walker.mask_given(config, allowed)


class ItemBounds:
    """Computes the bounds of keys ``(lexer state, rule, dot, wanted nonterminals)`` for one index."""

    def __init__(self, index):
        self._index = index
        self._lower = _LocalMemo(index, None)
        self._upper = _LocalMemo(index, follow_terminals(index._rules))
        self._eos_words = np.array(index.eos_token_ids, dtype=np.intp) >> 5
        self._eos_bits = (np.uint32(1) << (np.array(index.eos_token_ids, dtype=np.uint32) & 31)).astype(np.uint32)

    @property
    def steps(self) -> int:
        """Parser steps the bounds cost so far (both memos)."""
        return self._lower.configs.steps + self._upper.configs.steps

    def of(self, state: int, rule: int, dot: int, wanted: frozenset[int]) -> tuple[np.ndarray, np.ndarray]:
        """(the state's undecided tokens the lower bound holds, as a mask row of int32 words: the
        others it holds are in every mask of the state's thread already, its precomputed masks;
        the places, in trie order, of the undecided tokens the upper bound holds and the lower
        one does not: the ones left to walk).  The state must have an undecided
        set; ``GrammarLimitExceeded`` passes through (the key then gets no bounds)."""
        terminal = self._index._lexer.state_terminal[state]
        lower = self._lower.mask(state, terminal, rule, dot, wanted).copy().view(np.uint32)
        lower[self._eos_words] &= ~self._eos_bits
        upper = self._upper.mask(state, terminal, rule, dot, wanted, lower.view(np.int32)).view(np.uint32)
        places, tokens = self._index._undecided.members(self._index._undecided.of(state))
        words, shifts = tokens >> 5, (tokens & 31).astype(np.uint32)
        low, up = ((lower[words] >> shifts) & 1).astype(bool), ((upper[words] >> shifts) & 1).astype(bool)
        kept = np.zeros_like(lower)
        np.bitwise_or.at(kept, words[low], np.uint32(1) << shifts[low])
        return kept.view(np.int32), places[up & ~low].astype(np.int32)


def follow_terminals(rules: EarleyRules) -> list[frozenset[int]]:
    """Each symbol's FOLLOW terminals (ignored ones left out: they may come anywhere)."""
    listed = [(lhs, rules.rhs(rule)) for rule, lhs in enumerate(rules.lhs_symbol)]
    n_symbols = len(rules.nullable)
    nullable = [bool(x) for x in rules.nullable]
    return [frozenset(found) for found in follow_sets(listed, first_sets(listed, rules.n_terminals, n_symbols, nullable),
                                                      nullable)]

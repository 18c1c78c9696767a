"""Earley sets over lexemes: content-addressed, immutable, their scans memoised.

An item is ``(rule, dot, origin)``; the symbol after its dot is
``rules.dotted[rules.first[rule] + dot]`` (``COMPLETE`` when the dot is at the end, see
``tables.EarleyRules``).  An origin is the id of the Earley set where the item's
rule was predicted, or ``SELF`` (-1) for an item predicted in the set that holds it.  With
that one convention a set's content never mentions its own id, so sets can be *interned*:
two text positions whose sets hold the same items get the same id, and everything computed
from a set (its scans, the lexer threads it starts) is computed once.  This is seed 001's row
reuse made structural: when the live walk goes down the trie, completes a lexeme, comes back
up and completes the same lexeme from the same row again, ``scan`` returns the memoised set.

``scan(s, t)`` is the Earley scanner plus closure: the items of ``s`` waiting on terminal
``t`` step over it; then, until nothing changes, an item waiting on a nonterminal adds that
nonterminal's precomputed *prediction closure* (``SELF`` items; nullable symbols already
stepped over, Aycock-Horspool), steps over it if it is nullable, and a complete item with a
real origin ``o`` advances the items of set ``o`` that wait on its left side (an item of ``o``
with origin ``SELF`` gets origin ``o``).  A complete ``SELF`` item needs no completer: its
left side is nullable and every item waiting on it already stepped over it.

A set keeps only its *incomplete* items (and whether ``S' -> start .`` was among the complete
ones: the text up to here is a sentence).  A complete item has done all its work when the set
is closed (completion happens then), and keeping it would make the set's content name the
origin it completed from: in a run that a terminal can split anywhere (Lark's ``text+`` of
``TEXT: (...)+``), every position would then get a set of its own, every earlier position's
thread would stay alive beside the new one, and the threads and items grew with the length of
the run (1,000 threads and 0.3 s a mask after 60 words of ``rfc.xml``).  Without them the
sets inside such a run are one and the same.  Each set also records the terminals it expects.  Limits: items per set and sets per memo (``GrammarLimits``).

A set is stored as its items with a real origin plus a shared ``Predictions`` block: its
``SELF`` items are exactly the prediction closures of the nonterminals its other items wait
on, so they follow from those items and need not be hashed, grouped or sorted again for every
set.  Sets that want the same nonterminals (an expression position, whatever its depth) share
one block, and the interning key is the (short) frozenset of the other items and the block's number.  On the C sample
(1,617 new sets in a cold walk, most of them one ``unaryTerm -> "-" . factor`` item over a
``factor`` block, one per dash of Llama-3's dash-run tokens) this cut the parser's share of the
walk from ~128 to ~50 ms under cProfile.

Right recursion and Leo's deterministic reduction paths (``_top``).  An item ``A -> alpha . B``
that is the only item of its set waiting on ``B`` does one thing when ``B`` completes: it
completes ``A`` from its own origin.  So the set keeps, instead of the item, where that
completion lands (``_leo``: the first set and symbol down the chain where more than one item
waits, or an item that does not end there), and the completer jumps there.  Sets that named
their origins one by one (``unaryTerm ::= "-" factor`` once per dash, a right-recursive list
once per element) are then one set: Llama-3's dash-run tokens (``----------------``, ~100
bytes deep in the trie) asked for ~100 new sets at every C expression position; the C
sample's cold walk now interns 135 sets instead of 1,617 and 345 configurations instead of
1,805 (walk CPU ~80 -> ~50 ms).  Intermediate complete items are not kept anyway, so nothing
else changes but the ``S' -> start .`` flag, carried along the path.  Not implemented: a
path through an item whose rest is nullable (``A -> alpha . B C``, ``C`` nullable) stops there.

Closures by completion (session 32).  A closure is the union of its kernel items' closures,
and a complete item's depends only on where its completion lands: ``(top, symbol)``.  So
``_completion(top, symbol)`` is memoised, and a scan is the completion of its terminal at the
set (``_closure_after``).  Its part inside the set's predictions is the same for every set with
that block, whatever the context (``Predictions.cascade``: the items it makes, the symbols it
completes); only the set's own items and Leo entries waiting on those symbols are closed item
by item (``_close``).  Each closure carries the terminals its items wait on, so a new set's
expected terminals, and a path leaf's (``expected_after``, which does not make the set), are
unions.  lark.lark's slowest masks are the first in a new context, a lexeme-path row of ~30 new
sets and ~60 closures (after ``start:``: 76 completions over 28 block cascades): that mask's
thread time 1.38 -> 1.22 ms, the sample's next three 1.13-1.20 -> 0.85-0.98 ms (medians of eight
fresh processes), its cold p99 1.45-1.58 -> 1.10-1.16 ms; C's slowest mask, where no closure is
asked twice, +4% (BENCHMARKS.md, docs/grammar-path.md "Session 32").

What the collector costs.  A mask that makes sets leaves GC-tracked objects behind (keys,
closures, items), and every 700 of them cost a young collection (~40-80 µs), every tenth of
those a middle one (0.45-1.0 ms in a fresh process, measured on lark.lark's walk): a
percentile of masks meets them.  So a (set, symbol) memo is keyed by one int (``stride``), a
Leo entry enters a key as an int, small symbol sets are one object per distinct set
(``_symbol_sets``), own items are stored as tuples (which, with their dicts, leave the
collector's tracking at their first collection), a link of a completion chain is its part
(``_joined``): lark.lark's cold walk leaves 7,076 -> 4,812 tracked objects (lark-other's 14,282
-> 9,088), its slowest mask 1,493 -> ~1,100.  (A leaf's expected terminals without its closure's
items, 4,952 -> 4,706 at the time, cost that mask ~6% of CPU, by thread time: not kept.)
"""

from __future__ import annotations

from collections.abc import Collection

from indexc_runtime.grammar.errors import GrammarLimitExceeded, GrammarLimits
from indexc_runtime.grammar.tables import COMPLETE, EarleyRules

SELF = -1
# A closure: its incomplete items (none ``SELF``), the nonterminals they want predicted, whether
# ``S' -> start .`` was among the complete ones, and the terminals its items wait on.
Closure = tuple[frozenset, frozenset[int], bool, frozenset[int]]
# A block's cascade (``Predictions.cascade``): ``(rule, dot)`` items made, wanted nonterminals,
# through ``S' -> start``, symbols completed, terminals waited on.
Cascade = tuple[tuple[tuple[int, int], ...], frozenset[int], bool, tuple[int, ...], frozenset[int]]
MAX_COMPLETION_DEPTH = 200  # nested completions memoised; deeper ones are closed item by item (``_close``)
START_RULE = 0


class Predictions:
    """The ``SELF`` items a set of wanted nonterminals predicts, grouped by the symbol they wait on.

    A set's ``SELF`` items are exactly the prediction closures of the nonterminals its other
    items wait on, so they are shared by every set that wants the same nonterminals (a
    handful of groups per grammar): computed, grouped and counted once, never hashed again
    when a set is interned."""

    __slots__ = ("number", "wanted", "waiting", "terminals", "size", "accepting", "_rules", "cascades")

    def __init__(self, rules: EarleyRules, wanted: frozenset[int], number: int):
        self.number = number  # part of a set's interning key
        self.wanted = wanted
        first, dotted = rules.first, rules.dotted
        items = {item for x in wanted for item in rules.predictions(x)}
        waiting: dict[int, list[tuple[int, int]]] = {}
        for r, d in sorted(items):
            symbol = dotted[first[r] + d]
            if symbol != COMPLETE:
                waiting.setdefault(symbol, []).append((r, d))
        self.waiting = {symbol: tuple(found) for symbol, found in waiting.items()}
        self.terminals = frozenset([s for s in waiting if s < rules.n_terminals])
        self.size = sum(map(len, waiting.values()))
        self.accepting = (START_RULE, 1) in items
        self._rules = rules
        self.cascades: dict[int, Cascade] = {}  # symbol -> ``cascade(symbol)`` (``EarleySets._completion`` reads it)

    def cascade(self, symbol: int) -> Cascade:
        """What a completion of ``symbol`` at a set with these predictions does inside them: the
        incomplete ``(rule, dot)`` items it makes (their origin is that set), the nonterminals
        they want, whether it completes ``S' -> start``, every symbol it completes there
        (``symbol`` first: the set's own items and Leo entries waiting on them are its caller's,
        ``EarleySets._completion``) and the terminals its items wait on.  The same for every set
        with this block, whatever its context: memoised here."""
        found = self.cascades.get(symbol)
        if found is None:
            found = self.cascades[symbol] = self._cascade(symbol)
        return found

    def _cascade(self, symbol: int) -> Cascade:
        rules = self._rules
        first, dotted, lhs_of, nullable = rules.first, rules.dotted, rules.lhs_symbol, rules.nullable
        T, waiting = rules.n_terminals, self.waiting
        completed = [symbol]
        stack = [(r, d + 1) for r, d in waiting.get(symbol, ())]
        seen, pairs, wanted, terminals, accepting = set(), [], set(), set(), False
        while stack:
            item = stack.pop()
            if item in seen:
                continue
            seen.add(item)
            r, d = item
            after = dotted[first[r] + d]
            if after != COMPLETE:
                pairs.append(item)
                if after >= T:
                    wanted.add(after - T)
                else:
                    terminals.add(after)
                if nullable[after]:
                    stack.append((r, d + 1))
                continue
            accepting = accepting or r == START_RULE
            lhs = lhs_of[r]
            if lhs not in completed:
                completed.append(lhs)
                stack += [(r2, d2 + 1) for r2, d2 in waiting.get(lhs, ())]
        return tuple(pairs), frozenset(wanted), accepting, tuple(completed), frozenset(terminals)


class EarleySets:
    """The interned Earley sets of one memo (``matcher.ParserMemo``); set ids are stable for its lifetime."""

    def __init__(self, rules: EarleyRules, limits: GrammarLimits):
        self._rules = self.rules = rules
        self._limits = limits
        self._id_of: dict[tuple, int] = {}  # content key (``_add``), or a caller's own (``_new_set``) -> set id
        self._own: list[dict[int, tuple[tuple[int, int, int], ...]]] = []  # per set: symbol -> its non-SELF items
        self._leo: list[dict[int, tuple[int, int, bool]]] = []  # per set: symbol -> where its completion goes (_top)
        # memos of a (set, symbol) pair are keyed by the int ``set * stride + symbol``: a tuple key per
        # scan, completion and Leo step was a third of the GC-tracked objects a mask's new sets left
        # (lark.lark after a rule's colon: 456 of 1,493), and every 700 of them cost a collection
        self.stride = len(rules.nullable)
        self._tops: dict[int, tuple[int, int, bool]] = {}  # (set, symbol) -> _top's answer
        self._predicted: list[Predictions] = []  # per set: its SELF items
        self._blocks: dict[frozenset[int], Predictions] = {}  # wanted nonterminals -> their predictions
        self.expected: list[frozenset[int]] = []  # per set: terminal ids some item waits on
        # per set: the incomplete items with an origin of the closure that made it, before Leo
        # entries took some out (None: not known); a scan's own are its closure's (``scan_items``)
        self.kernel: list[frozenset | None] = []
        # ``item_bounds``' upper bounds: synthetic origin set -> the nonterminals whose completion
        # there reaches the context (``_close`` adds them to ``LocalSets.reached``); None in a live memo
        self._context: dict[int, frozenset[int]] | None = None
        self.accepting: list[bool] = []
        self._scans: dict[int, int] = {}
        self._expected_after: dict[int, Collection[int] | None] = {}  # see expected_after
        self._closed: dict[Closure, int] = {}  # a closure -> the set interned from it
        self._completions: dict[int, Closure] = {}  # (set, symbol) -> ``_completion``
        # one object per distinct small set of symbols (a closure's wanted nonterminals and
        # terminals, a set's expected terminals): few distinct ones, made again by every closure
        self._symbol_sets: dict[frozenset[int], frozenset[int]] = {}
        self.initial = self._intern(frozenset(), frozenset((0,)), False)

    def __len__(self) -> int:
        return len(self.expected)

    def scan(self, set_id: int, terminal: int) -> int:
        """The set after a lexeme of ``terminal`` completes from ``set_id`` (-1: not expected there)."""
        key = set_id * self.stride + terminal
        found = self._scans.get(key)
        if found is None:
            closed = self._closure_after(set_id, terminal)
            found = -1 if closed is None else self._intern_closed(closed)
            self._scans[key] = found
        return found

    def expected_after(self, set_id: int, terminal: int) -> Collection[int] | None:
        """The terminals ``scan(set_id, terminal)``'s set expects (None: ``terminal`` is not expected
        there), without interning that set when it is not made yet: what a lexeme path's last
        node asks (``lexeme_paths``), where the closure is needed but the set never is again.
        Memoised (a scan already made answers with its set's ``expected``, not a copy)."""
        key = set_id * self.stride + terminal
        found = self._scans.get(key)
        if found is not None:
            return self.expected[found] if found >= 0 else None
        if key in self._expected_after:
            return self._expected_after[key]
        closed = self._closure_after(set_id, terminal)
        terminals = None if closed is None else self._expected(self._block(closed[1]), closed[3])
        self._expected_after[key] = terminals
        return terminals

    def scan_items(self, set_id: int, terminal: int) -> frozenset | None:
        """The incomplete items of the closure ``scan(set_id, terminal)`` made, which two scans
        that made one set may not share (``item_masks``' keys): the memoised completion of the
        terminal there (None: not made here, or a synthetic memo's, which keeps none)."""
        found = self._completions.get(set_id * self.stride + terminal)
        return None if found is None else found[0]

    def wanted(self, set_id: int) -> frozenset[int]:
        """The nonterminals a set predicts (its own items wait on them; the initial set: ``S'``)."""
        return self._predicted[set_id].wanted

    def completed(self, origin: int, symbol: int) -> tuple[int, bool]:
        """The set after nonterminal ``symbol`` completes from set ``origin`` (-1: nothing waits on
        it there), and whether that completion passes ``S' -> start .``: what the completer does
        for a complete item of ``origin`` (``_close``), for the language keys (``languages``)."""
        top, top_symbol, through_start = self._top(origin, symbol)
        closed = self._closure_after(top, top_symbol)
        return (self._intern_closed(closed) if closed is not None else -1), through_start

    def _closure_after(self, set_id: int, symbol: int) -> Closure | None:
        """The closure after ``symbol`` (a terminal scanned, or a nonterminal completed, with no Leo
        entry there) from ``set_id``: ``_completion``'s, which a scan shares with a completion
        (None: no item waits on ``symbol`` there)."""
        if symbol not in self._own[set_id] and symbol not in self._predicted[set_id].waiting:
            return None
        if self._context is not None:
            return self._close(self._kernel(set_id, symbol))  # item by item (see ``_close``)
        found = self._completions.get(set_id * self.stride + symbol)
        return found if found is not None else self._completion(set_id, symbol, 0)

    def _kernel(self, set_id: int, symbol: int) -> list[tuple[int, int, int]]:
        """The items of ``set_id`` waiting on ``symbol`` with the dot stepped over it (a ``SELF``
        item's origin written as ``set_id``): what a scan or a completion there closes."""
        kernel = [(r, d + 1, o) for r, d, o in self._own[set_id].get(symbol, ())]
        kernel += [(r, d + 1, set_id) for r, d in self._predicted[set_id].waiting.get(symbol, ())]
        return kernel

    def _expected(self, block: Predictions, terminals: frozenset[int]) -> frozenset[int]:
        """The terminals a set expects: its predictions' and those its own items wait on
        (``terminals``); one object per distinct set."""
        expected = block.terminals | terminals
        return self._symbol_sets.setdefault(expected, expected)

    def _close(self, kernel: list[tuple[int, int, int]], depth: int = 0) -> Closure:
        """The kernel's closure (``Closure``).

        A completion's part is memoised (``_completion``): the closure is the union of its items'
        closures, and that of a complete item depends only on where its completion lands.  Item by
        item instead (the completer reads the items waiting at the landing set, as before session
        32) in a synthetic memo (``item_bounds``: a completion at a synthetic origin is noted in
        ``reached``) and past ``MAX_COMPLETION_DEPTH``."""
        rules = self._rules
        first, dotted, lhs_of, nullable = rules.first, rules.dotted, rules.lhs_symbol, rules.nullable
        T, most, context = rules.n_terminals, self._limits.max_set_items, self._context
        by_item = context is not None or depth > MAX_COMPLETION_DEPTH
        tops, completions, stride = self._tops, self._completions, self.stride
        own, predicted = self._own, self._predicted
        items: set[tuple[int, int, int]] = set()
        incomplete = []
        wanted, terminals = set(), set()
        parts = []
        accepting = False
        stack = kernel
        while stack:
            item = stack.pop()
            if item in items:
                continue
            items.add(item)
            r, d, o = item
            symbol = dotted[first[r] + d]
            if symbol != COMPLETE:
                incomplete.append(item)
                if symbol >= T:
                    wanted.add(symbol - T)
                else:
                    terminals.add(symbol)
                if nullable[symbol]:
                    stack.append((r, d + 1, o))
            else:
                lhs = lhs_of[r]
                top = tops.get(o * stride + lhs) or self._top(o, lhs)
                if r == START_RULE or top[2]:
                    accepting = True
                if by_item:
                    at, lhs = top[0], top[1]
                    if context is not None and lhs - T in context.get(at, ()):
                        self.reached.add(lhs)
                    stack += [(r3, d3 + 1, o3) for r3, d3, o3 in own[at].get(lhs, ())]
                    stack += [(r3, d3 + 1, at) for r3, d3 in predicted[at].waiting.get(lhs, ())]
                    continue
                part = completions.get(top[0] * stride + top[1])
                if part is None:
                    part = self._completion(top[0], top[1], depth + 1)
                parts.append(part)
            if by_item and len(items) > most:  # item by item the closure can grow past any set's size
                raise GrammarLimitExceeded("max_set_items", most, "an Earley set grew too large")
        return self._joined(incomplete, wanted, accepting, terminals, parts)

    def _completion(self, top: int, symbol: int, depth: int) -> Closure:
        """The closure of a completion of ``symbol`` at set ``top`` (``_top``'s answer: no Leo
        entry there): its predictions' part from their block (``Predictions.cascade``), then the
        own items and Leo entries of every symbol that part completes.  Memoised."""
        if depth > MAX_COMPLETION_DEPTH:  # a chain of completions this deep: item by item, not memoised
            return self._close(self._kernel(top, symbol), depth)
        block = self._predicted[top]
        found = block.cascades.get(symbol)
        pairs, wanted, accepting, completed, terminals = found if found is not None else block.cascade(symbol)
        own, leo = self._own[top], self._leo[top]
        parts = []
        if leo:
            for x in leo.keys() & completed:
                entry = leo[x]
                accepting = accepting or entry[2]
                part = self._completions.get(entry[0] * self.stride + entry[1])
                parts.append(part if part is not None else self._completion(entry[0], entry[1], depth + 1))
        kernel = [(r, d + 1, o) for x in own.keys() & completed for r, d, o in own[x]]
        if kernel:
            parts.append(self._close(kernel, depth + 1))
        found = self._completions[top * self.stride + symbol] = self._joined(
            [(r, d, top) for r, d in pairs], wanted, accepting, terminals, parts)
        return found

    def _joined(self, items: list, wanted, accepting: bool, terminals, parts: list[Closure]) -> Closure:
        """The closure of ``items`` (incomplete, none ``SELF``), wanting ``wanted``, waiting on
        ``terminals``, and the closures ``parts`` (completions it made): their union, its symbol
        sets one object per distinct set.  A link of a completion chain (nothing but one part) is
        that part, no union made.  Limit: ``max_set_items``."""
        canonical, most = self._symbol_sets.setdefault, self._limits.max_set_items
        if not parts:
            if len(items) > most:
                raise GrammarLimitExceeded("max_set_items", most, "an Earley set grew too large")
            wanted, terminals = frozenset(wanted), frozenset(terminals)
            return frozenset(items), canonical(wanted, wanted), accepting, canonical(terminals, terminals)
        if not items and not wanted and not terminals and len(parts) == 1:
            part = parts[0]
            return part if part[2] or not accepting else (part[0], part[1], True, part[3])
        wanted = frozenset(wanted).union(*[part[1] for part in parts])
        terminals = frozenset(terminals).union(*[part[3] for part in parts])
        closed = (frozenset(items).union(*[part[0] for part in parts]), canonical(wanted, wanted),
                  accepting or True in [part[2] for part in parts], canonical(terminals, terminals))
        if len(closed[0]) > most:
            raise GrammarLimitExceeded("max_set_items", most, "an Earley set grew too large")
        return closed

    def _intern_closed(self, closed: Closure) -> int:
        """``_intern`` of a closure, memoised on the closure itself.

        Different (set, terminal) scans often close to the same items (51 of the 178 closures
        of the C sample's cold walk); met again, a closure skips ``_intern``'s grouping, Leo
        entries and key building (the C walk's ``Configs.fill`` CPU 5.0 -> 4.5 ms, min of 10)."""
        found = self._closed.get(closed)
        if found is None:
            found = self._closed[closed] = self._intern(*closed)
        return found

    def _top(self, set_id: int, symbol: int, visiting: tuple[int, ...] = ()) -> tuple[int, int, bool]:
        """Where a completion of ``symbol`` from ``set_id`` really lands (Leo's deterministic
        reduction path): ``(set, symbol, passed S' -> start .)``.

        When the only item of ``set_id`` waiting on ``symbol`` is ``A -> alpha . symbol``, its
        completion completes ``A`` from the item's origin and does nothing else, so the answer
        is that of ``(origin, A)``.  An own item's answer is its set's ``_leo`` entry (made when
        the set was interned); a predicted one (origin ``set_id`` itself) is followed here
        (``visiting`` guards against a cycle of unit rules, which uniqueness already rules out:
        the symbol where such a cycle is entered has a second item waiting on it).  Stopping
        early is always exact (the completer then does the rest item by item); the answer is
        never a pair with a ``_leo`` entry, so the completer reads the items waiting there."""
        key = set_id * self.stride + symbol
        found = self._tops.get(key)
        if found is not None:
            return found
        found = self._leo[set_id].get(symbol)
        if found is None:
            found = (set_id, symbol, False)
            rules = self._rules
            if symbol >= rules.n_terminals and symbol not in self._own[set_id]:
                waiting = self._predicted[set_id].waiting.get(symbol, ())
                if len(waiting) == 1:
                    r, d = waiting[0]
                    lhs = rules.lhs_symbol[r]
                    if rules.dotted[rules.first[r] + d + 1] == COMPLETE and lhs not in visiting and lhs != symbol:
                        top, top_symbol, through_start = self._top(set_id, lhs, visiting + (symbol,))
                        found = (top, top_symbol, through_start or r == START_RULE)
        self._tops[key] = found
        return found

    def _leo_entries(self, waiting: dict[int, list], block: Predictions) -> dict[int, tuple[int, int, bool]]:
        """The own items a new set keeps as their ``_top`` instead (see the module note)."""
        rules = self._rules
        first, dotted, T = rules.first, rules.dotted, rules.n_terminals
        entries = {}
        predicted, tops = block.waiting, self._tops
        for symbol, found in waiting.items():
            if symbol >= T and len(found) == 1 and symbol not in predicted:
                r, d, o = found[0]
                if dotted[first[r] + d + 1] == COMPLETE:
                    lhs = rules.lhs_symbol[r]
                    top, top_symbol, through_start = tops.get(o * self.stride + lhs) or self._top(o, lhs)
                    entries[symbol] = (top, top_symbol, through_start or r == START_RULE)
        return entries

    def _intern(self, items: frozenset, wanted: frozenset[int], accepting: bool,
                terminals: frozenset[int] | None = None) -> int:
        """The id of the set holding ``items`` and the predictions of ``wanted``.

        ``wanted`` follows from ``items`` in every set but the initial one (which predicts
        ``S'`` with no item waiting on it), so the block's number in the key costs no sharing;
        without it the initial set of a nullable start and the set after a whole sentence
        (both: no item with an origin, accepting) were one.  An item kept as a ``_leo`` entry
        is keyed by that entry, not by its origin: that is what makes the sets of a right
        recursion one set.  ``terminals``: those the items wait on, if known (a closure's; a Leo
        entry is never a terminal's)."""
        block = self._block(wanted)
        waiting = self._waiting(items)
        leo = self._leo_entries(waiting, block)
        kernel = items
        if leo:
            for symbol in leo:
                del waiting[symbol]
            items = frozenset([item for found in waiting.values() for item in found])
        return self._add(items, waiting, leo, block, accepting, kernel, terminals)

    def _block(self, wanted: frozenset[int]) -> Predictions:
        block = self._blocks.get(wanted)
        if block is None:
            block = self._blocks[wanted] = Predictions(self._rules, wanted, len(self._blocks))
        return block

    def _waiting(self, items: frozenset) -> dict[int, list]:
        """Incomplete items grouped by the symbol after their dot."""
        first, dotted = self._rules.first, self._rules.dotted
        waiting: dict[int, list] = {}
        for item in items:
            waiting.setdefault(dotted[first[item[0]] + item[1]], []).append(item)
        return waiting

    def _add(self, items: frozenset, waiting: dict[int, list], leo: dict[int, tuple[int, int, bool]],
             block: Predictions, accepting: bool, kernel: frozenset | None,
             terminals: frozenset[int] | None = None) -> int:
        """The id of the set keyed by its own items, Leo entries, predictions and flag (made if new);
        ``kernel``: its items before the Leo entries took some out (None: not known)."""
        accepting = accepting or block.accepting
        stride = self.stride  # a Leo entry in the key as one int (a tuple per entry: ~70 tracked objects a slow mask)
        key = (items, frozenset([((top * stride + top_symbol) * 2 + through) * stride + symbol
                                 for symbol, (top, top_symbol, through) in leo.items()]), block.number, accepting)
        found = self._id_of.get(key)
        if found is not None:
            return found
        size = len(items) + len(leo) + block.size
        if size > self._limits.max_set_items:
            raise GrammarLimitExceeded("max_set_items", self._limits.max_set_items, "an Earley set grew too large")
        return self._new_set(key, waiting, leo, block, accepting, kernel, terminals)

    def _new_set(self, key: tuple, waiting: dict[int, list], leo: dict[int, tuple[int, int, bool]],
                 block: Predictions, accepting: bool, kernel: frozenset | None,
                 terminals: frozenset[int] | None = None) -> int:
        """A new set's id, registered under ``key``: ``_add``'s content key, or a key of the caller's
        that no content key equals (``item_bounds.LocalSets``' phantom sets, which have no items)."""
        if len(self.expected) >= self._limits.max_sets:
            raise GrammarLimitExceeded("max_sets", self._limits.max_sets, "too many distinct Earley sets")
        set_id = len(self.expected)
        self._id_of[key] = set_id
        # tuples, not the lists ``_waiting`` grouped them in: a tuple of items leaves the collector's
        # tracking at its first collection, and a dict of them with it (a list never does)
        self._own.append({symbol: tuple(found) for symbol, found in waiting.items()})
        self._leo.append(leo)
        self._predicted.append(block)
        self.kernel.append(kernel)
        if terminals is None:
            terminals = frozenset([symbol for symbol in waiting if symbol < self._rules.n_terminals])
        self.expected.append(self._expected(block, terminals))
        self.accepting.append(accepting)
        return set_id

    def content(self, set_id: int) -> tuple[list, dict[int, tuple[int, int, bool]], frozenset[int], bool]:
        """A set's interning key as ``stored_match`` reads it: its own items ``(rule, dot, origin)``,
        Leo entries (symbol -> top, top symbol, passed ``S' -> start .``), wanted nonterminals
        and accepting flag (its ``SELF`` items are the predictions of the wanted ones)."""
        items = [item for found in self._own[set_id].values() for item in found]
        return items, self._leo[set_id], self._predicted[set_id].wanted, self.accepting[set_id]

    # -- a memo computed ahead of time (``stored_memo``) ------------------------------------------

    def adopt(self, items: frozenset, leo: dict[int, tuple[int, int, bool]], wanted: frozenset[int],
              accepting: bool) -> int:
        """The id of a stored set (its own items and Leo entries as ``stored_form`` gave them,
        origins and tops already live ids): the same key ``_intern`` makes, without recomputing
        the Leo entries."""
        return self._add(items, self._waiting(items), leo, self._block(wanted), accepting, None if leo else items)

    def stored_form(self) -> tuple[list, list, list, list, list, list, list]:
        """The sets (in id order) and scans as plain lists, for ``StoredMemo.export``: per set its
        own item count, its Leo entry count and its wanted nonterminals; then every own item
        ``(rule, dot, origin)``, every Leo entry ``(symbol, top, top symbol, through start)``, the
        accepting flags and the scans ``(set, terminal, after)``."""
        wanted_of = {block.number: sorted(wanted) for wanted, block in self._blocks.items()}
        return ([sum(map(len, own.values())) for own in self._own],
                [item for own in self._own for found in own.values() for item in found],
                [len(entries) for entries in self._leo],
                [(symbol, top, top_symbol, int(through)) for entries in self._leo
                 for symbol, (top, top_symbol, through) in entries.items()],
                [wanted_of[block.number] for block in self._predicted],
                [int(flag) for flag in self.accepting],
                [(*divmod(key, self.stride), after) for key, after in self._scans.items()])

"""The grammar artifact's tables, checked once at load and shaped for the live path.

Three groups, each bounded so that no later lookup can go out of range (a bad value is an
``ArtifactError`` from ``load``, or from the first read of a section ``load`` leaves alone):

- ``LexerTables``: the lexer automaton over byte classes (``next``: -1 where the lexeme dies),
  each state's lexeme-accepting flag and terminal, each terminal's start state, each state's
  in-lexeme mask and boundary masks (by following terminal);
- ``EarleyRules``: rules as flat Python lists (the parser's per-item loop reads list items
  faster than arrays; one list for all rules, not a tuple per rule: see its note), nullable
  symbols, prediction closures (made into pairs per nonterminal on first use);
- ``TrieArrays``: the token trie's walk arrays, zero-copy (numpy views for the wide levels of
  the walk, memoryviews for its narrow tail), and each token's byte classes (``advance``).

What the checks cost, and why they are written as they are.  A fresh process's load of a
Llama-3 grammar artifact is mostly these checks (the header, layout and small checksums are
~0.5 ms), and the goal is load + first mask <= 5 ms.  The trie is 274k nodes: five int32
arrays of 1.1 MB and a byte array; reading them once costs ~0.7 ms on this host, so every
extra pass or temporary counts.  ``_check_node_arrays`` reads each array once, with the
order comparisons done in chunks into one small buffer (``NODE_CHECK_CHUNK``): 2.9 -> ~1.1 ms
with the token class rows taken out (below).  The lexer's and parser's sections are small
(tens to hundreds of items): their bounds are taken with ``min``/``max`` over the items
(``_bounded_items``), which cost less than a numpy call each, and numpy above
``SMALL_SECTION_ITEMS``.  The token class rows (1.3 MB) are read by ``advance`` only: they
are bounded on that first read (``TokenClassRows``), and no longer copied (0.5 ms).
Fresh process, median of 15 (busy host): lexer + Earley tables 0.41 -> 0.25 ms (arithmetic),
0.53 -> 0.50 ms (comment_thread: 872 lexer states, numpy checks).  rfc.lark (2,252 lexer
states, 622 rules), fresh process: lexer 0.64 -> 0.44 ms (the ``next`` copy in int16,
``_shifted_down``), Earley tables 0.9 -> ~0.3 ms (flat lists, no collector run).

The in-lexeme masks are read by the regex runtime's ``MaskStore`` unchanged.
"""
from __future__ import annotations

import operator
from dataclasses import dataclass

import numpy as np

from indexc_runtime.container import Container, largest
from indexc_runtime.tokens import check_class_order, check_class_rows


@dataclass(frozen=True)
class LexerTables:
    byte_classes: np.ndarray  # uint8 (256,)
    next: np.ndarray  # signed (n_states, n_classes), the narrowest that holds n_states: next state, -1 dead
    next_flat: memoryview  # the same, flat (state * n_classes + class), items Python ints
    n_classes: int
    accepting: memoryview  # 0/1 per state
    terminal_start: memoryview  # (no tuple: 2,252 Python ints for rfc.lark's states, most never read)
    state_terminal: memoryview  # each state's terminal (``horizon.TerminalLengths`` counts a terminal's states)
    state_mask: memoryview
    pair_offsets: memoryview  # boundary masks of state q: pairs [offsets[q], offsets[q+1])
    pair_terminal: memoryview
    pair_mask: memoryview
    undecided_set: memoryview | None  # 1 + each state's undecided set, 0: every token (format 5; None before)
    longest: memoryview | None  # 1 where the state's terminal ends by longest match (format 10); None: all splits

    def boundary_masks(self, state: int) -> dict[int, int]:
        """{following terminal: mask id} of a lexer state's boundary masks (built on first use)."""
        found = self._pairs.get(state)
        if found is None:
            lo, hi = self.pair_offsets[state], self.pair_offsets[state + 1]
            found = self._pairs[state] = dict(zip(self.pair_terminal[lo:hi], self.pair_mask[lo:hi]))
        return found

    def live_classes(self, state: int) -> int:
        """Bit ``c`` set iff the lexeme survives class ``c`` from ``state`` (built on first use).

        A configuration's transition on a class no thread survives is dead without asking the
        parser (``Configs``): 84% of the transitions a JSON Schema walk asked for.
        """
        found = self._live.get(state)
        if found is None:
            bits = np.packbits(self.next[state] >= 0, bitorder="little")
            found = self._live[state] = int.from_bytes(bits.tobytes(), "little")
        return found

    def loop_classes(self, state: int) -> list[int]:
        """The classes on which ``state`` goes back to itself (built on first use)."""
        found = self._loops.get(state)
        if found is None:
            found = self._loops[state] = np.flatnonzero(self.next[state] == state).tolist()
        return found

    @classmethod
    def from_container(cls, c: Container) -> "LexerTables":
        dims = c.header.dims
        n_states, n_terminals, n_masks = dims["n_lexer_states"], dims["n_terminals"], dims["n_masks"]
        byte_classes, raw = c.array("byte_classes"), c.array("class_transitions")
        c.check_below("byte_classes", byte_classes, dims["n_classes"])
        c.check_below("class_transitions", raw, n_states + 1)
        nxt = _shifted_down(raw, n_states)
        tables = cls(byte_classes, nxt, _ints(nxt.reshape(-1)), dims["n_classes"], _bounded_items(c, "accepting", 2),
                     _bounded_items(c, "terminal_start", n_states), _bounded_items(c, "state_terminal", n_terminals),
                     _bounded_items(c, "state_mask", n_masks),
                     _offset_items(c, "pair_offsets", dims["n_pairs"]),
                     _bounded_items(c, "pair_terminal", n_terminals), _bounded_items(c, "pair_mask", n_masks),
                     _undecided_set_items(c), _longest_states(c))
        object.__setattr__(tables, "_pairs", {})
        object.__setattr__(tables, "_live", {})
        object.__setattr__(tables, "_loops", {})
        return tables


def _shifted_down(raw: np.ndarray, n_states: int) -> np.ndarray:
    """The stored ``1 + next state`` (0: dead) as ``next state`` (-1: dead), in one pass, in the
    narrowest signed dtype that holds ``n_states`` (``raw`` already bounded by it).

    The table is the one copy the lexer's load makes (``next_flat`` must give -1 for a dead
    lexeme, and the mapped file is read-only): rfc.lark's 2,252 states x 64 classes are 144k
    entries, whose int32 copy and shift cost ~0.3 ms of a fresh process (mostly the first
    touches of 576 KB); int16 halves that.  When the stored width is already that width, the
    values are read as signed in place (every one is at most ``n_states``, below the sign bit)
    and no cast runs (~0.12 -> ~0.11 ms)."""
    signed = np.dtype(np.int8 if n_states < 1 << 7 else np.int16 if n_states < 1 << 15 else np.int32)
    if raw.dtype.itemsize == signed.itemsize:
        return np.subtract(raw.view(raw.dtype.str.replace("u", "i")), signed.type(1), dtype=signed)
    return np.subtract(raw, 1, dtype=signed, casting="unsafe")


COMPLETE = -1  # ``EarleyRules.dotted`` past a rule's last symbol


@dataclass(frozen=True)
class EarleyRules:
    """The rules, flat: the parser reads the symbol after the dot of item ``(rule, dot)`` as
    ``dotted[first[rule] + dot]`` (``COMPLETE`` past the last symbol).

    Why flat lists and not a tuple per rule: a fresh process's load built rfc.lark's 622 rule
    tuples and 1,672 predicted items in ~0.9 ms, and their ~2,500 new container objects set off
    the garbage collector three times (~0.35 ms) on the way to the first mask.  Three lists
    are made instead (``_rule_lists``), and ``dotted[first[r] + d]`` reads as fast as
    ``rhs[r][d]`` with its length test.  The prediction closures stay in the file (memoryviews:
    no Python int is made for an item no parse asks for); each nonterminal's is made into
    ``(rule, dot)`` pairs on first use (``predictions``).  rfc.lark, fresh process: 0.9 ->
    ~0.3 ms.
    """

    n_terminals: int
    lhs_symbol: list[int]  # symbol id of each rule's left side
    first: list[int]  # where each rule's symbols start in ``dotted``
    dotted: list[int]  # each rule's symbols then COMPLETE, rule after rule
    nullable: list[int]  # by symbol id, 0/1
    ignore: frozenset[int]
    prediction_offsets: memoryview  # nonterminal x predicts items [offsets[x], offsets[x + 1])
    prediction_rule: memoryview
    prediction_dot: memoryview

    def predictions(self, nonterminal: int) -> tuple[tuple[int, int], ...]:
        """The ``(rule, dot)`` items a nonterminal's prediction closure holds (made on first use)."""
        found = self._predictions.get(nonterminal)
        if found is None:
            lo, hi = self.prediction_offsets[nonterminal], self.prediction_offsets[nonterminal + 1]
            found = self._predictions[nonterminal] = tuple(zip(self.prediction_rule[lo:hi],
                                                               self.prediction_dot[lo:hi]))
        return found

    def rhs(self, rule: int) -> list[int]:
        """A rule's right side (its symbols before ``COMPLETE``)."""
        at = self.first[rule]
        return self.dotted[at:self.dotted.index(COMPLETE, at)]

    def same_rest(self, rule: int, dot: int) -> tuple[int, int]:
        """The first item ``(rule', dot')`` with ``rule``'s left side and the same symbols after
        its dot: two such items accept the same texts from one origin (a Lark rule's optional
        parts are lowered into one rule per combination, ``rule: RULE params? ":" expansions``
        into four, each with the same ``":" . expansions``; ``item_masks`` keys them as one).
        The table is built on first use."""
        table = self.__dict__.get("_rests")
        if table is None:
            table, firsts = {}, {}
            for r, lhs in enumerate(self.lhs_symbol):
                rhs = self.rhs(r)
                for d in range(len(rhs) + 1):
                    table[(r, d)] = firsts.setdefault((lhs, tuple(rhs[d:])), (r, d))
            object.__setattr__(self, "_rests", table)
        return table[(rule, dot)]

    def wanted_for(self, lhs: int, wanted: frozenset[int]) -> frozenset[int]:
        """The nonterminals of ``wanted`` (an origin's) that an item of left side ``lhs`` from that
        origin can reach: their predictions hold an item waiting on ``lhs`` or on the left side of
        such an item, again and again (what a completion of ``lhs`` there may advance), or they are
        such a left side.  An origin wanting only these accepts the same texts after the item
        (``item_masks`` keys by them: a context that wants more is the same key).  Memoised."""
        cache = self.__dict__.setdefault("_wanted_for", {})
        found = cache.get((lhs, wanted))
        if found is None:
            waiting: dict[int, list[tuple[int, int]]] = {}  # symbol -> (wanted nonterminal, left side) waiting on it
            for x in wanted:
                for rule, dot in self.predictions(x):
                    waiting.setdefault(self.dotted[self.first[rule] + dot], []).append((x, self.lhs_symbol[rule]))
            completed, stack, kept = {lhs}, [lhs], set()
            while stack:
                for x, left in waiting.get(stack.pop(), ()):
                    kept.add(x)
                    if left not in completed:
                        completed.add(left)
                        stack.append(left)
            found = cache[(lhs, wanted)] = frozenset(kept | {x for x in wanted if x + self.n_terminals in completed})
        return found

    @classmethod
    def from_container(cls, c: Container) -> "EarleyRules":
        """The Earley sections, every value bounded before any is used: left sides below the
        nonterminal count, symbols below the symbol count, nullable flags 0/1, offsets rising,
        predicted rules below the rule count and their dots inside their rule."""
        dims = c.header.dims
        T, N, R = dims["n_terminals"], dims["n_nonterminals"], dims["n_rules"]
        lhs = _bounded_items(c, "rule_lhs", N)
        offsets = _offset_items(c, "rule_rhs_offsets", dims["n_rhs"])
        rhs = _bounded_items(c, "rule_rhs", T + N)
        nullable = _bounded_items(c, "symbol_nullable", 2).tolist()
        prediction_offsets = _offset_items(c, "prediction_offsets", dims["n_predictions"])
        pred_rule, pred_dot = _bounded_items(c, "prediction_rule", R), c.items("prediction_dot")
        _check_dots(c, pred_rule, pred_dot, offsets)
        ignore = frozenset(_bounded_items(c, "ignore_terminals", T))
        rules = cls(T, *_rule_lists(c, lhs, offsets, rhs, T), nullable, ignore, prediction_offsets, pred_rule,
                    pred_dot)
        object.__setattr__(rules, "_predictions", {})
        return rules


def _rule_lists(c: Container, lhs: memoryview, offsets: memoryview, rhs: memoryview,
                n_terminals: int) -> tuple[list[int], list[int], list[int]]:
    """``EarleyRules``' ``lhs_symbol``, ``first`` and ``dotted`` (each rule's symbols followed
    by ``COMPLETE``, rule after rule), from checked sections.

    A few rules (``SMALL_SECTION_ITEMS`` or fewer) in Python, more with numpy: a numpy call
    costs ~5 us (more on its first call in a process), a loop over rfc.lark's 622 rules
    ~0.2 ms against ~0.1 ms for the scatter."""
    n_rules = len(lhs)
    if n_rules <= SMALL_SECTION_ITEMS:
        first, dotted = [], []
        for start, end in zip(offsets, offsets[1:]):
            first.append(len(dotted))
            dotted += rhs[start:end]
            dotted.append(COMPLETE)
        return [n_terminals + x for x in lhs], first, dotted
    bounds, symbols = c.array("rule_rhs_offsets"), c.array("rule_rhs")
    rule_numbers = np.arange(n_rules)
    flat = np.full(symbols.size + n_rules, COMPLETE, dtype=np.int32)
    flat[np.arange(symbols.size) + np.repeat(rule_numbers, bounds[1:] - bounds[:-1])] = symbols  # r places later
    return (c.array("rule_lhs") + n_terminals).tolist(), (bounds[:-1] + rule_numbers).tolist(), flat.tolist()


@dataclass(frozen=True)
class TrieArrays:
    """Zero-copy views of the trie sections, and the same as memoryviews (Python ints) for the
    walk's narrow tail, which steps node by node in Python."""

    node_class: np.ndarray  # uint8 (n_nodes,)
    child_offsets: np.ndarray  # int32 (n_nodes + 1,)
    children: np.ndarray  # int32
    token_start: np.ndarray  # int32
    token_end: np.ndarray  # int32
    subtree_token_end: np.ndarray  # int32
    sorted_tokens: np.ndarray  # int32
    classes: "TokenClassRows"  # each token's byte classes by id (``advance``), checked on first use
    py: dict  # name -> memoryview of the arrays above (node_class, child_offsets, children, token_start, token_end,
    # subtree_token_end)

    @classmethod
    def from_container(cls, c: Container) -> "TrieArrays":
        """The walk arrays, every index they hold bounded (``_check_node_arrays``); the token
        class rows are bounded on their first read (``TokenClassRows``)."""
        dims = c.header.dims
        _check_node_arrays(c, dims)
        node_class, child_offsets, children = (c.array(n) for n in ("trie_node_class", "trie_child_offsets",
                                                                      "trie_children"))
        start, end, subtree_end = (c.array(n) for n in ("trie_token_start", "trie_token_end", "trie_subtree_token_end"))
        py = {"node_class": _ints(node_class), "child_offsets": _ints(child_offsets), "children": _ints(children),
              "token_start": _ints(start), "token_end": _ints(end), "subtree_token_end": _ints(subtree_end)}
        return cls(node_class, child_offsets, children, start, end, subtree_end, c.array("trie_sorted_tokens"),
                   TokenClassRows(c), py)

    def token_classes(self, token: int) -> memoryview:
        """The byte classes of a text token's bytes (empty: not a text token)."""
        return self.classes.of(token)


class TokenClassRows:
    """Each token's byte classes (``token_class_offsets`` into ``token_class_data``), by id.

    Only ``advance`` reads them, so they are checked on the first read rather than by ``load``
    (~0.2 ms of a fresh process: 1.3 MB that the first mask never touches): the offsets bounded
    to the data (one ``max``, viewed unsigned) and the classes below ``n_classes``.  As in the
    DFA runtime (``indexc_runtime.tokens``), the offsets' order is checked where a span is read
    (a span running backwards is refused) and in full by ``check_all`` (``verify``).  The data
    is read in place (a memoryview slice), where a copy of its 0.8 MB cost ~0.5 ms of the load.
    """

    def __init__(self, c: Container):
        self._container = c
        self._offsets: memoryview | None = None
        self._data: memoryview | None = None

    def of(self, token: int) -> memoryview:
        """Token ``token``'s classes (``token`` in ``[0, vocab_size)``, checked by the caller)."""
        if self._offsets is None:
            self._check_bounds()
        start, end = self._offsets[token], self._offsets[token + 1]
        if start > end:
            raise self._container.error(f"token {token}'s byte classes [{start}, {end}) run backwards: offsets must "
                                        "rise", "token_class_offsets")
        return self._data[start:end]

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """The offsets and the class data as numpy arrays (bounded as for ``of``), for stepping
        many tokens at once; a caller reading a span checks that it does not run backwards."""
        if self._offsets is None:
            self._check_bounds()
        c = self._container
        return c.array("token_class_offsets"), c.array("token_class_data")

    def longest(self) -> int:
        """The longest token's classes (one a byte): how far a mask can see (``horizon``)."""
        offsets, _ = self.arrays()
        return int(np.diff(offsets).max())

    def check_all(self) -> None:
        """The bounds and the order of every offset (``verify``)."""
        self._check_bounds()
        check_class_order(self._container.source, self._container.array("token_class_offsets"))

    def _check_bounds(self) -> None:
        c = self._container
        check_class_rows(c, c.array("token_class_offsets"), c.array("token_class_data"), c.header.dims["n_classes"])
        self._data = c.items("token_class_data")
        self._offsets = c.items("token_class_offsets")


_count = np.count_nonzero  # ``ndarray.all`` goes through a Python wrapper
_ANY = np.logical_or.reduce  # the ufunc itself: ``ndarray.any`` goes through a Python wrapper (~2 us a call)
NODE_CHECK_CHUNK = 1 << 15  # nodes per step of the fused run check: its comparisons stay in a 32 KB buffer


def _check_node_arrays(c: Container, dims: dict[str, int]) -> None:
    """Every index the walk reads from the trie, bounded; the CSR offsets and token runs ordered.

    Node classes below ``n_classes``, children below ``n_nodes``, sorted tokens below the
    vocabulary: one ``max`` each.  The child offsets rise from 0 to the edge count; the token
    runs satisfy ``0 <= start <= end <= subtree end <= n_trie_tokens`` (``end`` is bounded by
    the two others, so it needs no ``max`` of its own).  Those comparisons go through the node
    arrays in chunks of ``NODE_CHECK_CHUNK`` into one small buffer: whole-array comparisons
    made four 274k-element temporaries (fresh memory, page faults included).  Fresh process,
    Llama-3 trie, median of 21: the checks of ``from_container`` 2.9 -> ~1.1 ms, of which
    ~0.7 ms is the same checks on arrays already read once (the rest: mapping in and reading
    the 5.5 MB of node arrays).  The two ``max`` of the run bounds are taken chunk by chunk
    too, beside the comparisons that read the same 128 KB again while it is in the cache (they
    read the whole 1.1 MB arrays a second time): ~1.24 -> ~1.09 ms of CPU time, fresh
    processes, median of 24 (json and rfc artifacts) on a busy host.
    """
    n_tokens, n_edges = dims["n_trie_tokens"], dims["n_edges"]
    c.check_below("trie_node_class", c.array("trie_node_class"), dims["n_classes"])
    c.check_below("trie_children", c.array("trie_children"), dims["n_nodes"])
    c.check_below("trie_sorted_tokens", c.array("trie_sorted_tokens"), dims["vocab_size"])
    offsets = c.array("trie_child_offsets")
    if offsets[0] != 0 or offsets[-1] != n_edges:
        raise c.error(f"offsets must rise from 0 to {n_edges}", "trie_child_offsets")
    start, end, subtree_end = (c.array(n) for n in ("trie_token_start", "trie_token_end", "trie_subtree_token_end"))
    if not start.size:
        raise c.error("the trie has no root node", "trie_node_class")
    start_unsigned, subtree_unsigned = _unsigned(start), _unsigned(subtree_end)  # a negative is huge
    lower, upper = offsets[:-1], offsets[1:]
    buffer = np.empty(min(NODE_CHECK_CHUNK, start.size), dtype=bool)
    runs_ordered = offsets_rising = True
    highest = 0
    for lo in range(0, start.size, NODE_CHECK_CHUNK):
        hi = min(lo + NODE_CHECK_CHUNK, start.size)
        out = buffer[: hi - lo]
        highest = max(highest, largest(start_unsigned[lo:hi]), largest(subtree_unsigned[lo:hi]))
        runs_ordered = runs_ordered and not (_ANY(np.greater(start[lo:hi], end[lo:hi], out=out))
                                             or _ANY(np.greater(end[lo:hi], subtree_end[lo:hi], out=out)))
        offsets_rising = offsets_rising and not _ANY(np.less(upper[lo:hi], lower[lo:hi], out=out))
    if highest > n_tokens:
        c.check_below("trie_token_start", start, n_tokens + 1)
        c.check_below("trie_subtree_token_end", subtree_end, n_tokens + 1)
    if not offsets_rising:
        raise c.error(f"offsets must rise from 0 to {n_edges}", "trie_child_offsets")
    if not runs_ordered:
        raise c.error("token runs must satisfy start <= end <= subtree end", "trie_token_end")


SMALL_SECTION_ITEMS = 256  # a section of at most this many items is checked as a Python list


def _bounded_items(c: Container, name: str, limit: int) -> memoryview:
    """A section's items (Python ints, zero-copy), every value in ``[0, limit)`` (``ArtifactError`` else).

    The per-state, per-rule and per-pair sections are small (tens to a few hundred items in the
    bundled grammars): ``min`` and ``max`` over the items cost less there than the numpy
    reductions (~5 us a call, more on a dtype's first call in a process); a larger one goes
    through ``check_below``."""
    items = c.items(name)
    if len(items) > SMALL_SECTION_ITEMS:
        c.check_below(name, c.array(name), limit)
    elif len(items) and (min(items) < 0 or max(items) >= limit):
        raise c.error(f"values must lie in [0, {limit - 1}], found [{min(items)}, {max(items)}]", name)
    return items


def _undecided_set_items(c: Container) -> memoryview | None:
    """Format 5's ``undecided_set`` (each value in ``[0, n_undecided_sets]``) with its offsets
    checked (rising from 0 to the number of places); None before format 5."""
    if "undecided_set" not in c.header.sections:
        return None
    dims = c.header.dims
    _offset_items(c, "undecided_offsets", dims["n_undecided_positions"])
    return _bounded_items(c, "undecided_set", dims["n_undecided_sets"] + 1)


def _offset_items(c: Container, name: str, total: int) -> memoryview:
    """A CSR offsets section's items: starting at 0, never decreasing, ending at ``total``."""
    items = c.items(name)
    if len(items) > SMALL_SECTION_ITEMS:
        _checked_offsets(c, name, total)
    elif items[0] != 0 or items[-1] != total or any(map(operator.gt, items, items[1:])):
        raise c.error(f"offsets must rise from 0 to {total}", name)
    return items


def _check_dots(c: Container, rules: memoryview, dots: memoryview, offsets: memoryview) -> None:
    """Every predicted item's dot in ``[0, length of its rule]`` (the rules and offsets already checked)."""
    if len(dots) > SMALL_SECTION_ITEMS:
        offsets_array, dot, rule = c.array("rule_rhs_offsets"), c.array("prediction_dot"), c.array("prediction_rule")
        inside = _count((dot >= 0) & (dot <= offsets_array[1:][rule] - offsets_array[:-1][rule])) == dot.size
    else:
        inside = all(0 <= d <= offsets[r + 1] - offsets[r] for r, d in zip(rules, dots))
    if not inside:
        raise c.error("a predicted item's dot lies outside its rule", "prediction_dot")


def _unsigned(values: np.ndarray) -> np.ndarray:
    """A signed integer array viewed as unsigned (no copy): one ``max`` then bounds it from both sides."""
    return values.view(values.dtype.str.replace("i", "u"))


def _ints(values: np.ndarray) -> memoryview:
    """A flat memoryview whose items are Python ints (native byte order; a copy only on big-endian hosts)."""
    if not values.dtype.isnative:
        values = values.astype(values.dtype.newbyteorder("="))
    return memoryview(np.ascontiguousarray(values))


def _checked_offsets(c: Container, name: str, total: int) -> np.ndarray:
    """A CSR offsets section: starts at 0, never decreases, ends at ``total``."""
    offsets = c.array(name)
    if offsets[0] != 0 or offsets[-1] != total or _count(np.less(offsets[1:], offsets[:-1])):
        raise c.error(f"offsets must rise from 0 to {total}", name)
    return offsets


def _longest_states(c: Container) -> memoryview | None:
    """Per lexer state, 1 if its terminal is one of the header's ``longest_match_terminals``."""
    terminals = c.header.longest_match
    if terminals is None:
        return None
    flags = np.zeros(c.header.n_terminals, dtype=np.uint8)
    flags[list(terminals)] = 1
    return memoryview(flags[c.array("state_terminal")].tobytes())

"""The grammar artifact's tables, checked once at load and shaped for the live path.

Three groups, each bounded with vectorised checks so that no later lookup can go out of range
(a bad value is an ``ArtifactError`` from ``load``):

- ``LexerTables``: the lexer automaton over byte classes (``next``: -1 where the lexeme dies),
  each state's lexeme-accepting flag and terminal, each terminal's start state, each state's
  in-lexeme mask and boundary masks (by following terminal);
- ``EarleyRules``: rules as Python tuples (grammars have tens to hundreds of rules: tuples
  read faster than arrays in the parser's per-item loop), nullable symbols, prediction
  closures;
- ``TrieArrays``: the token trie's walk arrays, zero-copy (numpy views for the wide levels of
  the walk, memoryviews for its narrow tail), and each token's byte classes (``advance``).

The in-lexeme masks are read by the regex runtime's ``MaskStore`` unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from indexc_runtime.container import Container, largest
from indexc_runtime.errors import ArtifactError


@dataclass(frozen=True)
class LexerTables:
    byte_classes: np.ndarray  # uint8 (256,)
    next: np.ndarray  # int32 (n_states, n_classes): next state, -1 dead
    next_flat: memoryview  # the same, flat (state * n_classes + class), items Python ints
    n_classes: int
    accepting: memoryview  # uint8 per state
    state_terminal: tuple[int, ...]
    terminal_start: tuple[int, ...]
    state_mask: tuple[int, ...]
    pair_offsets: memoryview  # boundary masks of state q: pairs [offsets[q], offsets[q+1])
    pair_terminal: memoryview
    pair_mask: memoryview

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
        n_states, n_terminals = dims["n_lexer_states"], dims["n_terminals"]
        c.check_below("byte_classes", c.array("byte_classes"), dims["n_classes"])
        raw = c.array("class_transitions")
        c.check_below("class_transitions", raw, n_states + 1)
        c.check_below("accepting", c.array("accepting"), 2)
        c.check_below("state_terminal", c.array("state_terminal"), n_terminals)
        c.check_below("terminal_start", c.array("terminal_start"), n_states)
        c.check_below("state_mask", c.array("state_mask"), dims["n_masks"])
        pair_offsets = _checked_offsets(c, "pair_offsets", dims["n_pairs"])
        c.check_below("pair_terminal", c.array("pair_terminal"), n_terminals)
        c.check_below("pair_mask", c.array("pair_mask"), dims["n_masks"])
        nxt = raw.astype(np.int32)  # n_states < 2**31 (the header's bound): one copy, shifted in place
        nxt -= 1
        tables = cls(c.array("byte_classes"), nxt, _ints(nxt.reshape(-1)), dims["n_classes"], _ints(c.array("accepting")),
                     tuple(c.array("state_terminal").tolist()), tuple(c.array("terminal_start").tolist()),
                     tuple(c.array("state_mask").tolist()), _ints(pair_offsets), _ints(c.array("pair_terminal")),
                     _ints(c.array("pair_mask")))
        object.__setattr__(tables, "_pairs", {})
        object.__setattr__(tables, "_live", {})
        object.__setattr__(tables, "_loops", {})
        return tables


@dataclass(frozen=True)
class EarleyRules:
    n_terminals: int
    lhs_symbol: tuple[int, ...]  # symbol id of each rule's left side
    rhs: tuple[tuple[int, ...], ...]
    nullable: tuple[bool, ...]  # by symbol id
    predictions: tuple[tuple[tuple[int, int], ...], ...]  # by nonterminal id: (rule, dot) items
    ignore: frozenset[int]

    @classmethod
    def from_container(cls, c: Container) -> "EarleyRules":
        dims = c.header.dims
        T, N, R = dims["n_terminals"], dims["n_nonterminals"], dims["n_rules"]
        c.check_below("rule_lhs", c.array("rule_lhs"), N)
        offsets = _checked_offsets(c, "rule_rhs_offsets", dims["n_rhs"])
        c.check_below("rule_rhs", c.array("rule_rhs"), T + N)
        c.check_below("symbol_nullable", c.array("symbol_nullable"), 2)
        pred_offsets = _checked_offsets(c, "prediction_offsets", dims["n_predictions"])
        pred_rule, pred_dot = c.array("prediction_rule"), c.array("prediction_dot")
        c.check_below("prediction_rule", pred_rule, R)
        lengths = offsets[1:] - offsets[:-1]
        if pred_dot.size and ((pred_dot < 0) | (pred_dot > lengths[pred_rule])).any():
            raise c.error("a predicted item's dot lies outside its rule", "prediction_dot")
        c.check_below("ignore_terminals", c.array("ignore_terminals"), T)
        rhs_all = c.array("rule_rhs").tolist()
        bounds = offsets.tolist()
        rhs = tuple(tuple(rhs_all[bounds[r]:bounds[r + 1]]) for r in range(R))
        items = list(zip(pred_rule.tolist(), pred_dot.tolist()))
        p = pred_offsets.tolist()
        predictions = tuple(tuple(items[p[x]:p[x + 1]]) for x in range(N))
        return cls(T, tuple(T + a for a in c.array("rule_lhs").tolist()), rhs,
                   tuple(bool(v) for v in c.array("symbol_nullable").tolist()), predictions,
                   frozenset(c.array("ignore_terminals").tolist()))


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
    py: dict  # name -> memoryview of the arrays above (node_class, child_offsets, children, token_start, subtree_token_end)

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
              "token_start": _ints(start), "subtree_token_end": _ints(subtree_end)}
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

    def check_all(self) -> None:
        """The bounds and the order of every offset (``verify``)."""
        self._check_bounds()
        offsets = self._container.array("token_class_offsets")
        if (offsets[1:] < offsets[:-1]).any():
            raise self._unordered()

    def _check_bounds(self) -> None:
        c = self._container
        offsets, data = c.array("token_class_offsets"), c.array("token_class_data")
        if offsets[0] != 0 or offsets[-1] != data.size or largest(_unsigned(offsets)) > data.size:
            raise self._unordered()
        c.check_below("token_class_data", data, c.header.dims["n_classes"])
        self._data = c.items("token_class_data")
        self._offsets = c.items("token_class_offsets")

    def _unordered(self) -> ArtifactError:
        return self._container.error(f"offsets must rise from 0 to {self._container.header.dims['n_class_bytes']}",
                                     "token_class_offsets")


NODE_CHECK_CHUNK = 1 << 15  # nodes per step of the fused run check: its comparisons stay in a 32 KB buffer


def _check_node_arrays(c: Container, dims: dict[str, int]) -> None:
    """Every index the walk reads from the trie, bounded; the CSR offsets and token runs ordered.

    Node classes below ``n_classes``, children below ``n_nodes``, sorted tokens below the
    vocabulary: one ``max`` each.  The child offsets rise from 0 to the edge count; the token
    runs satisfy ``0 <= start <= end <= subtree end <= n_trie_tokens`` (``end`` is bounded by
    the two others, so it needs no ``max`` of its own).  Those comparisons go through the node
    arrays in chunks of ``NODE_CHECK_CHUNK`` into one small buffer, with the two maxes of the
    same chunk: whole-array comparisons made four 274k-element temporaries (fresh memory, page
    faults included) and read each array twice from memory.  Fresh process, Llama-3 trie,
    median of 21: the checks of ``from_container`` 2.9 -> ~1.2 ms (most of the rest is reading
    the 5.5 MB of node arrays once).
    """
    n_tokens, n_edges = dims["n_trie_tokens"], dims["n_edges"]
    c.check_below("trie_node_class", c.array("trie_node_class"), dims["n_classes"])
    c.check_below("trie_children", c.array("trie_children"), dims["n_nodes"])
    c.check_below("trie_sorted_tokens", c.array("trie_sorted_tokens"), dims["vocab_size"])
    offsets = c.array("trie_child_offsets")
    if offsets[0] != 0 or offsets[-1] != n_edges:
        raise c.error(f"offsets must rise from 0 to {n_edges}", "trie_child_offsets")
    start, end, subtree_end = (c.array(n) for n in ("trie_token_start", "trie_token_end", "trie_subtree_token_end"))
    start_bits, subtree_bits = _unsigned(start), _unsigned(subtree_end)  # a negative value is huge
    lower, upper = offsets[:-1], offsets[1:]
    buffer = np.empty(min(NODE_CHECK_CHUNK, start.size), dtype=bool)
    highest = 0
    runs_ordered = offsets_rising = True
    for lo in range(0, start.size, NODE_CHECK_CHUNK):
        hi = min(lo + NODE_CHECK_CHUNK, start.size)
        out = buffer[: hi - lo]
        highest = max(highest, largest(start_bits[lo:hi]), largest(subtree_bits[lo:hi]))
        runs_ordered = runs_ordered and not np.greater(start[lo:hi], end[lo:hi], out=out).any() \
            and not np.greater(end[lo:hi], subtree_end[lo:hi], out=out).any()
        offsets_rising = offsets_rising and not np.less(upper[lo:hi], lower[lo:hi], out=out).any()
    if highest > n_tokens:
        c.check_below("trie_token_start", start, n_tokens + 1)
        c.check_below("trie_subtree_token_end", subtree_end, n_tokens + 1)
    if not offsets_rising:
        raise c.error(f"offsets must rise from 0 to {n_edges}", "trie_child_offsets")
    if not runs_ordered:
        raise c.error("token runs must satisfy start <= end <= subtree end", "trie_token_end")


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
    if offsets[0] != 0 or offsets[-1] != total or (offsets[1:] < offsets[:-1]).any():
        raise c.error(f"offsets must rise from 0 to {total}", name)
    return offsets

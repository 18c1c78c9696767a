"""``oneOf`` as ``anyOf``, only where no value can match two branches.

``oneOf`` means "exactly one", which a regex cannot say in general; it equals ``anyOf`` when
the branches are disjoint.  Two proofs, cheapest first:

1. first bytes: a JSON value's first byte tells its type (``{ [ " - 0-9 t f n``), so branches
   whose possible first bytes do not meet are disjoint (``oneOf: [{type: string}, {type:
   integer}]``);
2. automata: when both branches are regular and small (``MAX_BRANCH_STATES``), their DFAs are
   built and their product is searched, a numpy step per breadth-first frontier, for a common
   accepted text (none: disjoint).  This proves discriminated unions
   such as ``{"kind": {"const": "a"}}`` versus ``{"kind": {"const": "b"}}`` with
   ``additionalProperties: false``.

Anything else is refused with the pointer (``--lenient`` or ``x-guidance.coerce_one_of``
accepts it as ``anyOf``, which can accept a value that matches two branches).
"""

from __future__ import annotations

import numpy as np

from indexc.automaton import compile_regex
from indexc.automaton.byte_dfa import DEAD, ByteDFA
from indexc.errors import IndexcError
from indexc.jsonschema.expr import Alt, Expr, Lex, NotRegular, Ref, Repeat, Seq, Ws
from indexc.jsonschema.to_automaton import expr_to_dfa

MAX_BRANCH_STATES = 2_000
MAX_PRODUCT_PAIRS = 1_000_000


def check_disjoint(lw, branches: list[Expr], pointer: str) -> None:
    firsts = [first_bytes(lw, b) for b in branches]
    dfas: dict[int, ByteDFA | None] = {}
    for i in range(len(branches)):
        for j in range(i + 1, len(branches)):
            if not (firsts[i] & firsts[j]):
                continue
            a, b = _dfa(lw, branches, i, dfas), _dfa(lw, branches, j, dfas)
            if a is None or b is None:
                lw.unsupported(f"oneOf branches {i} and {j} may overlap (not provably disjoint)", pointer, "oneOf")
                return
            if intersects(a, b):
                lw.unsupported(f"oneOf branches {i} and {j} overlap (a value can match both)", pointer, "oneOf")
                return


def _dfa(lw, branches: list[Expr], i: int, cache: dict) -> ByteDFA | None:
    if i not in cache:
        from indexc.jsonschema.lowering import LoweredSchema

        lowered = LoweredSchema(branches[i], lw.definitions, lw.options)
        try:
            cache[i], _ = expr_to_dfa(lowered, max_states=MAX_BRANCH_STATES)
        except (NotRegular, IndexcError):
            cache[i] = None
    return cache[i]


def intersects(a: ByteDFA, b: ByteDFA) -> bool:
    """Is there a text both DFAs accept?  Breadth-first over reachable state pairs, one numpy
    step per frontier; more than ``MAX_PRODUCT_PAIRS`` pairs counts as "may overlap"."""
    width = np.int64(b.n_states)
    seen = np.zeros(0, dtype=np.int64)
    frontier = np.zeros(1, dtype=np.int64)  # pair (s, t) encoded as s * width + t
    while frontier.size:
        s, t = frontier // width, frontier % width
        if np.any(a.accepting[s] & b.accepting[t]):
            return True
        seen = np.union1d(seen, frontier)
        if seen.size > MAX_PRODUCT_PAIRS:
            return True
        next_a, next_b = a.transitions[s], b.transitions[t]  # (k, 256)
        live = (next_a != DEAD) & (next_b != DEAD)
        pairs = np.unique(next_a[live].astype(np.int64) * width + next_b[live])
        frontier = np.setdiff1d(pairs, seen, assume_unique=True)
    return False


def first_bytes(lw, expr: Expr, visiting: frozenset[str] = frozenset()) -> frozenset[int]:
    """Bytes a text of ``expr`` can start with (over-approximated; values never start empty)."""
    if isinstance(expr, Lex):
        return _lex_first_bytes(expr.regex)
    if isinstance(expr, Alt):
        return frozenset().union(*(first_bytes(lw, o, visiting) for o in expr.options))
    if isinstance(expr, Seq):
        out: frozenset[int] = frozenset()
        for item in expr.items:
            if isinstance(item, Ws):
                continue
            out |= first_bytes(lw, item, visiting)
            if not (isinstance(item, Repeat) and item.min == 0):
                break
        return out
    if isinstance(expr, Repeat):
        return first_bytes(lw, expr.item, visiting)
    if isinstance(expr, Ref):
        if expr.name in visiting or expr.name not in lw.definitions:
            return frozenset(range(256))
        return first_bytes(lw, lw.definitions[expr.name], visiting | {expr.name})
    return frozenset(range(256))


_FIRST_CACHE: dict[str, frozenset[int]] = {}


def _lex_first_bytes(regex: str) -> frozenset[int]:
    if regex not in _FIRST_CACHE:
        try:
            dfa = compile_regex(regex, max_states=MAX_BRANCH_STATES)
            _FIRST_CACHE[regex] = frozenset(np.flatnonzero(dfa.transitions[0] != DEAD).tolist())
        except IndexcError:
            _FIRST_CACHE[regex] = frozenset(range(256))
    return _FIRST_CACHE[regex]

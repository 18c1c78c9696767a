"""Arrays: ``prefixItems`` position by position, then ``items`` repeated, within min/maxItems.

Positions are contiguous (an array cannot skip its second element), so the prefix is a
nested chain ``p1 (, p2 (, p3 ...)?)?`` whose links are required up to ``minItems``; the
remaining count of ``items`` is ``max(0, minItems - k) .. maxItems - k``.  A bounded count
repeats the item's automaton that many times, which is where DFAs grow: ``maxItems: 100``
of a 20-state item is a 2,000-state DFA; the router sends what exceeds the state limit to
the grammar path.
"""

from __future__ import annotations

from indexc.jsonschema.errors import child_pointer
from indexc.jsonschema.expr import EMPTY_SET, EPSILON, Expr, Ws, is_empty_set, optional, repeat, seq
from indexc.jsonschema.keywords import count_keyword
from indexc.jsonschema.punctuation import CLOSE_ARRAY, OPEN_ARRAY, bracketed


def lower_array(lw, schema: dict, pointer: str) -> Expr:
    prefix_nodes = schema.get("prefixItems", [])
    if not isinstance(prefix_nodes, list):
        raise lw.error("prefixItems must be an array", child_pointer(pointer, "prefixItems"))
    low = count_keyword(lw, schema, "minItems", pointer) or 0
    high = count_keyword(lw, schema, "maxItems", pointer)
    if high is not None and high < low:
        return EMPTY_SET
    if high is not None:
        prefix_nodes = prefix_nodes[:high]
    prefix = [lw.lower(p, child_pointer(pointer, "prefixItems", i)) for i, p in enumerate(prefix_nodes)]
    item = lw.lower(schema.get("items", True), child_pointer(pointer, "items"))
    k = len(prefix)
    rest_low, rest_high = max(0, low - k), None if high is None else high - k
    if is_empty_set(item):
        if rest_low > 0:
            return EMPTY_SET
        rest_high = 0
    body = _chain(prefix, item, lw.item_sep, max(low, 1), rest_low, rest_high)
    if is_empty_set(body):
        return seq(OPEN_ARRAY, Ws(), CLOSE_ARRAY) if low == 0 else EMPTY_SET
    return bracketed(OPEN_ARRAY, body, low == 0, CLOSE_ARRAY)


def _chain(prefix: list[Expr], item: Expr, sep: Expr, low: int, rest_low: int, rest_high: int | None) -> Expr:
    """The non-empty element sequence: at least ``low`` (>= 1) elements."""
    rest_after = repeat(seq(sep, item), rest_low, rest_high)
    if rest_high == 0:
        rest_after = EPSILON
    if not prefix:
        if rest_high == 0:
            return EMPTY_SET
        return seq(item, repeat(seq(sep, item), max(rest_low, 1) - 1, None if rest_high is None else rest_high - 1))
    tail = rest_after
    for i in range(len(prefix) - 1, 0, -1):
        link = seq(sep, prefix[i], tail)
        tail = link if i < low else optional(link)
    return seq(prefix[0], tail)

"""Structure parsing: the normaliser's tokens -> regex tree.

``normalize`` leaves only structure (``(``, ``)``, ``|``, quantifiers) around character-set
indices and has already reported every syntax error with its position, so parsing is one
pass with an explicit stack of open groups (no recursion: the depth is bounded by
``normalize.MAX_GROUP_DEPTH`` for the tree's recursive consumers, not by this parser).

The tree is the one the structure implies, with no other simplification: a group or the
whole pattern is its ``Alternation`` when it has several alternatives, else its only
alternative; an alternative is a ``Concat`` of its items unless it has exactly one (the empty
alternative is ``EMPTY``); a quantifier wraps the item before it in ``Repeat``.  Groups are
not flattened into the enclosing concatenation (``a(bc)d`` is ``Concat(a, Concat(b, c), d)``).

This is the tree the interegular-based parser built before (checked on 70,000 random
patterns and the benchmark regexes), so NFA sizes, limits and DFAs are unchanged.  It replaced
interegular's parser, which read a placeholder text made for it: 0.8-1.2 ms for the ``date``
regex (recursive descent with exceptions for control flow), against ~50 us here.  At scale
(a Kubernetes schema's 403 leaf regexes, 144k tokens) it is ~1 us a token, dataclass
construction mostly, plus as much again in Python's cyclic GC passes over the new nodes.
"""

from __future__ import annotations

from collections.abc import Sequence

from indexc.automaton.normalize import NormalizedPattern
from indexc.automaton.regex_tree import Alternation, Chars, Concat, Node, Repeat
from indexc.errors import RegexError


def parse_structure(normalized: NormalizedPattern, *, source: str = "<regex>",
                    set_indices: Sequence[int] | None = None) -> Node:
    """The syntax tree of ``normalized``; a malformed token list (a normaliser bug) is a ``RegexError``.

    ``set_indices`` renumbers the character sets as the tree is built (``Chars`` of token ``k``
    gets ``set_indices[k]``): the JSON Schema builder keeps one set table for all its leaf
    regexes, and a second walk to renumber a 130k-node forest cost as much as parsing it."""
    renumber = set_indices if set_indices is not None else range(len(normalized.char_sets))
    open_groups: list[tuple[list[Node], list[Node]]] = []  # the enclosing (alternatives, items)
    alternatives: list[Node] = []  # finished alternatives of the innermost open group
    items: list[Node] = []  # items of its current alternative
    lazy = normalized.lazy
    for place, token in enumerate(normalized.tokens):
        if type(token) is int:
            items.append(Chars(renumber[token]))
        elif type(token) is tuple:
            if not items:
                raise _malformed("a quantifier with nothing to repeat", source)
            items[-1] = Repeat(items[-1], token[0], token[1], bool(lazy) and place in lazy)
        elif token == "|":
            alternatives.append(_alternative(items))
            items = []
        elif token == "(":
            open_groups.append((alternatives, items))
            alternatives, items = [], []
        elif token == ")" and open_groups:
            group = _group(alternatives, items)
            alternatives, items = open_groups.pop()
            items.append(group)
        else:
            raise _malformed(f"unexpected token {token!r}", source)
    if open_groups:
        raise _malformed("an unclosed group", source)
    return _group(alternatives, items)


def _alternative(items: list[Node]) -> Node:
    return items[0] if len(items) == 1 else Concat(tuple(items))


def _group(alternatives: list[Node], items: list[Node]) -> Node:
    if not alternatives:
        return _alternative(items)
    return Alternation((*alternatives, _alternative(items)))


def _malformed(what: str, source: str) -> RegexError:
    return RegexError(f"cannot parse the regex structure ({what}: a bug of the normaliser)", source=source)

"""Structure parsing with interegular: normalised pattern -> regex tree.

interegular's ``parse_pattern`` reads the structure (alternatives, groups, repetitions) of the
placeholder-only text that ``normalize`` produces; its pattern objects are then converted to
``regex_tree`` nodes, so nothing downstream depends on interegular's (private) classes.  The
normaliser has already rejected every construct interegular would mis-handle, so an
interegular error here means a normaliser bug; it is still reported as a ``RegexError`` at
the corresponding position of the user's pattern.

interegular recurses several frames deep per group, so with Python's default recursion limit
a pattern can nest at most 122 groups (``re`` itself allows more); deeper nesting is reported
as a ``RegexError`` ("the regex nests too deeply") rather than raising the interpreter's
limit, which risks overflowing the C stack.
"""

from __future__ import annotations

from interegular import patterns as ig

from indexc.automaton.normalize import NormalizedPattern, placeholder_index
from indexc.automaton.regex_tree import EMPTY, Alternation, Chars, Concat, Node, Repeat
from indexc.errors import RegexError


def parse_structure(normalized: NormalizedPattern, *, source: str = "<regex>") -> Node:
    try:
        return _convert(ig.parse_pattern(normalized.text))
    except RecursionError:
        raise RegexError("the regex nests too deeply", source=source) from None
    except (ig.InvalidSyntax, ig.Unsupported) as error:
        position = _error_position(error, normalized)
        message = f"cannot parse the regex structure ({error})"
        raise RegexError(message, source=source, position=position) from None


def _error_position(error: Exception, normalized: NormalizedPattern) -> int | None:
    index = getattr(error.__context__, "index", None)
    if index is None or not normalized.positions:
        return None
    return normalized.positions[min(index, len(normalized.positions) - 1)]


def _convert(node: object) -> Node:
    if isinstance(node, ig.Pattern):
        if node.added_flags or node.removed_flags:
            raise ig.Unsupported("flags reached interegular")
        options = tuple(_convert(o) for o in node.options)
        return options[0] if len(options) == 1 else Alternation(options)
    if isinstance(node, ig._Concatenation):
        parts = tuple(_convert(p) for p in node.parts)
        return parts[0] if len(parts) == 1 else Concat(parts)
    if isinstance(node, ig._Repeated):
        return Repeat(_convert(node.base), node.min, node.max)
    if isinstance(node, ig._CharGroup) and len(node.chars) == 1 and not node.negated:
        return Chars(placeholder_index(next(iter(node.chars))))
    if node is ig._EMPTY:
        return EMPTY
    raise ig.Unsupported(f"unexpected interegular node {type(node).__name__}")

"""The lowered form of a schema: a small expression tree that renders as a regex or as grammar rules.

A schema is lowered once, into this tree, and then *rendered* for the path the router picks:
``to_regex`` for the DFA path (every ``Ref`` inlined, so a cycle means "not regular") and
``indexc.jsonschema.grammar`` for the grammar path (every ``Ref`` a nonterminal).  Keeping
one lowering for both paths means the two paths accept the same language by construction,
apart from the documented depth bound on "any JSON value" in the DFA path.

Node kinds:

- ``Lex(regex)``: a regex fragment in indexc's dialect that stays inside one lexeme (a JSON
  string, a number, a punctuation mark).  On the grammar path adjacent ``Lex`` nodes are
  glued into one terminal.
- ``Intersection(regexes)``: one lexeme in the intersection of several regexes (no regex
  text: the DFA path and the grammar path build it on automata, ``intersection``).
- ``Ws()``: the place where the whitespace policy applies (rendered by the policy).
- ``Seq``, ``Alt``, ``Repeat(min, max)``: concatenation, alternation, bounded repetition.
- ``Ref(name)``: a named definition (a ``$ref`` target, or the built-in "any JSON value").

``EMPTY_SET`` (an ``Alt`` of nothing) is the language with no string; the smart
constructors ``seq``/``alt``/``repeat`` propagate it, so a required property whose schema is
``false`` makes its whole object impossible instead of producing a broken regex.
"""

from __future__ import annotations

from collections.abc import Iterator

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Lex:
    regex: str


@dataclass(frozen=True)
class Intersection:
    """One lexeme whose text every regex matches (a pattern and a length bound, a format and a
    pattern) and no ``excluded`` regex matches (a key outside the ``patternProperties``): the
    regex dialect cannot write it, so each path builds it on automata (``intersection``)."""

    regexes: tuple[str, ...]
    excluded: tuple[str, ...] = ()


@dataclass(frozen=True)
class Ws:
    pass


@dataclass(frozen=True)
class Seq:
    items: tuple[Expr, ...]


@dataclass(frozen=True)
class Alt:
    options: tuple[Expr, ...]


@dataclass(frozen=True)
class Repeat:
    item: Expr
    min: int
    max: int | None  # None: unbounded


@dataclass(frozen=True)
class Ref:
    name: str


Expr = Lex | Intersection | Ws | Seq | Alt | Repeat | Ref

EPSILON = Seq(())
EMPTY_SET = Alt(())


def is_empty_set(expr: Expr) -> bool:
    return expr == EMPTY_SET


def lex(regex: str) -> Expr:
    return EPSILON if regex == "" else Lex(regex)


def seq(*items: Expr) -> Expr:
    """Concatenation, flattened; any empty-set item makes the whole empty."""
    flat: list[Expr] = []
    for item in items:
        if is_empty_set(item):
            return EMPTY_SET
        if isinstance(item, Seq):
            flat.extend(item.items)
        else:
            flat.append(item)
    return flat[0] if len(flat) == 1 else Seq(tuple(flat))


def alt(*options: Expr) -> Expr:
    """Alternation, flattened; empty sets dropped; duplicates dropped by identity (and by
    text for ``Lex``), since deep equality of big subtrees is quadratic to test."""
    flat: list[Expr] = []
    seen_ids: set[int] = set()
    seen_lex: set[str] = set()
    for option in options:
        members = option.options if isinstance(option, Alt) else (option,)
        for member in members:
            if isinstance(member, Lex):
                if member.regex in seen_lex:
                    continue
                seen_lex.add(member.regex)
            elif id(member) in seen_ids or (member == EPSILON and EPSILON in flat):
                continue
            seen_ids.add(id(member))
            flat.append(member)
    return flat[0] if len(flat) == 1 else Alt(tuple(flat))


def optional(item: Expr) -> Expr:
    return repeat(item, 0, 1)


def repeat(item: Expr, min_count: int, max_count: int | None) -> Expr:
    if max_count is not None and max_count < min_count:
        return EMPTY_SET
    if is_empty_set(item):
        return EPSILON if min_count == 0 else EMPTY_SET
    if max_count == 0 or item == EPSILON:
        return EPSILON
    if min_count == max_count == 1:
        return item
    return Repeat(item, min_count, max_count)


class NotRegular(Exception):
    """Rendering as a regex met a ``Ref`` cycle (or the depth bound said stop)."""

    def __init__(self, name: str):
        super().__init__(name)
        self.name = name


@dataclass
class RegexRenderer:
    """Expr -> regex text, inlining ``Ref`` definitions.

    ``definitions`` maps names to expressions; ``bounded`` maps the names that may recur (the
    "any JSON value") to the form rendered once ``depth_bound`` copies are open (scalars and
    empty containers only); any other cycle raises ``NotRegular``.  ``whitespace`` is the
    regex that ``Ws`` renders as.
    """

    definitions: dict[str, Expr]
    whitespace: str
    bounded: dict[str, Expr] = field(default_factory=dict)
    depth_bound: int = 0
    max_chars: int = 4_000_000

    def render(self, expr: Expr) -> str:
        self._chars = 0
        self.seen: set[str] = set()
        return self._render(expr, ())

    def _render(self, expr: Expr, stack: tuple[str, ...]) -> str:
        return self._node(expr, stack)

    def _node(self, expr: Expr, stack: tuple[str, ...]) -> str:
        if isinstance(expr, Lex):
            self._chars += len(expr.regex)  # leaves only: the output is about their total
            if self._chars > self.max_chars:
                raise RegexTooLarge(self._chars)
            return expr.regex
        if isinstance(expr, Ws):
            return self.whitespace
        if isinstance(expr, Intersection):
            raise NoRegexText("an intersection of string constraints (pattern, format, length)")
        if isinstance(expr, Seq):
            return "".join(_group_for_seq(item, self._render(item, stack)) for item in expr.items)
        if isinstance(expr, Alt):
            if not expr.options:
                return "[^\\x00-\\U0010FFFF]"  # the empty set (never reached by a lowered schema)
            return "|".join(self._render(option, stack) for option in expr.options)
        if isinstance(expr, Repeat):
            return quantified(self._render(expr.item, stack), expr.min, expr.max)
        return self._ref(expr, stack)

    def _ref(self, ref: Ref, stack: tuple[str, ...]) -> str:
        self.seen.add(ref.name)
        depth = stack.count(ref.name)
        if depth and ref.name not in self.bounded:
            raise NotRegular(ref.name)
        if ref.name in self.bounded and depth >= self.depth_bound:
            return self._render(self.bounded[ref.name], stack)
        return self._render(self.definitions[ref.name], stack + (ref.name,))


class NoRegexText(Exception):
    """The expression has no regex text in indexc's dialect (the message says what)."""


class RegexTooLarge(Exception):
    def __init__(self, chars: int):
        super().__init__(chars)
        self.chars = chars


def _group_for_seq(item: Expr, text: str) -> str:
    return f"(?:{text})" if has_top_level_bar(text) else text


def quantified(text: str, min_count: int, max_count: int | None) -> str:
    if not _is_single_atom(text):
        text = f"(?:{text})"
    if (min_count, max_count) == (0, None):
        return text + "*"
    if (min_count, max_count) == (1, None):
        return text + "+"
    if (min_count, max_count) == (0, 1):
        return text + "?"
    if max_count is None:
        return f"{text}{{{min_count},}}"
    if min_count == max_count:
        return f"{text}{{{min_count}}}"
    return f"{text}{{{min_count},{max_count}}}"


def _is_single_atom(text: str) -> bool:
    """True for one character, one escape or one bracketed class (safe to quantify as is)."""
    if len(text) == 1:
        return text not in "()|*+?{}[]\\.^$"
    if text.startswith("\\"):
        return len(text) == 2 and text[1] not in "xuUN0123456789"
    if text.startswith("[") and text.endswith("]"):
        return _class_end(text, 0) == len(text) - 1
    return False


def _class_end(text: str, start: int) -> int:
    """Index of the ``]`` closing the class opened at ``start``."""
    i = start + 1
    if text.startswith("^", i):
        i += 1
    if text.startswith("]", i):
        i += 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == "]":
            return i
        i += 1
    return len(text)


def group_structure(text: str) -> Iterator[tuple[int, str, int]]:
    """(index, character, depth after it) of every ``(``, ``)`` and ``|`` of a regex that is
    outside character classes and not escaped: the one scanner of a regex's group structure."""
    depth, i = 0, 0
    while i < len(text):
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == "[":
            i = _class_end(text, i) + 1
            continue
        if c in "()|":
            depth += (c == "(") - (c == ")")
            yield i, c, depth
        i += 1


def has_top_level_bar(text: str) -> bool:
    """Does ``text`` have a ``|`` outside every group and class (so it needs a group in a sequence)?"""
    return any(c == "|" and depth == 0 for _, c, depth in group_structure(text))


def referenced_names(expr: Expr) -> list[str]:
    """The names of the ``Ref`` nodes inside ``expr``."""
    names, stack = [], [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, Ref):
            names.append(node.name)
        elif isinstance(node, Seq):
            stack.extend(node.items)
        elif isinstance(node, Alt):
            stack.extend(node.options)
        elif isinstance(node, Repeat):
            stack.append(node.item)
    return names

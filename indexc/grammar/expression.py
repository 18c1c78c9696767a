"""The right-hand sides both front ends parse into, before they are lowered to BNF.

Lark and GBNF write the same things — sequences, alternatives, repetitions, references and
inline lexemes (string literals, ``/regex/``, character classes) — so both parse into this one
small tree, and one lowering (``lowering``) and one regex printer (``regex_text``) serve both.

- ``Lexeme`` is a terminal written in place, already as a regex in indexc's dialect (a
  literal is its escaped text); ``display`` is how the grammar wrote it, used to name the
  terminal in the IR so a reader recognises ``"{"`` or ``/[0-9]+/``.
- ``Ref`` names a rule or a named terminal; its ``offset`` (character offset in the grammar
  text) is kept for "undefined symbol" errors.
- ``Seq``, ``Alt`` and ``Repeat(min, max)`` (``max=None``: unbounded) are the operators;
  ``?`` is ``Repeat(0, 1)``.

Offsets never take part in equality, so equal sub-expressions (the same group written in many
rules, as in ``rfc.lark``) are recognised and lowered once.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Lexeme:
    regex: str
    display: str
    is_literal: bool = False
    offset: int = field(default=-1, compare=False)


@dataclass(frozen=True)
class Ref:
    name: str
    offset: int = field(default=-1, compare=False)


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


Expr = Lexeme | Ref | Seq | Alt | Repeat

EMPTY = Seq(())


@dataclass(frozen=True)
class Definition:
    """One ``name: body`` of a grammar text (a rule, or in Lark also a named terminal)."""

    name: str
    body: Expr
    offset: int
    is_terminal: bool = False


def sequence(items: Iterable[Expr]) -> Expr:
    """A flat ``Seq`` (nested sequences spliced in); a single item stands for itself."""
    flat: list[Expr] = []
    for item in items:
        flat.extend(item.items if isinstance(item, Seq) else (item,))
    return flat[0] if len(flat) == 1 else Seq(tuple(flat))


def alternation(options: Iterable[Expr]) -> Expr:
    """A flat ``Alt`` without repeated options; a single option stands for itself."""
    flat: list[Expr] = []
    for option in options:
        for inner in option.options if isinstance(option, Alt) else (option,):
            if inner not in flat:
                flat.append(inner)
    return flat[0] if len(flat) == 1 else Alt(tuple(flat))


def alternatives(expr: Expr) -> tuple[Expr, ...]:
    """The top-level options of ``expr`` (one rule each when lowered)."""
    return expr.options if isinstance(expr, Alt) else (expr,)


def references(expr: Expr) -> Iterator[Ref]:
    """Every ``Ref`` in ``expr``, in textual order."""
    if isinstance(expr, Ref):
        yield expr
    else:
        for child in _children(expr):
            yield from references(child)


def lexemes(expr: Expr) -> Iterator[Lexeme]:
    """Every inline ``Lexeme`` in ``expr``, in textual order."""
    if isinstance(expr, Lexeme):
        yield expr
    else:
        for child in _children(expr):
            yield from lexemes(child)


def _children(expr: Expr) -> tuple[Expr, ...]:
    if isinstance(expr, Seq):
        return expr.items
    if isinstance(expr, Alt):
        return expr.options
    if isinstance(expr, Repeat):
        return (expr.item,)
    return ()


def first_offset(expr: Expr) -> int:
    """The offset of the first located node of ``expr`` (-1 if none is located)."""
    if isinstance(expr, (Lexeme, Ref)):
        return expr.offset
    for child in _children(expr):
        offset = first_offset(child)
        if offset >= 0:
            return offset
    return -1


def display(expr: Expr) -> str:
    """``expr`` written back in grammar notation (used to name folded terminals)."""
    if isinstance(expr, Lexeme):
        return expr.display
    if isinstance(expr, Ref):
        return expr.name
    if isinstance(expr, Seq):
        return " ".join(_operand_display(item) for item in expr.items) if expr.items else '""'
    if isinstance(expr, Alt):
        return " | ".join(display(option) for option in expr.options)
    return _operand_display(expr.item) + quantifier_text(expr.min, expr.max)


def _operand_display(expr: Expr) -> str:
    text = display(expr)
    return f"({text})" if isinstance(expr, Alt) or (isinstance(expr, Seq) and len(expr.items) > 1) else text


def quantifier_text(low: int, high: int | None) -> str:
    """``*``, ``+``, ``?`` or ``{m}``/``{m,}``/``{m,n}``: the same text in Lark, GBNF and regexes."""
    if (low, high) == (0, None):
        return "*"
    if (low, high) == (1, None):
        return "+"
    if (low, high) == (0, 1):
        return "?"
    if high is None:
        return f"{{{low},}}"
    return f"{{{low}}}" if low == high else f"{{{low},{high}}}"

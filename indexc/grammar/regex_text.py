"""Writing regexes in indexc's dialect: literals, character classes, and whole expressions.

A terminal in the IR is a regex string that ``indexc.automaton.compile_regex`` reads (Python
``re`` syntax, whole-string match, Unicode).  The front ends never hand it raw user text:

- ``literal_regex`` escapes every character that is not an ASCII letter or digit, so any
  literal (quotes, brackets, control characters, non-ASCII) means itself;
- ``class_regex`` writes ``[...]`` / ``[^...]`` from code-point ranges, escaping every member;
- ``expression_regex`` prints a whole ``expression`` tree (a Lark terminal definition, a
  regular GBNF rule) as one regex, asking ``resolve`` for the regex of each ``Ref``.
  Operands are wrapped in ``(?:...)`` unless they are obviously one atom, so precedence never
  changes the language.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from indexc.grammar.expression import Alt, Expr, Lexeme, Ref, Repeat, Seq, quantifier_text

_PLAIN = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_PUNCTUATION = frozenset(" !\"#$%&'()*+,-./:;<=>?@[\\]^`{|}~")
# A single regex atom: an escaped or plain character, or a bracket class without inner brackets.
_ATOM = re.compile(r"\\x[0-9a-f]{2}|\\u[0-9a-f]{4}|\\U[0-9a-f]{8}|\\.|[^\\\[\]()|*+?{}]|\[\^?(?:[^\\\]\[]|\\.)+\]")


def regex_char(code_point: int) -> str:
    """One code point as a regex atom that means exactly that character (also inside ``[]``)."""
    char = chr(code_point)
    if char in _PLAIN:
        return char
    if char in _PUNCTUATION:
        return "\\" + char
    if code_point < 0x100:
        return f"\\x{code_point:02x}"
    if code_point < 0x10000:
        return f"\\u{code_point:04x}"
    return f"\\U{code_point:08x}"


def literal_regex(text: str) -> str:
    """The regex matching exactly ``text``."""
    return "".join(regex_char(ord(char)) for char in text)


def class_regex(ranges: list[tuple[int, int]], negated: bool = False) -> str:
    """``[...]`` (or ``[^...]``) over inclusive code-point ranges."""
    members = "".join(
        regex_char(low) if low == high else f"{regex_char(low)}-{regex_char(high)}" for low, high in ranges
    )
    return f"[{'^' if negated else ''}{members}]"


def group(regex: str) -> str:
    """``regex`` as one operand: unchanged when it is a single atom, else ``(?:regex)``."""
    if _ATOM.fullmatch(regex):
        return regex
    return f"(?:{regex})"


def expression_regex(expr: Expr, resolve: Callable[[Ref], str]) -> str:
    """One regex for the language of ``expr``; ``resolve(ref)`` gives a reference's regex."""
    if isinstance(expr, Lexeme):
        return expr.regex
    if isinstance(expr, Ref):
        return resolve(expr)
    if isinstance(expr, Seq):
        parts = [expression_regex(item, resolve) for item in expr.items]
        return "".join(part if _is_concatenable(item, part) else group(part) for item, part in zip(expr.items, parts))
    if isinstance(expr, Alt):
        return "|".join(expression_regex(option, resolve) for option in expr.options)
    return group(expression_regex(expr.item, resolve)) + quantifier_text(expr.min, expr.max)


def _is_concatenable(item: Expr, regex: str) -> bool:
    """Can ``regex`` be concatenated without a group?  Literals and nested sequences can."""
    if isinstance(item, Lexeme) and item.is_literal:
        return True
    if isinstance(item, (Seq, Repeat)):
        return True
    return bool(_ATOM.fullmatch(regex))


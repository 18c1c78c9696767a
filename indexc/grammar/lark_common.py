"""``%import common.X``: Lark's usual common terminals, written here as indexc regexes.

Each entry is the *language Lark's lexer actually produces* for the terminal, which for two of
them differs from the full-match language of Lark's own regex:

- ``ESCAPED_STRING`` is ``"`` ... ``"`` where a backslash escapes the next character and the
  body has no unescaped quote and no newline.  Lark writes it as a lazy ``".*?"`` followed by an
  even number of backslashes; a lexer that stops at the shortest match never produces
  ``"a"b"``, although the regex full-matches it.
- ``C_COMMENT`` is ``/*`` ... ``*/`` with no ``*/`` inside (Lark: lazy ``/\\*(.|\\n)*?\\*/``).

``.`` in Lark's regexes excludes ``\\n``; so does indexc's.  ``\\d``-style classes are avoided so
the terminals are ASCII as in Lark (``[0-9]``, not Unicode digits).
"""

from __future__ import annotations

_INT = r"[0-9]+"
_DECIMAL = r"[0-9]+\.[0-9]*|\.[0-9]+"
_EXPONENT = r"[eE][+\-]?[0-9]+"
_FLOAT = rf"[0-9]+{_EXPONENT}|(?:{_DECIMAL})(?:{_EXPONENT})?"
_NUMBER = rf"{_FLOAT}|{_INT}"

COMMON_TERMINALS: dict[str, str] = {
    "DIGIT": r"[0-9]",
    "HEXDIGIT": r"[a-fA-F0-9]",
    "INT": _INT,
    "SIGNED_INT": rf"[+\-]?{_INT}",
    "DECIMAL": _DECIMAL,
    "_EXP": _EXPONENT,
    "FLOAT": _FLOAT,
    "SIGNED_FLOAT": rf"[+\-]?(?:{_FLOAT})",
    "NUMBER": _NUMBER,
    "SIGNED_NUMBER": rf"[+\-]?(?:{_NUMBER})",
    "ESCAPED_STRING": r'"(?:[^"\\\n]|\\[^\n])*"',
    "LCASE_LETTER": r"[a-z]",
    "UCASE_LETTER": r"[A-Z]",
    "LETTER": r"[a-zA-Z]",
    "WORD": r"[a-zA-Z]+",
    "CNAME": r"[_a-zA-Z][_a-zA-Z0-9]*",
    "WS_INLINE": r"[ \t]+",
    "WS": r"[ \t\f\r\n]+",
    "CR": r"\r",
    "LF": r"\n",
    "NEWLINE": r"(?:\r?\n)+",
    "SH_COMMENT": r"#[^\n]*",
    "CPP_COMMENT": r"//[^\n]*",
    "C_COMMENT": r"/\*(?:[^*]|\*+[^*/])*\*+/",
    "SQL_COMMENT": r"--[^\n]*",
}

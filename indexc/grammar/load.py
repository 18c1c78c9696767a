"""``load_grammar``: grammar text (or file) -> ``Grammar`` IR, choosing the front end.

The syntax is named by the caller or by the file extension (``.lark``, ``.gbnf``); a text
without either is refused rather than guessed, because the same text can mean different
languages in the two syntaxes (GBNF has no ``%ignore`` and no lexer).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from indexc.grammar.gbnf import parse_gbnf
from indexc.grammar.ir import Grammar, GrammarError
from indexc.grammar.lark import parse_lark

Syntax = Literal["lark", "gbnf"]
_SYNTAX_OF_SUFFIX: dict[str, Syntax] = {".lark": "lark", ".gbnf": "gbnf"}


def load_grammar(text: str, *, syntax: Syntax | None = None, source: str = "<grammar>", start: str | None = None) -> Grammar:
    """The IR of ``text``.  ``syntax`` defaults to the one ``source``'s extension names;
    ``start`` to ``start`` (Lark) or ``root`` (GBNF).  Warnings are in ``Grammar.warnings``."""
    syntax = syntax or syntax_of(source)
    if syntax == "lark":
        return parse_lark(text, source=source, start=start or "start")
    if syntax == "gbnf":
        return parse_gbnf(text, source=source, start=start or "root")
    raise GrammarError(f"unknown grammar syntax {syntax!r} (expected 'lark' or 'gbnf')", source=source)


def load_grammar_file(path: str | Path, *, syntax: Syntax | None = None, start: str | None = None) -> Grammar:
    """``load_grammar`` on a file's UTF-8 text."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise GrammarError(f"cannot read the grammar: {exc}", source=str(path)) from exc
    return load_grammar(text, syntax=syntax, source=str(path), start=start)


def syntax_of(source: str) -> Syntax:
    """The syntax a file name's extension names."""
    syntax = _SYNTAX_OF_SUFFIX.get(Path(source).suffix.lower())
    if syntax is None:
        raise GrammarError("cannot tell the grammar syntax from the file name: use a .lark or .gbnf extension", source=source)
    return syntax

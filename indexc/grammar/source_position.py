"""Offsets in a grammar text -> line and column, for errors and warnings a reader can find.

Both front ends remember the character offset of every construct they parse (cheap: one int)
and turn it into a 1-based line and column only when something is reported.  Columns count
characters, not bytes, so they match what an editor shows for non-ASCII grammars.
"""

from __future__ import annotations

from indexc.grammar.ir import GrammarError


def line_column(text: str, offset: int) -> tuple[int, int]:
    """The 1-based (line, column) of character ``offset`` in ``text``."""
    offset = max(0, min(offset, len(text)))
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, column


def error_at(text: str, offset: int, message: str, source: str) -> GrammarError:
    """A ``GrammarError`` located at ``offset`` of ``text`` (raise it)."""
    line, column = line_column(text, offset)
    return GrammarError(message, source=source, position=offset, line=line, column=column)


def note_at(text: str, offset: int, message: str) -> str:
    """A warning line ``line:column: message``."""
    line, column = line_column(text, offset)
    return f"{line}:{column}: {message}"

"""Typed errors of the compiler.

Every error the command line reports is an ``IndexcError``: it carries the file (or input
name) and, where it makes sense, the position, and formats itself as one line.  The command
line turns any ``IndexcError`` into that line on stderr and exit code 2; anything else is a
bug and gets a traceback.
"""

from __future__ import annotations


class IndexcError(Exception):
    """Base class: a user-facing error with a source and an optional position."""

    def __init__(self, message: str, *, source: str | None = None, position: int | None = None):
        super().__init__(message)
        self.message = message
        self.source = source
        self.position = position

    def __str__(self) -> str:
        where = ""
        if self.source is not None:
            where = f"{self.source}: "
        if self.position is not None:
            where += f"at position {self.position}: "
        return f"{where}{self.message}"


class VocabularyError(IndexcError):
    """A tokenizer file could not be read as a vocabulary (wrong format, truncated, unknown model)."""


class RegexError(IndexcError):
    """A regular expression is malformed or uses a feature that has no whole-string meaning."""


class LimitError(IndexcError):
    """An explicit compiler limit (states, memory, time) was hit; the message names the limit."""


class NFASizeError(LimitError):
    """A schema's NFA, its ``$ref`` definitions inlined, is over the NFA-state limit: the auto
    route may try again with each definition built as its own minimal DFA
    (``indexc.pipeline.json_schema.build_dfa_or_route``)."""


class OutputError(IndexcError):
    """The artifact could not be written (path not writable, disk full); nothing partial is left."""

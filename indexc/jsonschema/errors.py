"""The one error type of the JSON Schema front end: what went wrong, and where in the schema.

Every message names the JSON pointer of the offending schema node (``#/properties/a/not``),
so a user can find it in a schema of thousands of lines; invalid JSON carries the line and
column instead.  It is an ``IndexcError``: the command line prints it as one line and exits 2.
"""

from __future__ import annotations

from indexc.errors import IndexcError


class JsonSchemaError(IndexcError):
    """A schema that cannot be compiled: invalid JSON, a bad ``$ref``, an unsupported keyword,
    an empty language, or a schema whose language has no regular or context-free form here."""

    def __init__(self, message: str, *, pointer: str | None = None, source: str | None = None,
                 keyword: str | None = None):
        where = f" (at {pointer})" if pointer is not None else ""
        super().__init__(message + where, source=source)
        self.reason = message
        self.pointer = pointer
        self.keyword = keyword


def child_pointer(pointer: str, *parts: str | int) -> str:
    """``pointer`` extended by ``parts``, escaped as RFC 6901 says (``~0`` for ``~``, ``~1`` for ``/``)."""
    for part in parts:
        pointer += "/" + str(part).replace("~", "~0").replace("/", "~1")
    return pointer

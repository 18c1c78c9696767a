"""The diff's one error type: an artifact that cannot be compared, and why."""

from __future__ import annotations

from indexc.errors import IndexcError


class DiffError(IndexcError):
    """An artifact cannot be compared (unreadable, a kind the diff cannot walk, vocabularies unknown, a
    grammar artifact's parser past its limits)."""

"""The DFA path's rendering: a lowered schema -> one regex in indexc's dialect.

Every ``Ref`` is inlined.  A cycle through ``$ref`` definitions means the language is not
regular (``NotRegular``, and the router sends the schema to the grammar path); the one
allowed cycle, "any JSON value", is cut at ``any_depth`` levels (see ``any_value``).
``depth_bounded`` says whether that cut happened, so the artifact header can say so.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from indexc.jsonschema.expr import Expr, NoRegexText, NotRegular, RegexRenderer, RegexTooLarge

if TYPE_CHECKING:
    from indexc.jsonschema.lowering import LoweredSchema

MAX_REGEX_CHARS = 1_000_000

__all__ = ["NoRegexText", "NotRegular", "RegexTooLarge", "RenderedRegex", "render_regex", "renderer_for"]


@dataclass(frozen=True)
class RenderedRegex:
    regex: str
    uses_any_value: bool  # "any JSON value" occurs, nested at most options.any_depth deep


def renderer_for(lowered: "LoweredSchema") -> RegexRenderer:
    return RegexRenderer(
        definitions=lowered.definitions,
        whitespace=lowered.options.whitespace_regex,
        bounded=lowered.bounded,
        depth_bound=lowered.options.any_depth,
        max_chars=MAX_REGEX_CHARS,
    )


def render_regex(lowered: "LoweredSchema", expr: Expr | None = None) -> RenderedRegex:
    """The regex of ``expr`` (default: the schema's root); raises ``NotRegular``/``RegexTooLarge``."""
    renderer = renderer_for(lowered)
    text = renderer.render(lowered.root if expr is None else expr)
    return RenderedRegex(text, bool(lowered.bounded) and "any_value" in renderer.seen)

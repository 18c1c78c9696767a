"""Strings: length bounds, ``pattern`` and ``format`` over the decoded text.

A plain string is ``"`` + ``json_text.ANY_CHAR{min,max}`` + ``"``: a length bound counts
characters, whatever their spelling (an unbounded tail uses the smaller
``ANY_CHAR_RUN_UNIT``, see ``json_text``).  ``pattern`` and known ``format``s go through
``patterns``; since the regex dialect has no intersection, a length bound beside them must
either be implied by them (``^[A-Z]{3}$`` with ``maxLength: 3``) or fold into their one
repeated character (``^[a-z-]+$`` with ``maxLength: 63``: ``[a-z-]{1,63}``) or be
``minLength: 1`` (the pattern's language without the empty string), and a
``pattern`` beside a ``format`` is refused.  An unknown ``format`` is an annotation (the specification's
default): ignored, with a warning so the user knows it is not checked.
"""

from __future__ import annotations

from indexc.jsonschema.errors import child_pointer
from indexc.jsonschema.expr import EMPTY_SET, Expr, Lex, quantified
from indexc.jsonschema.json_text import ANY_CHAR, ANY_CHAR_RUN_UNIT
from indexc.jsonschema.keywords import count_keyword
from indexc.jsonschema.patterns import PatternError, TranslatedPattern, translate_format, translate_pattern


def lower_string(lw, schema: dict, pointer: str) -> Expr:
    low = count_keyword(lw, schema, "minLength", pointer) or 0
    high = count_keyword(lw, schema, "maxLength", pointer)
    if high is not None and high < low:
        return EMPTY_SET
    constraint = _pattern_or_format(lw, schema, pointer, low, high)
    if constraint is None:
        return Lex('"' + _plain_body(low, high) + '"')
    keyword, translated = constraint
    if low > translated.min_length or (high is not None and (translated.max_length is None or translated.max_length > high)):
        implied_empty = translated.max_length is not None and translated.max_length < low
        if implied_empty or (high is not None and translated.min_length > high):
            return EMPTY_SET
        lw.unsupported(f"minLength/maxLength beside {keyword} (not implied by it)", pointer, "maxLength")
    return Lex(f'"(?:{translated.body_regex})"')


def _plain_body(low: int, high: int | None) -> str:
    """Counted characters exactly (``ANY_CHAR``); an uncounted tail with the small ``ANY_CHAR_RUN_UNIT``."""
    if high is None:
        counted = quantified(ANY_CHAR, low, low) if low else ""
        return counted + quantified(ANY_CHAR_RUN_UNIT, 0, None)
    return quantified(ANY_CHAR, low, high)


def _pattern_or_format(lw, schema: dict, pointer: str, low: int, high: int | None) -> tuple[str, TranslatedPattern] | None:
    pattern = schema.get("pattern")
    fmt = schema.get("format")
    known_format = None
    if fmt is not None:
        if not isinstance(fmt, str):
            raise lw.error("format must be a string", child_pointer(pointer, "format"))
        known_format = translate_format(fmt)
        if known_format is None:
            lw.warn(f"format {fmt!r} is not checked (unknown formats are annotations) (at {child_pointer(pointer, 'format')})")
    if pattern is not None:
        if not isinstance(pattern, str):
            raise lw.error("pattern must be a string", child_pointer(pointer, "pattern"))
        if known_format is not None:
            lw.unsupported(f"pattern beside format {fmt!r} (cannot intersect them)", child_pointer(pointer, "format"), "format")
        try:
            return "pattern", translate_pattern(pattern, min_length=low, max_length=high)
        except PatternError as error:
            lw.unsupported(str(error), child_pointer(pointer, "pattern"), "pattern")
    if known_format is not None:
        return "format", known_format
    return None

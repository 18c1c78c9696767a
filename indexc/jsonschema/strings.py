"""Strings: length bounds, ``pattern`` and ``format`` over the decoded text.

A plain string is ``"`` + ``json_text.ANY_CHAR{min,max}`` + ``"``: a length bound counts
characters, whatever their spelling (an unbounded tail uses the smaller
``ANY_CHAR_RUN_UNIT``, see ``json_text``).  A count over ``LONG_STRING_CHARS`` is spelled
in chunks of ``CHUNK_CHARS`` characters (same language, see ``_chunked_body``), so the
grammar path never needs one lexeme of 32,767 counted characters (4.4 million NFA states).

``pattern`` and known ``format``s go through ``patterns``.  A length bound beside them that
they imply (``^[A-Z]{3}$`` with ``maxLength: 3``), or that folds into their one repeated
character (``^[a-z-]+$`` with ``maxLength: 63``: ``[a-z-]{1,63}``), stays one regex.  Any
other combination (a length the pattern does not imply, a ``pattern`` beside a ``format``)
is one ``Intersection`` lexeme: the regex dialect cannot write it, so both paths build the
product of the automata (``intersection``).  An unknown ``format`` is an annotation (the
specification's default): ignored, with a warning so the user knows it is not checked.
A ``not: {pattern}`` (``negation``'s ``EXCLUDED_PATTERNS``) makes the lexeme an
``Intersection`` whose ``excluded`` regexes are those patterns' strings.
"""

from __future__ import annotations

from indexc.jsonschema.errors import child_pointer
from indexc.jsonschema.expr import EMPTY_SET, EPSILON, Expr, Intersection, Lex, alt, optional, quantified, repeat, seq
from indexc.jsonschema.json_text import ANY_CHAR, ANY_CHAR_RUN_UNIT
from indexc.jsonschema.keywords import EXCLUDED_PATTERNS, count_keyword
from indexc.jsonschema.patterns import PatternError, TranslatedPattern, translate_format, translate_pattern

# A counted string body is one lexeme up to this many characters.  Each counted character is
# ~134 Thompson NFA states and ~20 DFA states (its escape spellings and UTF-8 bytes), so a
# ``maxLength`` of 32,767 as one lexeme expands to 4.4 million NFA states (refused, limit
# 400,000), and even 1,024 makes a 20,000-state lexeme whose in-lexeme masks dominate the
# grammar path's compile.  Longer counts are written as ``CHUNK_CHARS``-character chunks
# (``_chunked_body``): the same language, whose grammar-path terminals stay at most 32 counted
# characters however long the bound; the Earley rules count the chunks.  Measured on
# Github_hard---o9787 (maxLength 32,767, 1,024, 255; process time, loaded machine): one lexeme
# per string 93 s; thresholds/chunks 2,048/64 same; 256/64 28 s; 128/32 24 s; 64/16 70 s
# (more chunk boundaries: the boundary masks grow).  The DFA path is unchanged (same language,
# same NFA size).
LONG_STRING_CHARS = 128
CHUNK_CHARS = 32
QUOTE = '"'  # a long string's quotes: lexemes of their own (``to_grammar`` copies them per follow context)


def lower_string(lw, schema: dict, pointer: str) -> Expr:
    low = count_keyword(lw, schema, "minLength", pointer) or 0
    high = count_keyword(lw, schema, "maxLength", pointer)
    if high is not None and high < low:
        return EMPTY_SET
    constraints = _pattern_and_format(lw, schema, pointer, low, high)
    excluded = _excluded_patterns(lw, schema, pointer)
    if not constraints and not excluded:
        return _plain_string(low, high)
    if any(_outside(t, low, high) for t in constraints):
        return EMPTY_SET
    regexes = [f'"(?:{t.body_regex})"' for t in constraints]
    if not any(_within(t, low, high) for t in constraints):
        regexes.append('"' + _plain_body(low, high) + '"')
    if excluded:  # every character spelled as ``ANY_CHAR`` spells it: "\u0061" is not a way round "a"
        strict = '"' + quantified(ANY_CHAR, low, high) + '"'
        return Intersection((*regexes, strict), tuple(f'"(?:{t.body_regex})"' for t in excluded))
    return Lex(regexes[0]) if len(regexes) == 1 else Intersection(tuple(regexes))


def _within(translated: TranslatedPattern, low: int, high: int | None) -> bool:
    """Does the constraint imply the length bounds (so they need no automaton of their own)?"""
    if translated.min_length < low:
        return False
    return high is None or (translated.max_length is not None and translated.max_length <= high)


def _outside(translated: TranslatedPattern, low: int, high: int | None) -> bool:
    """Are the constraint's lengths and the bounds disjoint (the string type is empty)?"""
    too_short = translated.max_length is not None and translated.max_length < low
    return too_short or (high is not None and translated.min_length > high)


def _plain_string(low: int, high: int | None) -> Expr:
    """A string without pattern: one lexeme, or counted in chunks when the count is long."""
    if max(low, high or 0) <= LONG_STRING_CHARS:
        return Lex('"' + _plain_body(low, high) + '"')
    return seq(Lex(QUOTE), _chunked_body(low, high), Lex(QUOTE))


def _chunked_body(low: int, high: int | None) -> Expr:
    """Lengths ``low..high`` as whole chunks of ``CHUNK_CHARS`` characters and a shorter tail.

    ``L = CHUNK_CHARS * q + r`` with ``0 <= r < CHUNK_CHARS`` has one decomposition, so the
    language is exactly "``low`` to ``high`` characters"; only the *shape* changes, which the
    grammar path turns into a few terminals of at most ``CHUNK_CHARS`` counted characters."""
    chunk = _counted(CHUNK_CHARS, CHUNK_CHARS)
    before, rest_low = divmod(low, CHUNK_CHARS)
    head = repeat(chunk, before, before)
    if high is None:
        return seq(head, Lex(_plain_body(rest_low, None)) if rest_low else optional(Lex(_plain_body(1, None))))
    return seq(head, _rest(chunk, rest_low, high - before * CHUNK_CHARS))


def _rest(chunk: Expr, low: int, high: int) -> Expr:
    """Lengths ``low..high`` (``low < CHUNK_CHARS``): a short tail, or 1..m-1 chunks and any
    tail, or exactly m chunks and a tail up to ``high mod CHUNK_CHARS`` (three disjoint ranges)."""
    if high < CHUNK_CHARS:
        return _counted(low, high)
    whole, last_tail = divmod(high, CHUNK_CHARS)
    full_tail = _counted(0, CHUNK_CHARS - 1)
    return alt(_counted(low, CHUNK_CHARS - 1),
               seq(repeat(chunk, 1, whole - 1), full_tail) if whole >= 2 else EMPTY_SET,
               seq(repeat(chunk, whole, whole), _counted(0, last_tail)))


def _counted(low: int, high: int) -> Expr:
    """``low..high`` characters as a lexeme that never matches the empty string (an empty
    range is ``optional``, so no grammar terminal is nullable)."""
    if high == 0:
        return EPSILON
    if low == 0:
        return optional(Lex(quantified(ANY_CHAR, 1, high)))
    return Lex(quantified(ANY_CHAR, low, high))


def _plain_body(low: int, high: int | None) -> str:
    """Counted characters exactly (``ANY_CHAR``); an uncounted tail with the small ``ANY_CHAR_RUN_UNIT``."""
    if high is None:
        counted = quantified(ANY_CHAR, low, low) if low else ""
        return counted + quantified(ANY_CHAR_RUN_UNIT, 0, None)
    return quantified(ANY_CHAR, low, high)


def _excluded_patterns(lw, schema: dict, pointer: str) -> list[TranslatedPattern]:
    """The patterns the string must not match (``not: {pattern}``, see ``negation``), translated."""
    patterns = schema.get(EXCLUDED_PATTERNS, [])
    if not isinstance(patterns, list) or not all(isinstance(p, str) for p in patterns):
        raise lw.error(f"{EXCLUDED_PATTERNS} must be a list of patterns", child_pointer(pointer, EXCLUDED_PATTERNS))
    translated = []
    for pattern in patterns:
        try:
            translated.append(translate_pattern(pattern))
        except PatternError as error:
            lw.unsupported(str(error), child_pointer(pointer, "not"), "not")
    return translated


def _pattern_and_format(lw, schema: dict, pointer: str, low: int, high: int | None) -> list[TranslatedPattern]:
    """The ``pattern`` and the known ``format`` of a string, translated to JSON text (0 to 2)."""
    constraints = []
    fmt = schema.get("format")
    if fmt is not None:
        if not isinstance(fmt, str):
            raise lw.error("format must be a string", child_pointer(pointer, "format"))
        known_format = translate_format(fmt)
        if known_format is None:
            lw.warn(f"format {fmt!r} is not checked (unknown formats are annotations) (at {child_pointer(pointer, 'format')})")
        else:
            constraints.append(known_format)
    pattern = schema.get("pattern")
    if pattern is not None:
        if not isinstance(pattern, str):
            raise lw.error("pattern must be a string", child_pointer(pointer, "pattern"))
        try:
            constraints.append(translate_pattern(pattern, min_length=low, max_length=high))
        except PatternError as error:
            lw.unsupported(str(error), child_pointer(pointer, "pattern"), "pattern")
    return constraints

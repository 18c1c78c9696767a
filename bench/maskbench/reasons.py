"""Compile errors grouped by reason: an engine's message reduced to what it has in common with others.

Messages carry details that differ from file to file (the JSON pointer, the quoted value, a
position, a number), so counting raw messages would give one group per file.  ``reason_of``
keeps the message's words and drops those details, in this order:

1. the first line only, without indexc's ``<source>: at position N:`` prefix and without
   llguidance's ``while processing <uri>`` tail;
2. a few known shapes become one group each, because their parameter is the whole variety:
   ``Unknown format: url`` -> ``unknown format``, regex parse errors -> ``regex: <kind>``;
3. JSON pointers (``#/a/b``, ``/properties/x``), quoted strings and numbers become ``<ptr>``,
   ``<str>`` and ``<n>``; a keyword quoted right after "keyword"/"keys" is named again at the
   end (``Unimplemented keys: ["not"]`` -> ``Unimplemented keys: [<str>] [keys 'not']``).

The groups are for reading a report, not for matching: the regression file keeps whole messages.
"""

from __future__ import annotations

import re

_PREFIX = re.compile(r"^.*?: at (?:position|line|offset) [^:]*:\s*")
_TAIL = re.compile(r"\s+while processing .*$")
_KNOWN = (
    (re.compile(r"unknown format|unsupported format|format .* (?:is )?not supported", re.I), "unknown format"),
    (re.compile(r"lookaround|look-around|look-behind|lookbehind|lookahead", re.I), "regex: lookaround"),
    (re.compile(r"backreference|back-reference", re.I), "regex: backreference"),
    (re.compile(r"^Unsupported JSON Schema structure", re.I), "unsupported JSON Schema structure (outlines-core)"),
)
_KEYWORD = re.compile(r"(keywords?|keys?)\s*[:=]?\s*[\[(]?\s*['\"]([^'\"]+)['\"]", re.I)
_POINTER = re.compile(r"#(?:/[^\s,;:)'\"]*)*|(?<![\w/])(?:/[\w$.~-]+){2,}")
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|`[^`]*`")
_NUMBER = re.compile(r"(?<![\w<])-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:e[+-]?\d+)?(?![\w>])", re.I)


def reason_of(message: str) -> str:
    """The group of an error message (see the module note)."""
    line = message.strip().splitlines()[0] if message.strip() else "(no message)"
    line = _TAIL.sub("", _PREFIX.sub("", line))
    for pattern, group in _KNOWN:
        if pattern.search(line):
            return group
    keyword = _KEYWORD.search(line)
    kept = f"{keyword.group(1)} '{keyword.group(2)}'" if keyword else None
    line = _POINTER.sub("<ptr>", line)
    line = _QUOTED.sub("<str>", line)
    line = _NUMBER.sub("<n>", line)
    if kept is not None:
        line = f"{line} [{kept}]"
    return re.sub(r"\s+", " ", line).strip()[:100]

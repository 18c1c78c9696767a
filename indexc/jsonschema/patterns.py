"""``pattern`` and ``format``: a regex over the decoded string -> a regex over the JSON text.

JSON Schema's ``pattern`` is an ECMA-262 regex that must match *somewhere* in the decoded
string (it is a search, not a full match), and the DFA reads the JSON text, where each
character may be escaped.  The translation:

1. ECMA-isms become indexc's (Python ``re``) dialect: ``\\d`` and ``\\w`` are ASCII in
   ECMA-262 (``[0-9]``, ``[A-Za-z0-9_]``), ``(?<name>`` is ``(?P<name>``.
2. Each top-level alternative that does not start with ``^`` gets "any characters" in front,
   and one that does not end with ``$`` gets them behind (search semantics).  A group around
   an alternative is distributed first (``^(a|$)`` is ``^a|^$``, ``^$|(^b$)`` is ``^$|^b$``),
   so anchors written inside it are seen at its ends.
3. indexc's own regex front end (``automaton.normalize`` + ``automaton.parse``) reads the
   result into a tree whose leaves are code-point sets, so escapes, classes, flags and
   Unicode mean exactly what they mean to ``indexc.automaton``.
4. The tree is written back as a regex in which each leaf is ``json_text.encoded_char`` of
   its set: every JSON spelling of every character the leaf allows.

``pattern_length_range`` gives the tree's shortest and longest match (in characters), which
is how ``minLength``/``maxLength`` beside a ``pattern`` are handled: the regex dialect has no
intersection, so the bounds are accepted when the pattern already implies them and refused
otherwise.  Formats are fixed anchored regexes in the decoded domain, run through the same
translation; their precision is stated beside each.
"""

from __future__ import annotations

from dataclasses import dataclass

from indexc.automaton.normalize import normalize
from indexc.automaton.parse import parse_structure
from indexc.automaton.regex_tree import Alternation, Chars, Concat, Node, Repeat
from indexc.errors import RegexError
from indexc.jsonschema.expr import group_structure, has_top_level_bar, quantified
from indexc.jsonschema.json_text import encoded_char


class PatternError(Exception):
    """The pattern cannot be translated (the message says why)."""


@dataclass(frozen=True)
class TranslatedPattern:
    body_regex: str  # regex over the JSON string's inside (no quotes)
    min_length: int
    max_length: int | None


def translate_pattern(pattern: str, *, anchored: bool = False, min_length: int = 0,
                      max_length: int | None = None) -> TranslatedPattern:
    """The JSON-text regex of the strings in which ``pattern`` matches (``anchored``: full match).

    Length bounds are folded in when the pattern's shape allows it (``clip_lengths``); the
    caller compares the returned range with the bounds to see whether they hold.
    """
    python_pattern = ecma_to_python(pattern)
    if not anchored:
        python_pattern = search_semantics(python_pattern)
    try:
        normalized = normalize(python_pattern, source="pattern")
        tree = parse_structure(normalized, source="pattern")
    except RegexError as error:
        raise PatternError(f"unsupported pattern {pattern!r}: {error.message}") from None
    sets = normalized.char_sets
    if min_length > 0 or max_length is not None:
        tree = clip_lengths(tree, min_length, max_length)
        if min_length == 1 and _length_range(tree)[0] == 0 and _length_range(tree)[1] != 0:
            tree = non_empty(tree)
    low, high = _length_range(tree)
    return TranslatedPattern(_render(tree, sets), low, high)


def non_empty(tree: Node) -> Node:
    """The same language without the empty string (``minLength: 1`` beside a pattern).

    Called only on a tree that can match something non-empty; parts that match only the
    empty string are never asked for their non-empty part."""
    if isinstance(tree, Chars) or _length_range(tree)[0] > 0:
        return tree
    if isinstance(tree, Alternation):
        options = tuple(non_empty(o) for o in tree.options if _length_range(o)[1] != 0)
        return options[0] if len(options) == 1 else Alternation(options)
    if isinstance(tree, Concat):
        # ne(A B) = ne(A) B | ne(B) when A can be empty (which it can: the whole can)
        first, rest = tree.parts[0], tree.parts[1:]
        rest_tree = Concat(rest) if len(rest) != 1 else rest[0]
        options = []
        if _length_range(first)[1] != 0:
            options.append(Concat((non_empty(first), *rest)))
        if rest and _length_range(rest_tree)[1] != 0:
            options.append(non_empty(rest_tree))
        return options[0] if len(options) == 1 else Alternation(tuple(options))
    assert isinstance(tree, Repeat) and tree.max != 0 and _length_range(tree.body)[1] != 0
    tail_max = None if tree.max is None else tree.max - 1
    return Concat((non_empty(tree.body), Repeat(tree.body, 0, tail_max)))


def clip_lengths(tree: Node, low: int, high: int | None) -> Node:
    """``tree`` restricted to lengths ``low..high`` when its variable part is one repeated
    single character (``^[a-z0-9-]+$``, ``^ID-\\d{2,}$``); otherwise ``tree`` unchanged."""
    parts = list(tree.parts) if isinstance(tree, Concat) else [tree]
    fixed, variable = 0, None
    for i, part in enumerate(parts):
        lo, hi = _length_range(part)
        if lo == hi:
            fixed += lo
        elif variable is None and isinstance(part, Repeat) and _length_range(part.body) == (1, 1):
            variable = i
        else:
            return tree
    if variable is None:
        return tree
    repeat = parts[variable]
    new_min = max(repeat.min, low - fixed)
    limits = [m for m in (repeat.max, None if high is None else high - fixed) if m is not None]
    new_max = min(limits) if limits else None
    if new_max is not None and new_max < new_min:
        return tree  # empty: left to the caller's range check
    parts[variable] = Repeat(repeat.body, new_min, new_max)
    return Concat(tuple(parts)) if isinstance(tree, Concat) else parts[0]


def ecma_to_python(pattern: str) -> str:
    """Rewrite the ECMA-262 escapes whose meaning differs in Python's ``re`` dialect."""
    out: list[str] = []
    i, in_class = 0, False
    outside = {"d": "[0-9]", "D": "[^0-9]", "w": "[A-Za-z0-9_]", "W": "[^A-Za-z0-9_]"}
    inside = {"d": "0-9", "w": "A-Za-z0-9_"}
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern):
            nxt = pattern[i + 1]
            table = inside if in_class else outside
            out.append(table.get(nxt, c + nxt))
            i += 2
            continue
        if c == "[" and not in_class:
            in_class = True
            if pattern.startswith("[^]", i):
                out.append("[\\s\\S]")
                i += 3
                in_class = False
                continue
        elif c == "]" and in_class and out and out[-1] not in ("[", "[^"):
            in_class = False
        if not in_class and pattern.startswith("(?<", i) and not pattern.startswith(("(?<=", "(?<!"), i):
            out.append("(?P<")
            i += 3
            continue
        out.append(c)
        i += 1
    return "".join(out)


def search_semantics(pattern: str) -> str:
    """Unanchored alternatives get "any characters" on their open side(s)."""
    anything = "[\\s\\S]*"
    wrapped = []
    for alternative in _anchorable_alternatives(pattern):
        starts = alternative.startswith("^")
        ends = _ends_with_anchor(alternative)
        core = alternative[1 if starts else 0:len(alternative) - 1 if ends else len(alternative)]
        wrapped.append(("" if starts else anything) + f"(?:{core})" + ("" if ends else anything))
    return "|".join(wrapped)


def _anchorable_alternatives(pattern: str) -> list[str]:
    """The top-level alternatives, with a group that spans an alternative distributed over it
    (anchors move inside): ``^$|(^a+$)`` -> ``^$``, ``^a+$``; ``^(a|$)`` -> ``^a``, ``^$``;
    ``^(a$|b)`` -> ``^a$``, ``^b``.  Each alternative then has its anchors at its ends, where
    ``search_semantics`` can read them (``^(A|B) = ^A|^B`` and ``(A|B)$ = A$|B$``)."""
    out = []
    for alternative in _split_top_level(_unwrapped(pattern)):
        starts = alternative.startswith("^")
        core = alternative[1:] if starts else alternative
        ends = _ends_with_anchor(core)
        core = core[:-1] if ends else core
        inner = _unwrapped(core)
        if inner == core:
            out.append(alternative)
            continue
        for part in _anchorable_alternatives(inner):
            head = "^" if starts and not part.startswith("^") else ""
            tail = "$" if ends and not _ends_with_anchor(part) else ""
            out.append(head + part + tail)
    return out


def _unwrapped(pattern: str) -> str:
    """``(^a|b$)`` -> ``^a|b$``: a group around the whole pattern hides its anchors from the split."""
    while pattern.startswith("(") and _closing_paren(pattern) == len(pattern) - 1:
        if pattern.startswith("(?:"):
            pattern = pattern[3:-1]
        elif pattern.startswith("(?P<") or (pattern.startswith("(?<") and not pattern.startswith(("(?<=", "(?<!"))):
            pattern = pattern[pattern.index(">") + 1:-1]
        elif pattern.startswith("(?"):
            break
        else:
            pattern = pattern[1:-1]
    return pattern


def _closing_paren(pattern: str) -> int:
    """Index of the ``)`` closing the group that opens the pattern (-1: none)."""
    return next((i for i, c, depth in group_structure(pattern) if c == ")" and depth == 0), -1)


def _split_top_level(pattern: str) -> list[str]:
    bars = [i for i, c, depth in group_structure(pattern) if c == "|" and depth == 0]
    return [pattern[start + 1:end] for start, end in zip([-1] + bars, bars + [len(pattern)])]


def _ends_with_anchor(text: str) -> bool:
    if not text.endswith("$"):
        return False
    backslashes = len(text[:-1]) - len(text[:-1].rstrip("\\"))
    return backslashes % 2 == 0


def _render(node: Node, sets) -> str:
    if isinstance(node, Chars):
        text = encoded_char(sets[node.set_index])
        if not text:
            raise PatternError("the pattern has an empty character class")
        return text
    if isinstance(node, Concat):
        return "".join(_in_sequence(_render(p, sets)) for p in node.parts)
    if isinstance(node, Alternation):
        return "|".join(_render(o, sets) for o in node.options)
    return quantified(_render(node.body, sets), node.min, node.max)


def _in_sequence(text: str) -> str:
    return f"(?:{text})" if has_top_level_bar(text) else text


def _length_range(node: Node) -> tuple[int, int | None]:
    if isinstance(node, Chars):
        return 1, 1
    if isinstance(node, Concat):
        low, high = 0, 0
        for part in node.parts:
            lo, hi = _length_range(part)
            low += lo
            high = None if high is None or hi is None else high + hi
        return low, high
    if isinstance(node, Alternation):
        ranges = [_length_range(o) for o in node.options]
        highs = [hi for _, hi in ranges]
        return min(lo for lo, _ in ranges), None if None in highs else max(highs)
    assert isinstance(node, Repeat)
    lo, hi = _length_range(node.body)
    high = None if node.max is None or hi is None else hi * node.max
    if hi == 0:
        high = 0
    return lo * node.min, high


# --- formats ---------------------------------------------------------------------------
# Decoded-domain regexes, full match.  Exact for date, time, date-time (RFC 3339: each month's
# own last day, 29 February in leap years only (RFC 3339 appendix C: a year divisible by 4 and
# not by 100, or by 400), leap second 60 allowed; until session 25 day 31 was accepted in every
# month, and MaskBench's "2020-02-31" instances were accepted), duration (ISO 8601 as in JSON Schema's
# appendix), ipv4, ipv6 (RFC 4291 text forms, no zone ids), uuid.  Approximate (a superset of
# what validators accept, stated here): email (dot-atom local part @ hostname), hostname
# (labels of 1-63 letters/digits/hyphens, not starting or ending with a hyphen), uri
# (a scheme, then URI characters and %-escapes; no structural check of the rest).
_MONTH_DAY = (r"(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])"  # 31 days
              r"|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)"  # 30 days
              r"|02-(?:0[1-9]|1[0-9]|2[0-8]))")  # February, any year
_LEAP_YEAR = r"(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)"
_DATE = f"(?:[0-9]{{4}}-{_MONTH_DAY}|{_LEAP_YEAR}-02-29)"
_TIME = r"(?:[01][0-9]|2[0-3]):[0-5][0-9]:(?:[0-5][0-9]|60)(?:\.[0-9]+)?(?:[zZ]|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])"
_N = "[0-9]+"
_DUR_TIME = f"T(?:{_N}H(?:{_N}M)?(?:{_N}S)?|{_N}M(?:{_N}S)?|{_N}S)"
_DUR_DATE = f"(?:{_N}Y(?:{_N}M)?(?:{_N}D)?|{_N}M(?:{_N}D)?|{_N}D)(?:{_DUR_TIME})?"
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_HOSTNAME = f"{_LABEL}(?:\\.{_LABEL})*"
_OCTET = r"(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])"
_IPV4 = f"{_OCTET}(?:\\.{_OCTET}){{3}}"
_H16 = "[0-9A-Fa-f]{1,4}"
_LS32 = f"(?:{_H16}:{_H16}|{_IPV4})"
_IPV6 = "|".join([
    f"(?:{_H16}:){{6}}{_LS32}",
    f"::(?:{_H16}:){{5}}{_LS32}",
    f"(?:{_H16})?::(?:{_H16}:){{4}}{_LS32}",
    f"(?:(?:{_H16}:){{0,1}}{_H16})?::(?:{_H16}:){{3}}{_LS32}",
    f"(?:(?:{_H16}:){{0,2}}{_H16})?::(?:{_H16}:){{2}}{_LS32}",
    f"(?:(?:{_H16}:){{0,3}}{_H16})?::{_H16}:{_LS32}",
    f"(?:(?:{_H16}:){{0,4}}{_H16})?::{_LS32}",
    f"(?:(?:{_H16}:){{0,5}}{_H16})?::{_H16}",
    f"(?:(?:{_H16}:){{0,6}}{_H16})?::",
])
_URI_CHAR = r"(?:[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})"
FORMATS = {
    "date": _DATE,
    "time": _TIME,
    "date-time": f"{_DATE}[Tt]{_TIME}",
    "duration": f"P(?:{_DUR_DATE}|{_DUR_TIME}|{_N}W)",
    "email": r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@" + _HOSTNAME,
    "hostname": _HOSTNAME,
    "ipv4": _IPV4,
    "ipv6": _IPV6,
    "uuid": r"[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}",
    "uri": r"[A-Za-z][A-Za-z0-9+.\-]*:" + _URI_CHAR + "*",
}


def translate_format(name: str) -> TranslatedPattern | None:
    """The JSON-text regex of a known format, or None for a format this module does not know."""
    decoded = FORMATS.get(name)
    return None if decoded is None else translate_pattern(f"(?:{decoded})", anchored=True)

"""Regex source rewriting: Python ``re`` syntax -> structure tokens over character sets.

This module owns the lexical layer of a regex and reduces the pattern to a token list that
``structure`` turns into the syntax tree; the tokens are

- a ``char_sets`` index (``int``) for every character-matching atom (a literal, an escape,
  ``.``, a bracketed class, ``\\d``...): each stands for a ``CodePointSet`` (equal sets share
  one index), so no later stage sees a real character, an escape or a class;
- ``"("``, ``")"`` and ``"|"`` for structure: groups of every kind become ``"("``; comments
  and global flags are dropped;
- ``(min, max)`` for a quantifier (``max`` None: unbounded); a lazy quantifier matches the same
  strings, so its marker only notes the token's place in ``lazy`` (Lark's terminals end where
  ``re.match`` ends them: ``indexc.grammar.lazy_ends``).

and also:

- anchors that mean nothing for a whole-string match are dropped: ``^``/``\\A`` where nothing
  can have been consumed yet (start of the pattern or of a top-level alternative, possibly
  inside groups opened there) and ``$``/``\\Z``/``\\z`` where nothing can follow.  Anywhere
  else an anchor is an error rather than a silently different language;
- flags are resolved here, per scope: ``i`` folds the sets (see ``case_folding``), ``s`` makes
  ``.`` match ``\\n``; ``m`` and ``u`` change nothing once anchors are only at the ends.

Every syntax error is found here, with its position in the user's pattern (``nothing to
repeat``, ``multiple repeat``, unbalanced parentheses...), so the token list is well formed by
construction.  Groups may nest ``MAX_GROUP_DEPTH`` (100) deep: the tree's consumers (NFA
size, Thompson construction, the JSON Schema renumbering) recurse once or twice per level,
and 100 keeps them far from Python's recursion limit (``re`` itself allows more).

The rules follow CPython 3.11's ``re._parser`` (what is a quantifier, when ``{`` is a literal,
octal versus back-reference, ``]`` first in a class, which escapes are errors) so a pattern
means here what it means to ``re``; extensions: ``\\x{...}`` and ``\\z``.

Rejected with the position of the offending construct: look-arounds, back-references
(``\\1``, ``(?P=name)``), word boundaries ``\\b \\B``, possessive quantifiers and atomic
groups, conditionals, ``\\p{..}`` properties, the flags ``a``, ``L``, ``x``; and the usual
syntax errors (unbalanced parentheses, nothing to repeat, bad ranges and escapes).

Cost: one pass over the pattern plus ``CodePointSet`` algebra per distinct class (pure Python
for small sets; classes are memoised by their text); the ``date`` regex of the benchmark set
(28 classes) normalises in 0.3 ms on a process's first call and 0.1 ms once its classes are
known (1.0 ms with interegular's placeholders and numpy for every set), the 0.9 kB
relation-extraction regex in 0.7-1 ms.
"""

from __future__ import annotations

import functools
import itertools
import unicodedata
from dataclasses import dataclass, field, replace

from indexc.automaton.case_folding import fold_case
from indexc.automaton.code_point_sets import SURROGATE_HI, SURROGATE_LO, CodePointSet
from indexc.automaton.unicode_classes import CLASS_ESCAPES, class_escape_set
from indexc.errors import RegexError

MAX_GROUP_DEPTH = 100

Quantifier = tuple[int, int | None]  # (min, max); max None: unbounded
Token = int | str | Quantifier  # a char_sets index, "(" ")" "|", or a quantifier

_SHORT_QUANTIFIERS: dict[str, Quantifier] = {"*": (0, None), "+": (1, None), "?": (0, 1)}
_SIMPLE_ESCAPES = {"a": 0x07, "f": 0x0C, "n": 0x0A, "r": 0x0D, "t": 0x09, "v": 0x0B, "\\": 0x5C}
_HEX = frozenset("0123456789abcdefABCDEF")
_OCT = frozenset("01234567")
_DIGITS = frozenset("0123456789")
_KNOWN_FLAGS = frozenset("aiLmsuxt")
_UNSUPPORTED_FLAGS = {
    "a": "the ASCII flag (?a) is not supported (\\d \\w \\s are Unicode here, as in re's default)",
    "L": "the LOCALE flag (?L) cannot be used with a str pattern",
    "x": "the VERBOSE flag (?x) is not supported",
    "t": "the TEMPLATE flag (?t) is not supported",
}


_ANY = CodePointSet.all_scalars()
_ANY_BUT_NEWLINE = _ANY.difference(CodePointSet.of(0x0A))  # ``.`` without the s flag


@dataclass(frozen=True)
class NormalizedPattern:
    tokens: tuple[Token, ...]  # structure and set indices only (see the module note)
    char_sets: tuple[CodePointSet, ...]  # the set behind each index
    lazy: frozenset[int] = frozenset()  # places in ``tokens`` of the quantifiers written lazy (``*?``)


# Generated regexes repeat a few classes thousands of times (a Kubernetes schema's 403 leaf
# regexes hold 32,127 classes, 193 distinct): the set of a class is kept by its text and the
# case flag.  Only text whose parse ended exactly where it ends is stored, and a class parse
# reads nothing past its ``]``, so equal text gives the equal set (errors are never stored).
_CLASS_MEMO: dict[tuple[str, bool], CodePointSet] = {}
_CLASS_MEMO_SIZE = 4096  # entries (cleared when full)
_CLASS_MEMO_TEXT = 256  # longer classes are not kept (bounds the memo's memory)


@functools.lru_cache(maxsize=4096)
def _literal_set(code_point: int, ignore_case: bool) -> CodePointSet:
    """A literal's set, memoised across patterns (case folding costs ~50 us a call)."""
    chars = CodePointSet.of(code_point)
    return fold_case(chars) if ignore_case else chars


@dataclass(frozen=True)
class _Flags:
    ignore_case: bool = False
    dot_all: bool = False


@dataclass
class _Group:
    open_pos: int
    outer_flags: _Flags
    at_start: bool  # nothing can have been consumed before the group opened
    consumed: bool = False  # some atom inside
    anchor_pos: int | None = None  # an anchor inside (forbids quantifying the group)
    end_anchor_pos: int | None = None  # some alternative of the group ends with an end anchor


@dataclass
class _Escape:
    kind: str  # "char", "set", "start", "end"
    end: int
    code_point: int = 0
    chars: CodePointSet | None = None


@dataclass
class _Normalizer:
    pattern: str
    source: str
    tokens: list[Token] = field(default_factory=list)
    lazy: list[int] = field(default_factory=list)  # places of lazy quantifiers in ``tokens``
    sets: dict[CodePointSet, int] = field(default_factory=dict)
    groups: list[_Group] = field(default_factory=list)
    group_names: set[str] = field(default_factory=set)
    flags: _Flags = _Flags()
    at_start: bool = True
    last: str | None = None  # None (sequence start), "atom", "repeat", "anchor"
    closed_group_anchor: int | None = None  # anchor inside the group that just closed
    pending_end_anchor: int | None = None  # an end anchor was seen: only | ) or the end may follow
    seen_token: bool = False  # anything but comments and global flags (for global flag placement)

    # -- errors ------------------------------------------------------------------------
    def error(self, message: str, position: int) -> RegexError:
        return RegexError(message, source=self.source, position=position)

    # -- main loop ---------------------------------------------------------------------
    def run(self) -> NormalizedPattern:
        i, p = 0, self.pattern
        while i < len(p):
            c = p[i]
            if c == "\\":
                i = self.escape_outside_class(i)
            elif c == "[":
                chars, end = self.read_class(i)
                self.emit_chars(chars, i)
                i = end
            elif c == ".":
                self.emit_chars(_ANY if self.flags.dot_all else _ANY_BUT_NEWLINE, i)
                i += 1
            elif c == "(":
                i = self.open_group(i)
            elif c == ")":
                i = self.close_group(i)
            elif c == "|":
                i = self.alternative(i)
            elif c in _SHORT_QUANTIFIERS:
                i = self.quantifier(i, i + 1, _SHORT_QUANTIFIERS[c])
            elif c == "{":
                i = self.brace(i)
            elif c == "^":
                i = self.start_anchor(i, i + 1)
            elif c == "$":
                i = self.end_anchor(i, i + 1)
            else:
                self.emit_chars(self.literal(ord(c), i), i)
                i += 1
        if self.groups:
            raise self.error("missing ), unterminated subpattern", self.groups[-1].open_pos)
        return NormalizedPattern(tuple(self.tokens), tuple(self.sets), frozenset(self.lazy))

    # -- emission ----------------------------------------------------------------------
    def before_atom(self) -> None:
        """Bookkeeping shared by everything that consumes characters (and group openings)."""
        if self.pending_end_anchor is not None:
            raise self.error(
                "an end anchor ($, \\Z) is only supported where nothing can follow it",
                self.pending_end_anchor,
            )
        self.seen_token = True

    def emit_chars(self, chars: CodePointSet, position: int) -> None:
        self.before_atom()
        index = self.sets.setdefault(chars, len(self.sets))
        self.tokens.append(index)
        self.at_start = False
        self.last = "atom"
        self.closed_group_anchor = None
        if self.groups:
            self.groups[-1].consumed = True

    def literal(self, code_point: int, position: int) -> CodePointSet:
        if SURROGATE_LO <= code_point <= SURROGATE_HI:
            raise self.error(f"the surrogate U+{code_point:04X} cannot occur in UTF-8 text", position)
        return _literal_set(code_point, self.flags.ignore_case)

    # -- anchors -----------------------------------------------------------------------
    def note_anchor(self, position: int) -> None:
        for group in self.groups:
            if group.anchor_pos is None:
                group.anchor_pos = position
        self.last = "anchor"
        self.closed_group_anchor = None
        self.seen_token = True

    def start_anchor(self, position: int, end: int) -> int:
        if not self.at_start:
            raise self.error(
                "a start anchor (^, \\A) is only supported where nothing can have been matched yet",
                position,
            )
        self.note_anchor(position)
        return end

    def end_anchor(self, position: int, end: int) -> int:
        if self.pending_end_anchor is None:
            self.pending_end_anchor = position
        self.note_anchor(position)
        return end

    # -- structure ---------------------------------------------------------------------
    def alternative(self, position: int) -> int:
        if self.groups:
            group = self.groups[-1]
            if group.end_anchor_pos is None:
                group.end_anchor_pos = self.pending_end_anchor
            self.at_start = group.at_start
        else:
            self.at_start = True
        self.pending_end_anchor = None
        self.seen_token = True
        self.last = None
        self.tokens.append("|")
        return position + 1

    def close_group(self, position: int) -> int:
        if not self.groups:
            raise self.error("unbalanced parenthesis", position)
        group = self.groups.pop()
        self.tokens.append(")")
        self.flags = group.outer_flags
        if self.pending_end_anchor is None:
            self.pending_end_anchor = group.end_anchor_pos
        self.at_start = group.at_start and not group.consumed
        if self.groups:
            self.groups[-1].consumed |= group.consumed
        self.last = "atom"
        self.closed_group_anchor = group.anchor_pos
        return position + 1

    def push_group(self, position: int, flags: _Flags) -> None:
        self.before_atom()
        if len(self.groups) >= MAX_GROUP_DEPTH:
            raise self.error(f"the regex nests too deeply (more than {MAX_GROUP_DEPTH} groups inside each other)",
                             position)
        self.groups.append(_Group(position, self.flags, self.at_start))
        self.flags = flags
        self.last = None
        self.tokens.append("(")

    def open_group(self, position: int) -> int:
        p = self.pattern
        if not p.startswith("(?", position):
            self.push_group(position, self.flags)
            return position + 1
        i = position + 2
        if i >= len(p):
            raise self.error("unexpected end of pattern", i)
        c = p[i]
        if c == ":":
            self.push_group(position, self.flags)
            return i + 1
        if c == "#":
            close = p.find(")", i)
            if close < 0:
                raise self.error("missing ), unterminated comment", position)
            return close + 1
        if c == "P":
            return self.python_named_group(position, i + 1)
        if c in "=!":
            raise self.error("look-ahead assertions (?= (?! are not supported", position)
        if c == "<":
            if p.startswith(("=", "!"), i + 1):
                raise self.error("look-behind assertions (?<= (?<! are not supported", position)
            raise self.error(f"unknown extension ?<{p[i + 1:i + 2]}", position + 1)
        if c == ">":
            raise self.error("atomic groups (?> are not supported", position)
        if c == "(":
            raise self.error("conditional groups (?( are not supported", position)
        if c in _KNOWN_FLAGS or c == "-":
            return self.flag_group(position, i)
        raise self.error(f"unknown extension ?{c}", position + 1)

    def python_named_group(self, position: int, i: int) -> int:
        p = self.pattern
        if p.startswith("=", i):
            raise self.error("back-references (?P=name) are not supported", position)
        if i >= len(p):
            raise self.error("unexpected end of pattern", i)
        if not p.startswith("<", i):
            raise self.error(f"unknown extension ?P{p[i]}", position + 1)
        close = p.find(">", i + 1)
        if close < 0:
            raise self.error("missing >, unterminated name", i + 1)
        name = p[i + 1:close]
        if not name.isidentifier():
            raise self.error(f"bad character in group name {name!r}", i + 1)
        if name in self.group_names:
            raise self.error(f"redefinition of group name {name!r}", i + 1)
        self.group_names.add(name)
        self.push_group(position, self.flags)
        return close + 1

    def flag_group(self, position: int, i: int) -> int:
        p = self.pattern
        added, i = self.read_flag_letters(i)
        removed = ""
        if p.startswith("-", i):
            removed, i = self.read_flag_letters(i + 1)
            if not removed:
                raise self.error("missing flag", i)
            if not p.startswith(":", i):
                raise self.error("missing :", i)
        if i >= len(p) or p[i] not in ":)":
            raise self.error("missing -, : or )", i)
        for offset, letter in enumerate(added):
            if letter in _UNSUPPORTED_FLAGS:
                raise self.error(_UNSUPPORTED_FLAGS[letter], position + 2 + offset)
        if set(removed) & set("auL"):
            raise self.error("bad inline flags: cannot turn off flags 'a', 'u' and 'L'", position)
        if set(added) & set(removed):
            raise self.error("bad inline flags: flag turned on and off", position)
        flags = _apply_flags(self.flags, added, removed)
        if p[i] == ":":
            self.push_group(position, flags)
            return i + 1
        if self.groups or self.seen_token:
            raise self.error("global flags not at the start of the expression", position)
        self.flags = flags
        return i + 1

    def read_flag_letters(self, i: int) -> tuple[str, int]:
        p = self.pattern
        start = i
        while i < len(p) and p[i].isalpha():
            if p[i] not in _KNOWN_FLAGS:
                raise self.error("unknown flag", i)
            i += 1
        return p[start:i], i

    # -- quantifiers -------------------------------------------------------------------
    def brace(self, position: int) -> int:
        """``{m,n}`` and its short forms are a quantifier; any other ``{`` is a literal."""
        p = self.pattern
        i = position + 1
        lo_start = i
        while i < len(p) and p[i] in _DIGITS:
            i += 1
        lo = p[lo_start:i]
        hi = lo
        if p.startswith(",", i):
            hi_start = i + 1
            i = hi_start
            while i < len(p) and p[i] in _DIGITS:
                i += 1
            hi = p[hi_start:i]
        if p.startswith("}", position + 1) or not p.startswith("}", i):
            self.emit_chars(self.literal(ord("{"), position), position)
            return position + 1
        low = int(lo) if lo else 0
        high = int(hi) if hi else None
        if high is not None and high < low:
            raise self.error("min repeat greater than max repeat", position + 1)
        return self.quantifier(position, i + 1, (low, high))

    def quantifier(self, position: int, end: int, bounds: Quantifier) -> int:
        if self.last in (None, "anchor"):
            raise self.error("nothing to repeat", position)
        if self.last == "repeat":
            raise self.error("multiple repeat", position)
        if self.closed_group_anchor is not None:
            raise self.error("an anchor inside a repeated group is not supported", self.closed_group_anchor)
        if self.pattern.startswith("+", end):
            raise self.error("possessive quantifiers are not supported", end)
        if self.pattern.startswith("?", end):
            end += 1  # lazy: the same language (its place is noted for ``indexc.grammar.lazy_ends``)
            self.lazy.append(len(self.tokens))
        self.tokens.append(bounds)
        self.last = "repeat"
        return end

    # -- escapes -----------------------------------------------------------------------
    def escape_outside_class(self, position: int) -> int:
        esc = self.read_escape(position, in_class=False)
        if esc.kind == "start":
            return self.start_anchor(position, esc.end)
        if esc.kind == "end":
            return self.end_anchor(position, esc.end)
        if esc.kind == "set":
            self.emit_chars(esc.chars, position)
        else:
            self.emit_chars(self.literal(esc.code_point, position), position)
        return esc.end

    def read_escape(self, position: int, *, in_class: bool) -> _Escape:
        """The escape starting with the backslash at ``position`` (``re``'s rules)."""
        p = self.pattern
        i = position + 1
        if i >= len(p):
            raise self.error("bad escape (end of pattern)", position)
        c = p[i]
        if c in _SIMPLE_ESCAPES:
            return _Escape("char", i + 1, _SIMPLE_ESCAPES[c])
        if c == "b" and in_class:
            return _Escape("char", i + 1, 0x08)
        if c in CLASS_ESCAPES:
            return _Escape("set", i + 1, chars=class_escape_set(c))
        if c in "xuUN":
            return self.code_point_escape(position, c)
        if c in _DIGITS:
            return self.numeric_escape(position, in_class=in_class)
        if not in_class and c == "A":
            return _Escape("start", i + 1)
        if not in_class and c in "Zz":
            return _Escape("end", i + 1)
        if not in_class and c in "bB":
            raise self.error(f"word boundaries (\\{c}) are not supported", position)
        if c in "pP":
            raise self.error(f"Unicode properties (\\{c}{{...}}) are not supported", position)
        if c.isascii() and c.isalpha():
            raise self.error(f"bad escape \\{c}", position)
        return _Escape("char", i + 1, ord(c))

    def code_point_escape(self, position: int, kind: str) -> _Escape:
        p = self.pattern
        i = position + 2
        if kind == "N":
            if not p.startswith("{", i):
                raise self.error("missing {", i)
            close = p.find("}", i)
            if close == i + 1 or i + 1 == len(p):
                raise self.error("missing character name", i + 1)
            if close < 0:
                raise self.error("missing }, unterminated name", i + 1)
            try:
                return _Escape("char", close + 1, ord(unicodedata.lookup(p[i + 1:close])))
            except KeyError:
                raise self.error(f"undefined character name {p[i + 1:close]!r}", position) from None
        if kind == "x" and p.startswith("{", i):
            close = p.find("}", i)
            digits = p[i + 1:close] if close > 0 else ""
            if not digits or len(digits) > 8 or not set(digits) <= _HEX:
                raise self.error("bad escape \\x{...}: expected 1 to 8 hex digits and }", position)
            return self.checked_code_point(position, int(digits, 16), close + 1)
        width = {"x": 2, "u": 4, "U": 8}[kind]
        digits = p[i:i + width]
        if len(digits) != width or not set(digits) <= _HEX:
            seen = "".join(itertools.takewhile(_HEX.__contains__, digits))
            raise self.error(f"incomplete escape \\{kind}{seen}", position)
        return self.checked_code_point(position, int(digits, 16), i + width)

    def checked_code_point(self, position: int, code_point: int, end: int) -> _Escape:
        if code_point > 0x10FFFF:
            raise self.error(f"bad escape: U+{code_point:X} is beyond U+10FFFF", position)
        return _Escape("char", end, code_point)

    def numeric_escape(self, position: int, *, in_class: bool) -> _Escape:
        """Octal escapes and back-references, told apart exactly as ``re`` does."""
        p = self.pattern
        i = position + 1
        if p[i] == "0" or in_class:
            if p[i] not in _OCT:
                raise self.error(f"bad escape \\{p[i]}", position)
            end = i + 1
            while end < len(p) and end < i + 3 and p[end] in _OCT:
                end += 1
            return self.octal(position, p[i:end], end)
        digits = p[i:i + 3]
        if len(digits) == 3 and set(digits) <= _OCT:
            return self.octal(position, digits, i + 3)
        raise self.error("back-references (\\1 ...) are not supported", position)

    def octal(self, position: int, digits: str, end: int) -> _Escape:
        value = int(digits, 8)
        if value > 0o377:
            raise self.error(f"octal escape value \\{digits} outside of range 0-0o377", position)
        return _Escape("char", end, value)

    # -- classes -----------------------------------------------------------------------
    def read_class(self, position: int) -> tuple[CodePointSet, int]:
        """``[...]`` starting at ``position`` -> (its set, the index after ``]``), memoised by
        the class's text (see ``_CLASS_MEMO``)."""
        end = _class_end(self.pattern, position)
        key = (self.pattern[position:end], self.flags.ignore_case)
        chars = _CLASS_MEMO.get(key)
        if chars is None:
            chars, parsed_end = self.parse_class(position)
            if parsed_end == end and end - position <= _CLASS_MEMO_TEXT:  # same text, same set
                if len(_CLASS_MEMO) >= _CLASS_MEMO_SIZE:
                    _CLASS_MEMO.clear()
                _CLASS_MEMO[key] = chars
            end = parsed_end
        return chars, end

    def parse_class(self, position: int) -> tuple[CodePointSet, int]:
        """``[...]`` starting at ``position`` -> (its set, the index after ``]``)."""
        p = self.pattern
        i = position + 1
        negate = p.startswith("^", i)
        i += negate
        pairs: list[tuple[int, int]] = []
        escapes: list[CodePointSet] = []
        first = True
        while True:
            if i >= len(p):
                raise self.error("unterminated character set", position)
            if p[i] == "]" and not first:
                i += 1
                break
            first = False
            item_pos = i
            item, i = self.class_item(i)
            if p.startswith("-", i) and i + 1 < len(p) and p[i + 1] != "]":
                high, i = self.class_item(i + 1)
                if isinstance(item, CodePointSet) or isinstance(high, CodePointSet) or high < item:
                    raise self.error(f"bad character range {p[item_pos:i]}", item_pos)
                pairs.append((item, high))
            elif isinstance(item, CodePointSet):
                escapes.append(item)
            else:
                pairs.append((item, item))
            if p.startswith("-]", i):
                pairs.append((0x2D, 0x2D))
                i += 1
        literal = CodePointSet.from_pairs(pairs)
        if self.flags.ignore_case:
            literal = fold_case(literal)
        chars = literal.union(*escapes) if escapes else literal
        return (chars.complement() if negate else chars), i

    def class_item(self, i: int) -> tuple[int | CodePointSet, int]:
        """One member of a class: a code point, or the set of a class escape."""
        if self.pattern[i] != "\\":
            return ord(self.pattern[i]), i + 1
        esc = self.read_escape(i, in_class=True)
        if esc.kind == "set":
            return esc.chars, esc.end
        return esc.code_point, esc.end


def _class_end(pattern: str, position: int) -> int:
    """Where the class at ``position`` seems to end: after the first ``]`` that is neither the
    class's first member nor escaped (the exact end comes from parsing; see ``read_class``)."""
    i = position + 1
    i += pattern.startswith("^", i)
    i += pattern.startswith("]", i)
    while (close := pattern.find("]", i)) >= 0:
        backslash = pattern.find("\\", i, close)
        if backslash < 0:
            return close + 1
        i = backslash + 2
    return len(pattern)


def _apply_flags(flags: _Flags, added: str, removed: str) -> _Flags:
    for letters, value in ((added, True), (removed, False)):
        if "i" in letters:
            flags = replace(flags, ignore_case=value)
        if "s" in letters:
            flags = replace(flags, dot_all=value)
    return flags


def normalize(pattern: str, *, source: str = "<regex>") -> NormalizedPattern:
    """The tokens and character sets of ``pattern``; raises ``RegexError`` with the position."""
    return _Normalizer(pattern, source).run()

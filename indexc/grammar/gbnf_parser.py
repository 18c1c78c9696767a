"""llama.cpp GBNF text -> rule definitions (character-level recursive descent).

The syntax read is llama.cpp's (``grammars/README.md`` and its ``grammar-parser``):

- ``name ::= alternatives``; names are letters, digits, ``-`` and ``_``; ``root`` is the start;
- a rule ends at a newline outside parentheses, except right after ``::=`` or ``|`` (so
  ``statement ::=\\n  ( ... ) |\\n  ( ... )`` is one rule, as in ``c.gbnf``);
- sequences of ``"literal"``, ``[class]``, ``[^class]``, ``.``, names and ``( groups )``, each
  optionally followed by ``*``, ``+``, ``?``, ``{n}``, ``{n,}``, ``{n,m}`` (and ``{,m}``);
- escapes in literals and classes: ``\\xHH``, ``\\uHHHH``, ``\\UHHHHHHHH``, ``\\t \\r \\n \\\\ \\"
  \\[ \\]`` (and ``\\-``, ``\\^`` in classes); any other escape is an error, as in llama.cpp;
- ``#`` comments to the end of the line.

Character classes and ``.`` are Unicode code points (``.`` matches any character, newline
included, as in llama.cpp).  Refused with line and column: llama.cpp's token references
(``<[id]>``, ``<token>``), duplicate rules, empty classes, reversed ranges.
"""

from __future__ import annotations

from indexc.grammar.expression import EMPTY, Definition, Expr, Lexeme, Ref, Repeat, alternation, sequence
from indexc.grammar.ir import GrammarError
from indexc.grammar.lowering import MAX_REPEAT_COUNT
from indexc.grammar.regex_text import class_regex, literal_regex
from indexc.grammar.source_position import error_at

_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_")
_ESCAPES = {"t": "\t", "r": "\r", "n": "\n", "\\": "\\", '"': '"', "[": "[", "]": "]"}
_CLASS_ONLY_ESCAPES = {"-": "-", "^": "^"}
_HEX_LENGTH = {"x": 2, "u": 4, "U": 8}
ANY_CHARACTER = "(?s:.)"


def parse_gbnf_text(text: str, source: str) -> dict[str, Definition]:
    """The rules of a GBNF text, in order of definition."""
    return _Parser(text, source).parse()


class _Parser:
    def __init__(self, text: str, source: str):
        self.text = text
        self.source = source
        self.pos = 0

    def error(self, offset: int, message: str) -> GrammarError:
        return error_at(self.text, offset, message, self.source)

    def peek(self, length: int = 1) -> str:
        return self.text[self.pos : self.pos + length]

    def skip_space(self, newlines: bool) -> None:
        text = self.text
        while self.pos < len(text):
            char = text[self.pos]
            if char == "#":
                end = text.find("\n", self.pos)
                self.pos = len(text) if end < 0 else end
            elif char in " \t" or (newlines and char in "\r\n"):
                self.pos += 1
            else:
                return

    # --- rules -----------------------------------------------------------------------------

    def parse(self) -> dict[str, Definition]:
        rules: dict[str, Definition] = {}
        self.skip_space(newlines=True)
        while self.pos < len(self.text):
            start = self.pos
            name = self.name()
            self.skip_space(newlines=False)
            if not self.text.startswith("::=", self.pos):
                raise self.error(self.pos, f"expected '::=' after rule name {name!r}")
            self.pos += 3
            self.skip_space(newlines=True)
            body = self.alternatives(nested=False)
            if self.pos < len(self.text) and self.peek() not in "\r\n":
                raise self.error(self.pos, f"unexpected {self.peek()!r} (expected a newline or the end of the rule)")
            if name in rules:
                raise self.error(start, f"rule {name!r} is defined twice")
            rules[name] = Definition(name, body, start)
            self.skip_space(newlines=True)
        return rules

    def name(self) -> str:
        start = self.pos
        while self.pos < len(self.text) and self.text[self.pos] in _NAME_CHARS:
            self.pos += 1
        if self.pos == start:
            raise self.error(start, f"expected a rule name, found {self.peek()!r}")
        return self.text[start : self.pos]

    def alternatives(self, nested: bool) -> Expr:
        options = [self.sequence(nested)]
        while self.peek() == "|":
            self.pos += 1
            self.skip_space(newlines=True)
            options.append(self.sequence(nested))
        return alternation(options)

    def sequence(self, nested: bool) -> Expr:
        items: list[Expr] = []
        while self.pos < len(self.text):
            char, start = self.peek(), self.pos
            if char == '"':
                items.append(self.literal())
            elif char == "[":
                items.append(self.char_class())
            elif char == ".":
                self.pos += 1
                items.append(Lexeme(ANY_CHARACTER, ".", False, start))
            elif char == "(":
                self.pos += 1
                self.skip_space(newlines=True)
                body = self.alternatives(nested=True)
                if self.peek() != ")":
                    raise self.error(start, "unclosed '('")
                self.pos += 1
                items.append(body)
            elif char in _NAME_CHARS:
                items.append(Ref(self.name(), start))
            elif char in "*+?{":
                if not items:
                    raise self.error(start, f"{char!r} has nothing to repeat")
                items[-1] = self.repetition(items[-1])
            elif char == "<":
                raise self.error(start, "token references <...> are not supported")
            else:
                break
            self.skip_space(newlines=nested)
        return sequence(items)

    def repetition(self, item: Expr) -> Repeat:
        start, char = self.pos, self.peek()
        self.pos += 1
        if char != "{":
            return Repeat(item, *{"*": (0, None), "+": (1, None), "?": (0, 1)}[char])
        close = self.text.find("}", self.pos)
        if close < 0:
            raise self.error(start, "unclosed '{'")
        low_text, comma, high_text = self.text[self.pos : close].partition(",")
        self.pos = close + 1
        try:
            low = int(low_text.strip() or "0")
            high = int(high_text.strip()) if comma and high_text.strip() else (None if comma else low)
        except ValueError:
            raise self.error(start, "expected {n}, {n,}, {,m} or {n,m}") from None
        if high is not None and high < low:
            raise self.error(start, f"bad repetition bounds {{{low},{high}}}")
        if max(low, high or 0) > MAX_REPEAT_COUNT:
            raise self.error(start, f"repetition count above the limit of {MAX_REPEAT_COUNT}")
        return Repeat(item, low, high)

    # --- literals and classes --------------------------------------------------------------

    def literal(self) -> Expr:
        start = self.pos
        self.pos += 1
        chars: list[str] = []
        while self.peek() != '"':
            if self.pos >= len(self.text):
                raise self.error(start, "unterminated string literal")
            chars.append(self.char(in_class=False))
        self.pos += 1
        text = "".join(chars)
        return Lexeme(literal_regex(text), self.text[start : self.pos], True, start) if text else EMPTY

    def char_class(self) -> Lexeme:
        start = self.pos
        self.pos += 1
        negated = self.peek() == "^"
        if negated:
            self.pos += 1
        ranges: list[tuple[int, int]] = []
        while self.peek() != "]":
            if self.pos >= len(self.text):
                raise self.error(start, "unterminated character class")
            low_at = self.pos
            low = ord(self.char(in_class=True))
            high = low
            if self.peek() == "-" and self.peek(2)[1:] not in ("]", ""):
                self.pos += 1
                high = ord(self.char(in_class=True))
                if high < low:
                    raise self.error(low_at, "reversed range in character class")
            ranges.append((low, high))
        self.pos += 1
        if not ranges:
            raise self.error(start, "empty character class")
        return Lexeme(class_regex(ranges, negated), self.text[start : self.pos], False, start)

    def char(self, in_class: bool) -> str:
        """One (possibly escaped) character at ``pos``."""
        start = self.pos
        char = self.text[start]
        if char != "\\":
            self.pos += 1
            return char
        code = self.text[start + 1 : start + 2]
        if code in _HEX_LENGTH:
            digits = self.text[start + 2 : start + 2 + _HEX_LENGTH[code]]
            if len(digits) != _HEX_LENGTH[code] or any(c not in "0123456789abcdefABCDEF" for c in digits):
                raise self.error(start, f"bad escape \\{code}: expected {_HEX_LENGTH[code]} hex digits")
            if int(digits, 16) > 0x10FFFF:
                raise self.error(start, f"escape \\{code}{digits} is beyond U+10FFFF")
            self.pos = start + 2 + len(digits)
            return chr(int(digits, 16))
        escapes = {**_ESCAPES, **_CLASS_ONLY_ESCAPES} if in_class else _ESCAPES
        if code not in escapes:
            raise self.error(start, f"unknown escape \\{code}")
        self.pos = start + 2
        return escapes[code]

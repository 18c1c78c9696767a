"""The tokens of a Lark grammar text: names, strings, regexes, numbers, operators, newlines.

Lark ends a definition at a newline, except that a line may continue the previous one by
starting with ``|``.  This tokenizer makes that explicit so the parser stays a plain recursive
descent: it emits ``NL`` only outside brackets (a definition may span lines inside ``( )``,
``[ ]``, ``{ }``, as ``rfc.lark``'s ``TEXT`` does), and drops an ``NL`` that is followed by ``|``
or that follows ``|`` or ``:``.

Comments are ``//`` and ``#`` to the end of the line (Lark's own grammar and llguidance accept
both).  Strings are decoded here (Python escapes, as Lark reads them); a regex keeps its text
and flags.  llguidance-only syntax that has no Lark meaning — ``<special_token>``,
``@subgrammar``, the ``&`` operator — is refused here with its position, so the error points at
the construct rather than at whatever the parser would have tripped on next.
"""

from __future__ import annotations

from dataclasses import dataclass

from indexc.grammar.ir import GrammarError
from indexc.grammar.source_position import error_at

_NAME_START = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
_NAME_CHARS = _NAME_START | frozenset("0123456789")
_SINGLE_OPS = frozenset(":|()[]{},*+?~.!")
_OPENING = {"(": ")", "[": "]", "{": "}"}
_REGEX_FLAGS = frozenset("imslux")
_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "f": "\f", "v": "\v", "a": "\a", "b": "\b",
                   "\\": "\\", '"': '"', "'": "'", "\n": ""}
_HEX_ESCAPE_LENGTH = {"x": 2, "u": 4, "U": 8}
_LLGUIDANCE_ONLY = {
    "<": "special-token references <...> are an llguidance extension, not supported",
    "@": "subgrammar references @name are an llguidance extension, not supported",
    "&": "the & (and) operator is an llguidance extension, not supported",
}


@dataclass(frozen=True)
class Token:
    kind: str    # NAME, STRING, REGEX, NUMBER, OP, DIRECTIVE, NL, EOF
    text: str    # the source text (for OP and DIRECTIVE: the operator / "%name")
    offset: int
    value: object = None  # STRING: (decoded, ignore_case); REGEX: (pattern, flags); NUMBER: int


def tokenize(text: str, source: str) -> list[Token]:
    """The tokens of ``text``, ending with ``EOF``."""
    return _join_continued_lines(_Scanner(text, source).tokens())


class _Scanner:
    def __init__(self, text: str, source: str):
        self.text = text
        self.source = source
        self.pos = 0
        self.closers: list[str] = []

    def error(self, offset: int, message: str) -> GrammarError:
        return error_at(self.text, offset, message, self.source)

    def tokens(self) -> list[Token]:
        out: list[Token] = []
        while (token := self.next_token()) is not None:
            if token.kind == "NL" and (not out or out[-1].kind == "NL"):
                continue
            out.append(token)
        if self.closers:
            raise self.error(len(self.text), f"unclosed bracket: expected {self.closers[-1]!r} before the end")
        out.append(Token("EOF", "", len(self.text)))
        return out

    def next_token(self) -> Token | None:
        text = self.text
        while self.pos < len(text):
            start, char = self.pos, text[self.pos]
            if char in " \t\r\f" or (char == "\\" and text.startswith("\n", start + 1)):
                self.pos += 1 if char != "\\" else 2
            elif char == "#" or text.startswith("//", start):
                end = text.find("\n", start)
                self.pos = len(text) if end < 0 else end
            elif char == "\n":
                self.pos += 1
                if not self.closers:
                    return Token("NL", "\n", start)
            else:
                return self.lexeme(start, char)
        return None

    def lexeme(self, start: int, char: str) -> Token:
        text = self.text
        if char == '"':
            return self.string(start)
        if char == "/":
            return self.regex(start)
        if char.isdigit() or (char in "+-" and text[start + 1 : start + 2].isdigit()):
            end = start + 1
            while end < len(text) and text[end].isdigit():
                end += 1
            self.pos = end
            return Token("NUMBER", text[start:end], start, int(text[start:end]))
        if char in _NAME_START:
            return self.name(start, "NAME")
        if char == "%":
            self.pos += 1
            if self.pos >= len(text) or text[self.pos] not in _NAME_START:
                raise self.error(start, "expected a directive name after '%'")
            token = self.name(self.pos, "DIRECTIVE")
            return Token("DIRECTIVE", "%" + token.text, start)
        for op in ("..", "->"):
            if text.startswith(op, start):
                self.pos += 2
                return Token("OP", op, start)
        if char in _SINGLE_OPS:
            self.bracket(start, char)
            self.pos += 1
            return Token("OP", char, start)
        if char in _LLGUIDANCE_ONLY:
            raise self.error(start, _LLGUIDANCE_ONLY[char])
        raise self.error(start, f"unexpected character {char!r}")

    def bracket(self, start: int, char: str) -> None:
        if char in _OPENING:
            self.closers.append(_OPENING[char])
        elif char in ")]}":
            if not self.closers or self.closers[-1] != char:
                raise self.error(start, f"unbalanced {char!r}")
            self.closers.pop()

    def name(self, start: int, kind: str) -> Token:
        text, end = self.text, start + 1
        while end < len(text) and (
            text[end] in _NAME_CHARS or (text[end] == "-" and text[end + 1 : end + 2] in _NAME_CHARS)
        ):  # llguidance allows "-" inside names; "->" is never part of one
            end += 1
        self.pos = end
        return Token(kind, text[start:end], start)

    def string(self, start: int) -> Token:
        text, pos, chars = self.text, start + 1, []
        while True:
            if pos >= len(text) or text[pos] == "\n":
                raise self.error(start, "unterminated string literal")
            char = text[pos]
            if char == '"':
                break
            if char == "\\":
                decoded, pos = self.escape(pos)
                chars.append(decoded)
            else:
                chars.append(char)
                pos += 1
        pos += 1
        ignore_case = text.startswith("i", pos) and text[pos + 1 : pos + 2] not in _NAME_CHARS
        if ignore_case:
            pos += 1
        self.pos = pos
        return Token("STRING", text[start:pos], start, ("".join(chars), ignore_case))

    def escape(self, pos: int) -> tuple[str, int]:
        """Decode the escape at ``text[pos] == '\\'``: (text, position after it)."""
        text = self.text
        code = text[pos + 1 : pos + 2]
        if code in _SIMPLE_ESCAPES:
            return _SIMPLE_ESCAPES[code], pos + 2
        if code in _HEX_ESCAPE_LENGTH:
            digits = text[pos + 2 : pos + 2 + _HEX_ESCAPE_LENGTH[code]]
            if len(digits) != _HEX_ESCAPE_LENGTH[code] or any(c not in "0123456789abcdefABCDEF" for c in digits):
                raise self.error(pos, f"bad escape \\{code}: expected {_HEX_ESCAPE_LENGTH[code]} hex digits")
            value = int(digits, 16)
            if value > 0x10FFFF:
                raise self.error(pos, f"escape \\{code}{digits} is beyond U+10FFFF")
            return chr(value), pos + 2 + len(digits)
        if code and code in "01234567":
            end = pos + 1
            while end < pos + 4 and text[end : end + 1] and text[end] in "01234567":
                end += 1
            return chr(int(text[pos + 1 : end], 8)), end
        return "\\" + code, pos + 2  # Python keeps unknown escapes as written

    def regex(self, start: int) -> Token:
        text, pos = self.text, start + 1
        while True:
            if pos >= len(text) or text[pos] == "\n":
                raise self.error(start, "unterminated regular expression /.../")
            if text[pos] == "\\":
                pos += 2
                continue
            if text[pos] == "/":
                break
            pos += 1
        pattern = text[start + 1 : pos]
        if not pattern:
            raise self.error(start, "empty regular expression //")
        pos += 1
        flags_start = pos
        while pos < len(text) and text[pos] in _REGEX_FLAGS:
            pos += 1
        self.pos = pos
        return Token("REGEX", text[start:pos], start, (pattern, text[flags_start:pos]))


def _join_continued_lines(tokens: list[Token]) -> list[Token]:
    """Drop newlines before ``|`` and after ``|`` or ``:`` (a definition continues there)."""
    out: list[Token] = []
    for index, token in enumerate(tokens):
        if token.kind == "NL":
            following = tokens[index + 1]
            if following.kind == "OP" and following.text == "|":
                continue
            if out and out[-1].kind == "OP" and out[-1].text in ("|", ":"):
                continue
            if following.kind == "EOF":
                continue
        out.append(token)
    return out

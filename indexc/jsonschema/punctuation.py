"""The JSON punctuation and whitespace pieces every structured value is built from."""

from __future__ import annotations

from indexc.jsonschema.expr import Expr, Lex, Ws, alt, repeat, seq

OPEN_OBJECT, CLOSE_OBJECT = Lex("\\{"), Lex("\\}")
OPEN_ARRAY, CLOSE_ARRAY = Lex("\\["), Lex("\\]")


def separator(regex: str) -> Expr:
    """A separator regex with the whitespace policy on both sides."""
    return seq(Ws(), Lex(separator_lexeme(regex)), Ws())


def separator_lexeme(regex: str) -> str:
    """The separator's lexeme regex (grouped unless it is a plain ``,`` or ``:``)."""
    return f"(?:{regex})" if regex not in (",", ":") else regex


def structural_lexemes(item_separator: str, key_separator: str) -> frozenset[str]:
    """The regexes of the brackets and separators: short lexemes used all over a schema's
    grammar, which ``to_grammar`` copies per follow context (``indexc.grammar.follow_split``)."""
    brackets = (OPEN_OBJECT, CLOSE_OBJECT, OPEN_ARRAY, CLOSE_ARRAY)
    return frozenset([b.regex for b in brackets] + [separator_lexeme(item_separator), separator_lexeme(key_separator)])


def bracketed(open_: Expr, body_nonempty: Expr, may_be_empty: bool, close: Expr) -> Expr:
    """``open ws (body ws close | close)``: one whitespace run inside an empty container, not two;
    each run next to a bracket in the same sequence (the grammar path glues them: ``to_grammar``)."""
    inner = seq(body_nonempty, Ws(), close)
    return seq(open_, Ws(), alt(inner, close) if may_be_empty else inner)


def repeated_list(item: Expr, sep: Expr, low: int, high: int | None) -> tuple[Expr, bool]:
    """``item (sep item)*`` with a count in ``low..high``: (the non-empty form, may be empty)."""
    if high == 0:
        return seq(), True
    first = seq(item, repeat(seq(sep, item), max(low, 1) - 1, None if high is None else high - 1))
    return first, low == 0

"""Lazy quantifiers in Lark terminals: where ``re.match`` ends a lexeme, written as a greedy regex.

**Why.**  A lazy quantifier matches the same strings as a greedy one, so the regex compiler
drops its marker (``indexc.automaton.normalize``).  But Lark's lexer asks ``re.match`` for a
terminal's one match at a position, and there the marker decides the end: ``".*?"`` ends at the
first closing quote.  Without it the compiler built the DFA of ``".*"``, which longest match
cannot end (one byte of lookahead does not tell a closing quote from one inside), so ``STRING``
kept all splits: every quote on a line could end every string opened before it on that line.
In lark.lark's own text (a rule such as ``"." name ("." name)*``) each quote left a thread open
to the end of its line, and a 16 KB Lark file (``rfc.lark``) walked 46 threads a configuration
on average, its masks 0.8 ms each on average and up to 22 ms.

**The rule.**  A terminal regex of the form ``P C{m,}? s R`` is rewritten to the greedy
``P C{m} [C-s]* s R``, where ``P`` is a fixed string (each part one code point), ``C`` one
character set, ``s`` one code point and ``R`` anything that matches the empty string (no other
lazy quantifier in the whole regex).  That is exactly what ``re.match`` does: the lazy part
tries to stop before each character, and stopping succeeds at the first ``s`` after the
``m`` mandatory ones, because ``R`` then always matches (its own greedy end is longest match's,
``indexc.grammar.longest_match``).  ``"\\"" /.*?/ "\\""`` is ``"[^\\n"]*"``; ``STRING: _STRING "i"?``
keeps its optional flag.  The rewritten terminal's end is decided by one byte, so it ends by
longest match like any other.

**Not rewritten** (the terminal keeps the all-splits rule of ``longest_match``, a superset of
Lark's ends): a lazy part followed by more than one fixed character (``/\\*(.|\\n)*?\\*/``: ``re``
stops at the first ``*/``, a language this form cannot write), by a part that may fail (then
``re`` backtracks into the lazy part), a lazy part of several characters
(``(\\\\\\/|[^\\/])+?``: lark.lark's ``REGEXP``), a bounded one, a prefix that is not fixed,
or two lazy quantifiers.  The rewrite is applied to each terminal of a Lark file as the parser
sees it (named terminals expanded in place), never to a terminal used inside another: there
the context after it decides where ``re`` stops.
"""

from __future__ import annotations

from indexc.automaton.code_point_sets import CodePointSet
from indexc.automaton.normalize import normalize
from indexc.automaton.parse import parse_structure
from indexc.automaton.regex_tree import Alternation, Chars, Concat, Node, Repeat
from indexc.errors import RegexError
from indexc.grammar.expression import quantifier_text
from indexc.grammar.regex_text import class_regex, group, regex_char


def first_match_regex(regex: str) -> str | None:
    """The greedy regex of ``regex``'s ``re.match`` ends (see the module note), or None where
    ``regex`` has no lazy quantifier or is not of the form rewritten (or does not parse: the
    compiler reports that)."""
    try:
        normalized = normalize(regex)
    except RegexError:
        return None
    if not normalized.lazy:
        return None
    sets = list(normalized.char_sets)
    parts = list(_flat(parse_structure(normalized)))
    lazy = [k for k, part in enumerate(parts) if isinstance(part, Repeat) and part.lazy]
    if len(normalized.lazy) != 1 or len(lazy) != 1:
        return None
    k = lazy[0]
    repeat = parts[k]
    if not (isinstance(repeat.body, Chars) and repeat.max is None and k + 1 < len(parts)
            and all(_one_code_point(part, sets) for part in parts[:k + 2] if part is not repeat)
            and all(_nullable(part) for part in parts[k + 2:])):
        return None
    stop = sets[parts[k + 1].set_index]
    rest = sets[repeat.body.set_index].difference(stop)
    head = [repeat.body] * repeat.min
    if not rest.is_empty():
        sets.append(rest)
        head.append(Repeat(Chars(len(sets) - 1), 0, None))
    return "".join(group(_text(part, sets)) for part in parts[:k] + head + parts[k + 1:])


def _flat(node: Node):
    """The parts of a top-level concatenation, nested ones spliced in."""
    if isinstance(node, Concat):
        for part in node.parts:
            yield from _flat(part)
    else:
        yield node


def _one_code_point(node: Node, sets: list[CodePointSet]) -> bool:
    return isinstance(node, Chars) and len(sets[node.set_index]) == 1


def _nullable(node: Node) -> bool:
    if isinstance(node, Chars):
        return False
    if isinstance(node, Concat):
        return all(map(_nullable, node.parts))
    if isinstance(node, Alternation):
        return any(map(_nullable, node.options))
    return node.min == 0 or _nullable(node.body)


def _text(node: Node, sets: list[CodePointSet]) -> str:
    """A tree as regex text in indexc's dialect (the lazy markers of its parts left out: only
    a tree without a lazy quantifier but the rewritten one is printed)."""
    if isinstance(node, Chars):
        code_points = sets[node.set_index]
        pairs = list(code_points.pairs())
        return regex_char(pairs[0][0]) if len(code_points) == 1 else class_regex(pairs)
    if isinstance(node, Concat):
        return "".join(group(_text(part, sets)) for part in node.parts)
    if isinstance(node, Alternation):
        return "|".join(_text(option, sets) for option in node.options)
    return group(_text(node.body, sets)) + quantifier_text(node.min, node.max)

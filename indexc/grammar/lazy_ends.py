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

**The escaped form** (session 31).  A lazy part of escape pairs then one character set,
``P (e x1|...|e xk|C){m,}? s R`` with ``m`` 0 or 1, the pairs written first, one escape ``e``
that is in ``C`` and escapes itself and the stop (``e`` and ``s`` among the ``x``), ``s`` not in
``C``, is rewritten to ``P (?:[C-e]|e[X|C]){m,} s R`` (``X`` the escaped characters).
``re.match`` tries the stop first, then the pairs, then ``C``: its first try reads an ``e``
and the character after it as one unit (``e`` then a character of ``C`` outside ``X`` is the
same two units), and stops at the first ``s`` left bare, which ends the match.  That is
lark.lark's ``REGEXP`` (``/\\/(\\\\\\/|\\\\\\\\|[^\\/])+?\\/[imslux]*/``: a slash not
escaped ends it, its flags are read greedily, by longest match).  **The one difference:** where
no bare ``s`` comes in the rest of the text (``/a\\/`` and no slash after it in the whole
document), or a character the lazy part cannot read comes first, ``re`` backtracks into the
last pair and ends at its escaped ``s``; the rewrite has no end there, so such a document is
refused where Lark reads it.  Before, ``REGEXP`` kept all splits, which let it end at every
escaped slash and before every flag letter: lark.lark's sample's two masks after a regex cost
1.4-2.1 ms in a fresh process, one ~1.1-1.3 ms now and the other gone (the sample's masks in
all 11-13 -> 8-9.5 ms).

**Not rewritten** (the terminal keeps the all-splits rule of ``longest_match``, a superset of
Lark's ends): a lazy part followed by more than one fixed character (``/\\*(.|\\n)*?\\*/``: ``re``
stops at the first ``*/``, a language this form cannot write), by a part that may fail (then
``re`` backtracks into the lazy part), a lazy part of several characters not of the escaped form
(``(\\\\\\/|[^\\/])+?``: ``\\\\/`` is an escape then a bare stop, not a pair), a bounded
one, a prefix that is not fixed, or two lazy quantifiers.  The rewrite is applied to each
terminal of a Lark file as the parser sees it (named terminals expanded in place), never to a
terminal used inside another: there the context after it decides where ``re`` stops.
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
    if not (repeat.max is None and k + 1 < len(parts)
            and all(_one_code_point(part, sets) for part in parts[:k + 2] if part is not repeat)
            and all(_nullable(part) for part in parts[k + 2:])):
        return None
    stop = sets[parts[k + 1].set_index]
    if isinstance(repeat.body, Chars):
        head = _stopped_run(repeat, stop, sets)
    else:
        head = _escaped_run(repeat, stop, sets)
        if head is None:
            return None
    return "".join(group(_text(part, sets)) for part in parts[:k] + head + parts[k + 1:])


def _stopped_run(repeat: Repeat, stop: CodePointSet, sets: list[CodePointSet]) -> list[Node]:
    """``C{m,}?`` before ``s``: ``C{m} [C-s]*`` (``sets`` gains ``C-s``)."""
    head = [repeat.body] * repeat.min
    rest = sets[repeat.body.set_index].difference(stop)
    if not rest.is_empty():
        sets.append(rest)
        head.append(Repeat(Chars(len(sets) - 1), 0, None))
    return head


def _escaped_run(repeat: Repeat, stop: CodePointSet, sets: list[CodePointSet]) -> list[Node] | None:
    """``(e x1|...|e xk|C){m,}?`` before ``s`` (``m`` 0 or 1): ``(?:[C-e]|e[X|C]){m,}``, or None
    where the lazy part is not of that form (see the module note; ``sets`` gains two sets)."""
    options = repeat.body.options if isinstance(repeat.body, Alternation) else ()
    pairs, last = options[:-1], options[-1] if options else None
    if not (repeat.min in (0, 1) and pairs and isinstance(last, Chars)
            and all(isinstance(pair, Concat) and len(pair.parts) == 2
                    and all(_one_code_point(part, sets) for part in pair.parts) for pair in pairs)):
        return None
    escape = {sets[pair.parts[0].set_index] for pair in pairs}
    if len(escape) != 1:
        return None
    escape_set = escape.pop()
    escaped = CodePointSet.empty().union(*(sets[pair.parts[1].set_index] for pair in pairs))
    units = sets[last.set_index]
    (e,) = (low for low, _ in escape_set.pairs())
    (s,) = (low for low, _ in stop.pairs())
    if not (e in units and e in escaped and s in escaped and s not in units and s != e):
        return None
    sets += [units.difference(escape_set), escaped.union(units)]
    single, pair = Chars(len(sets) - 2), Concat((pairs[0].parts[0], Chars(len(sets) - 1)))
    return [Repeat(Alternation((single, pair)), repeat.min, None)]


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

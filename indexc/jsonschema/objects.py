"""Objects: listed properties in schema order, then the other keys (additional, pattern).

The accepted text lists the ``properties`` in the order the schema gives them (llguidance's
choice, which MaskBench follows), each optional unless ``required``; required names that
``properties`` does not list come next, each with the schema of the ``patternProperties``
matching it, else ``additionalProperties`` (``_unlisted_value``).  Keys allowed by
``patternProperties`` or ``additionalProperties`` follow in any order and number.  Keeping the
listed properties in order keeps the automaton linear in their number: any order of ``n``
optional properties would need a state per *subset* already seen, ``2**n``.

The sequence with separators is built from suffixes (``_separated``): "what may follow once
something was written" shares one expression per position, and only a run of leading
optional properties (before the first required one) repeats it per starting point; the regex
text of an object with ``n`` optional properties and none required is ``O(n**2)``, its DFA
``O(n)``.

An additional key must differ from every listed name (or ``{"a": 1, "a": "x"}`` would slip a
second, unchecked ``a`` through): ``_key_not_in`` spells "a string not in this finite set"
from the trie of the names.  A pattern key is not checked against the listed names; an additional
key beside ``patternProperties`` must match none of the patterns, a complement that
``complement`` writes as a regex when it is small, and otherwise an ``Intersection`` lexeme
with the patterns ``excluded`` (built on automata by each path).

``minProperties``/``maxProperties`` are enforced when every listed property is required (they
then bound the number of other keys), when they are implied, and for "at least one"
(``minProperties: 1``) over optional properties; otherwise refused.
"""

from __future__ import annotations

import functools

import numpy as np

from indexc.automaton.code_point_sets import CodePointSet
from indexc.jsonschema.keywords import count_keyword
from indexc.jsonschema.merge import has_assertions
from indexc.jsonschema.complement import Unrepresentable, keys_outside
from indexc.jsonschema.errors import child_pointer
from indexc.jsonschema.expr import (EMPTY_SET, EPSILON, Expr, Intersection, Lex, Ws, alt, is_empty_set, optional, repeat,
                                    seq)
from indexc.jsonschema.json_text import (ALL_CHARS, ANY_CHAR, ANY_CHAR_RUN_UNIT, RAW_ONLY, char_class, encoded_char, literal_string,
                                         literal_string_body)
from indexc.jsonschema.patterns import PatternError, translate_pattern
from indexc.jsonschema.punctuation import CLOSE_OBJECT, OPEN_OBJECT, bracketed
from indexc.jsonschema.validator import CannotDecide, pattern_matches


def lower_object(lw, schema: dict, pointer: str) -> Expr:
    properties = schema.get("properties", {})
    required = schema.get("required", [])
    if not isinstance(properties, dict):
        raise lw.error("properties must be an object", child_pointer(pointer, "properties"))
    if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
        raise lw.error("required must be an array of strings", child_pointer(pointer, "required"))
    additional = schema.get("additionalProperties", True)
    names = list(properties) + [r for r in dict.fromkeys(required) if r not in properties]
    slots: list[tuple[Expr, bool]] = []
    for name in names:
        if name in properties:
            value = lw.lower(properties[name], child_pointer(pointer, "properties", name))
        else:
            value = _unlisted_value(lw, schema, name, additional, pointer)
        is_required = name in required
        if is_empty_set(value):
            if is_required:
                return EMPTY_SET
            continue
        slots.append((seq(Lex(literal_string(name)), lw.key_sep, value), is_required))
    extra = _extra_members(lw, schema, names, additional, pointer)
    return _with_counts(lw, schema, slots, extra, pointer)


def _unlisted_value(lw, schema: dict, name: str, additional: object, pointer: str) -> Expr:
    """The value of a required name that ``properties`` does not list: what every
    ``patternProperties`` pattern matching the name says (all of them), else
    ``additionalProperties``, as JSON Schema validates it.  Until session 25 it was
    ``additionalProperties`` alone, so ``"required": ["label"]`` beside a ``^label`` pattern and
    ``additionalProperties: false`` matched nothing, and a valid instance was refused
    (MaskBench's o62947, whose images carry a required ``label``)."""
    matching = [(pattern, sub) for pattern, sub in schema.get("patternProperties", {}).items()
                if _pattern_matches(pattern, name)]
    if not matching:
        return lw.lower(additional, child_pointer(pointer, "additionalProperties"))
    if len(matching) == 1:
        pattern, sub = matching[0]
        return lw.lower(sub, child_pointer(pointer, "patternProperties", pattern))
    return lw.lower({"allOf": [sub for _, sub in matching]}, child_pointer(pointer, "patternProperties"))


def _pattern_matches(pattern: str, name: str) -> bool:
    """Does ``pattern`` match somewhere in ``name``, as the validator decides it for a key (an
    unreadable pattern matches nothing here: ``_extra_members`` refuses it)."""
    try:
        return pattern_matches(pattern, name)
    except CannotDecide:
        return False


def _extra_members(lw, schema: dict, names: list[str], additional: object, pointer: str) -> Expr:
    """One member allowed by ``patternProperties`` or ``additionalProperties`` (EMPTY_SET: none)."""
    options = []
    patterns = {pattern: sub for pattern, sub in schema.get("patternProperties", {}).items()
                if not (_is_anything(sub) and _is_anything(additional))}
    readable: dict[str, str] = {}  # pattern -> its JSON-text key regex
    for pattern, sub in patterns.items():
        sub_pointer = child_pointer(pointer, "patternProperties", pattern)
        try:
            readable[pattern] = translate_pattern(pattern).body_regex
        except PatternError as error:
            lw.unsupported(str(error), sub_pointer, "patternProperties")
            continue
        options.append(seq(Lex(f'"(?:{readable[pattern]})"'), lw.key_sep, lw.lower(sub, sub_pointer)))
    if additional is not False:
        key = _additional_key(readable, names)
        if key is not None:
            value = lw.lower(additional, child_pointer(pointer, "additionalProperties"))
            options.append(seq(key, lw.key_sep, value))
    return alt(*options)


def _is_anything(schema: object) -> bool:
    """``true``, ``{}`` or annotations only.  A pattern whose schema is this, beside
    ``additionalProperties`` that is this too, changes nothing (its keys may hold anything
    either way), so it is dropped before the key complement is computed (``"^.{1,255}$": {}``
    has a 257-state complement, beyond ``complement.MAX_STATES``)."""
    return schema is True or (isinstance(schema, dict) and not has_assertions(schema))


def _additional_key(patterns: dict[str, str], names: list[str]) -> Expr | None:
    """The key lexeme of additional properties (None: no key is left for them).

    Beside patterns it is a complement: a regex when ``complement`` can write one, else an
    ``Intersection`` lexeme "any key, excluding each pattern's keys and the listed names",
    which both paths build on automata (``patterns`` maps each readable pattern to its key
    regex; unreadable ones were refused, or dropped in lenient mode, by the caller)."""
    if not patterns:
        return Lex(f'"(?:{_key_not_in(names)})"')
    try:
        key = keys_outside(list(patterns), names)
        return None if key is None else Lex(f'"(?:{key})"')
    except Unrepresentable:
        excluded = [f'"(?:{key_regex})"' for key_regex in patterns.values()]
        excluded += [literal_string(name) for name in names]
        return Intersection((f'"(?:{ANY_CHAR})*"',), tuple(excluded))


def _with_counts(lw, schema: dict, slots: list[tuple[Expr, bool]], extra: Expr, pointer: str) -> Expr:
    low = count_keyword(lw, schema, "minProperties", pointer) or 0
    high = count_keyword(lw, schema, "maxProperties", pointer)
    n_required = sum(1 for _, r in slots if r)
    n_optional = len(slots) - n_required
    has_extra = not is_empty_set(extra)
    nonempty = False
    extra_low, extra_high = 0, None
    if n_optional == 0:
        extra_low = max(0, low - n_required)
        extra_high = None if high is None else high - n_required
        if extra_high is not None and extra_high < 0:
            return EMPTY_SET
    elif (low <= n_required) and (high is None or (not has_extra and high >= len(slots))):
        pass  # implied
    elif low == 1 and n_required == 0 and (high is None or (not has_extra and high >= len(slots))):
        nonempty = True
    else:
        lw.unsupported("minProperties/maxProperties over optional properties", pointer, "minProperties")
    if not has_extra:
        if extra_low > 0:
            return EMPTY_SET
        extra_high = 0
    tail = None if extra_high == 0 else (extra, extra_low, extra_high)
    body = _separated(slots, tail, lw.item_sep, nonempty=True)
    may_be_empty = not nonempty and n_required == 0 and extra_low == 0
    if is_empty_set(body):
        return seq(OPEN_OBJECT, Ws(), CLOSE_OBJECT) if may_be_empty else EMPTY_SET
    return bracketed(OPEN_OBJECT, body, may_be_empty, CLOSE_OBJECT)


def _separated(slots: list[tuple[Expr, bool]], tail: tuple[Expr, int, int | None] | None, sep: Expr,
               *, nonempty: bool) -> Expr:
    """The members in slot order, each optional unless required, then ``tail`` repeated.

    ``after[i]``: the members from slot ``i`` on once something was written (each preceded by
    ``sep``); the result: the first member written, at some slot, then ``after`` the next one.
    """
    after = [EPSILON] * (len(slots) + 1)
    if tail is not None:
        item, low, high = tail
        after[-1] = repeat(seq(sep, item), low, high)
    for i in range(len(slots) - 1, -1, -1):
        member, required = slots[i]
        step = seq(sep, member)
        after[i] = seq(step if required else optional(step), after[i + 1])
    first = _first_of_tail(tail, sep, nonempty)
    for i in range(len(slots) - 1, -1, -1):
        member, required = slots[i]
        started = seq(member, after[i + 1])
        first = started if required else alt(started, first)
    return first


def _first_of_tail(tail, sep: Expr, nonempty: bool) -> Expr:
    if tail is None:
        return EMPTY_SET if nonempty else EPSILON
    item, low, high = tail
    if high == 0:
        return EMPTY_SET if nonempty else EPSILON
    started = seq(item, repeat(seq(sep, item), max(low, 1) - 1, None if high is None else high - 1))
    return started if nonempty or low >= 1 else alt(started, EPSILON)


def _key_not_in(names: list[str]) -> str:
    """Regex for the JSON text (inside the quotes) of every string that is not one of ``names``."""
    trie: dict = {}
    for name in names:
        node = trie
        for c in name:
            node = node.setdefault(c, {})
        node[""] = {}
    return _not_in_trie(trie)


def _not_in_trie(node: dict) -> str:
    options = []
    if "" not in node:
        options.append("")
    children = [c for c in node if c]
    options.append(f"(?:{_encoded_except(tuple(sorted(ord(c) for c in children)))})(?:{ANY_CHAR_RUN_UNIT})*")
    for c in children:
        options.append(literal_string_body(c) + f"(?:{_not_in_trie(node[c])})")
    if options[0] == "":
        return "(?:" + "|".join(options[1:]) + ")?"
    return "|".join(options)


@functools.lru_cache(maxsize=4096)
def _encoded_except(code_points: tuple[int, ...]) -> str:
    """One character of a key that differs from every character in ``code_points``.

    When those are all printable ASCII (the usual case: property names), they have no
    ``\\uXXXX`` spelling under the ``json_text`` policy, so any ``\\uXXXX`` is another
    character and a short class does (a few atoms instead of the ~15 of the exact hex
    ranges; the regex front end parsed a 119-property object's key for 11 s before).
    """
    excluded = CodePointSet.of(*code_points) if code_points else CodePointSet(np.empty((0, 2), np.int64))
    if not code_points or not excluded.difference(RAW_ONLY).is_empty():
        return encoded_char(ALL_CHARS.difference(excluded))
    raw = char_class(ALL_CHARS.difference(excluded).difference(_NEVER_RAW))
    short = "".join(_SHORT_ESCAPE_TEXT[cp] for cp in sorted(_SHORT_ESCAPE_TEXT) if cp not in excluded)
    return f'{raw}|\\\\[{short}]|\\\\u[0-9a-fA-F]{{4}}'


_NEVER_RAW = CodePointSet.from_pairs([(0x00, 0x1F), (0x22, 0x22), (0x5C, 0x5C)])
_SHORT_ESCAPE_TEXT = {0x22: '"', 0x5C: "\\\\", 0x2F: "\\/", 0x08: "b", 0x0C: "f", 0x0A: "n", 0x0D: "r", 0x09: "t"}

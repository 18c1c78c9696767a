"""``not`` and the dependency keywords: constraints rewritten into ones that have a regular form.

A regex cannot complement a sub-language in place, but the ``not`` schemas that real
schemas use are mostly simple (counts from the MaskBench dev split: ``not: {}`` 21 times,
``not: {type: ...}``, ``not: {required: [...]}`` a few each):

- ``not: {}`` / ``not: true``: nothing is valid (the schema is ``false``);
- ``not: false``: no constraint;
- ``not: {type: T}``: the types other than ``T`` (``integer`` cannot be removed from
  ``number`` this way: refused);
- ``not: {required: [a, b]}``: objects without ``a`` or without ``b`` (an ``anyOf`` of
  ``properties: {a: false}`` and ``properties: {b: false}``); ``not: {anyOf: [{required: [a]},
  {required: [b, c]}]}``: objects without ``a`` and without one of ``b``, ``c``, one
  alternative per choice (``one_absent_each``, at most ``MAX_ABSENT_CHOICES``).  Only objects:
  ``required`` says nothing about other types, so they match the negated schema and the
  ``not`` rejects them (before session 8 they were let through: invalid instances accepted);
- ``not: {pattern: P}``: the strings in which ``P`` does not match (a non-string matches
  ``pattern`` vacuously, so the ``not`` rejects it), carried to ``strings`` as
  ``EXCLUDED_PATTERNS`` and built as the ``excluded`` part of an ``Intersection`` lexeme
  (MaskBench: three Github_ultra schemas' names, not made only of punctuation and spaces);
  ``not: {anyOf: [{pattern: P}, {pattern: Q}]}`` (two ``not``s merged) excludes both;
- ``not: {enum: [...]}`` / ``not: {const: v}`` of strings only: each value excluded as the
  anchored pattern of its text (other types are unaffected: they are not in the enum);
  values of other types are refused (for now).

``apply_not`` returns the schema with the ``not`` folded in, or None when the negation has no
such form (the caller then refuses it with its pointer, or ignores it in lenient mode).
"""

from __future__ import annotations

from indexc.jsonschema.keywords import EXCLUDED_PATTERNS
from indexc.jsonschema.merge import ALL_TYPES, Flattener, has_assertions, normalize_legacy



def apply_not(schema: dict, flattener: Flattener, pointer: str) -> dict | bool | None:
    negated = schema["not"]
    rest = {k: v for k, v in schema.items() if k != "not"}
    if negated is False:
        return rest
    if negated is True or (isinstance(negated, dict) and not has_assertions(negated)):
        return False
    if not isinstance(negated, dict):
        return None
    flat = flattener.flatten(negated, pointer + "/not")
    if flat is True:
        return False
    if flat is False:
        return rest
    flat = {k: v for k, v in normalize_legacy(flat).items() if has_assertions({k: v})}
    if set(flat) == {"type"}:
        return _without_types(rest, flat["type"])
    literals = _string_literals_of(flat)
    if literals is not None:
        return {**rest, EXCLUDED_PATTERNS: [*rest.get(EXCLUDED_PATTERNS, []), *literals]}
    patterns = _patterns_of(flat)
    if patterns is not None:
        strings = _only_type(rest, "string")
        return {**strings, EXCLUDED_PATTERNS: [*strings.get(EXCLUDED_PATTERNS, []), *patterns]}
    absent = _absent_alternatives(flat)
    if absent is None:
        return None
    objects = _only_type(rest, "object")
    if len(absent) > 1:
        branches = {"anyOf": [{"properties": {name: False for name in names}} for names in absent]}
        return {**objects, "allOf": [*objects.get("allOf", []), branches]}
    properties = dict(objects.get("properties", {}))
    for name in absent[0] if absent else ():
        properties[name] = False
    return {**objects, "properties": properties} if absent else False


def _only_type(rest: dict, kept: str) -> dict:
    """``rest`` for values of type ``kept`` only (the types the negated schema holds vacuously go)."""
    return _without_types(rest, [t for t in ALL_TYPES if t != kept])


def _without_types(rest: dict, removed: object) -> dict | None:
    removed_set = {removed} if isinstance(removed, str) else set(removed)
    current = rest.get("type", list(ALL_TYPES))
    current_set = {current} if isinstance(current, str) else set(current)
    if "number" in removed_set:
        removed_set.add("integer")
    if "integer" in removed_set and "number" in current_set and "number" not in removed_set:
        return None
    return {**rest, "type": [t for t in ALL_TYPES if t in current_set and t not in removed_set]}


_ECMA_SPECIAL = frozenset("\\^$.|?*+()[]{}/")


def _string_literals_of(flat: dict) -> list[str] | None:
    """``flat`` = "one of these strings": each as an anchored ECMA pattern of exactly its text."""
    declared = flat.get("type", "string")
    strings_typed = declared == "string" or (isinstance(declared, list) and "string" in declared)
    values = flat.get("enum") if set(flat) <= {"enum", "type"} and strings_typed else None  # {type: string, enum} too
    if not isinstance(values, list) or not values or not all(isinstance(v, str) for v in values):
        return None
    return ["^" + "".join("\\" + c if c in _ECMA_SPECIAL else c for c in value) + "$" for value in values]


def _patterns_of(flat: dict) -> list[str] | None:
    """The patterns P such that ``flat`` = "a string in which some P matches", else None."""
    branches = flat["anyOf"] if set(flat) == {"anyOf"} and isinstance(flat["anyOf"], list) else [flat]
    if not all(isinstance(b, dict) and set(b) == {"pattern"} and isinstance(b["pattern"], str) for b in branches):
        return None
    return [b["pattern"] for b in branches] or None


MAX_ABSENT_CHOICES = 64


def _absent_alternatives(flat: dict) -> list[frozenset[str]] | None:
    """``not flat`` for an object, as alternatives of names that must all be absent: ``flat`` is
    ``required: R`` (one alternative per name of R) or an ``anyOf`` of such (one name of each);
    None for any other shape or past ``MAX_ABSENT_CHOICES``."""
    if set(flat) == {"required"}:
        required = [_required_names(flat)]
    elif set(flat) == {"anyOf"} and isinstance(flat["anyOf"], list):
        required = [_required_names(b) if isinstance(b, dict) and set(b) == {"required"} else None
                    for b in flat["anyOf"]]
    else:
        return None
    if any(names is None for names in required):
        return None
    return one_absent_each(required)


def _required_names(schema: dict) -> frozenset[str] | None:
    names = schema["required"]
    if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
        return None
    return frozenset(names)


def one_absent_each(key_sets: list[frozenset[str]]) -> list[frozenset[str]] | None:
    """Every way to pick one name of each set (the names left out of an object so that none of
    the sets is complete), deduplicated, in a fixed order; none if a set is empty; None past
    ``MAX_ABSENT_CHOICES``."""
    choices = {frozenset()}
    for keys in key_sets:
        choices = {chosen | {name} for chosen in choices for name in keys}
        if len(choices) > MAX_ABSENT_CHOICES:
            return None
    return sorted(choices, key=sorted)


DEPENDENCY_KEYWORDS = ("dependencies", "dependentRequired", "dependentSchemas")


def dependencies_as_branches(schema: dict) -> dict | None:
    """``dependentRequired``/``dependentSchemas`` (and draft-4 ``dependencies``) as ``anyOf``s.

    "If ``a`` is present, so are ``b`` and ``c``" is exactly "``a`` is absent, or ``a``, ``b``
    and ``c`` are all present": ``anyOf: [{properties: {a: false}}, {required: [a, b, c]}]``
    (both branches say nothing about non-objects, as the keyword does).  The branches are
    merged with the rest of the schema by the usual ``allOf`` machinery, so properties keep
    their schema order.  None when a value is malformed (the caller reports it).
    """
    branches = []
    for keyword in DEPENDENCY_KEYWORDS:
        table = schema.get(keyword, {})
        if not isinstance(table, dict):
            return None
        for name, dependency in table.items():
            absent = {"properties": {name: False}}
            if isinstance(dependency, list):
                present = {"required": [name, *dependency]}
            elif isinstance(dependency, (dict, bool)):
                present = {"required": [name], "allOf": [dependency]}
            else:
                return None
            branches.append({"anyOf": [absent, present]})
    rest = {k: v for k, v in schema.items() if k not in DEPENDENCY_KEYWORDS}
    return {**rest, "allOf": [*rest.get("allOf", []), *branches]} if branches else rest

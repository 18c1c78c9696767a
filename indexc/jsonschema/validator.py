"""A small JSON Schema validator, for the one place where values are finite: ``enum``/``const``.

When a schema lists its values, whatever else it says (``not``, ``uniqueItems``,
``dependencies``, ``if``/``then``...) can be decided value by value, so those keywords need no
regular form there: ``literals`` keeps exactly the listed values this validator accepts.  It
follows draft 2020-12 (with the draft-4 spellings ``merge.normalize_legacy`` knows): numbers
compared as decimals, lengths in code points, ``pattern`` as an ECMA search (``\\d`` ASCII),
known ``format``s as the same regexes the automaton uses, unknown keywords ignored.
``$ref`` resolves in the document; recursion deeper than ``MAX_DEPTH`` raises
``CannotDecide`` and the caller falls back to the simpler filter.
"""

from __future__ import annotations

import re
from decimal import Decimal

from indexc.jsonschema.document import SchemaDocument
from indexc.jsonschema.merge import json_key, normalize_legacy
from indexc.jsonschema.patterns import FORMATS, ecma_to_python

MAX_DEPTH = 200


class CannotDecide(Exception):
    """The validator cannot evaluate this schema (too deep, a bad regex)."""


def is_valid(value: object, schema: object, document: SchemaDocument, depth: int = 0) -> bool:
    if depth > MAX_DEPTH:
        raise CannotDecide("schema nesting too deep")
    if schema is True or schema == {}:
        return True
    if schema is False:
        return False
    if not isinstance(schema, dict):
        raise CannotDecide("not a schema")
    s = normalize_legacy(schema)
    if "$ref" in s:
        _, target = document.resolve(s["$ref"], pointer="#")
        if not is_valid(value, target, document, depth + 1):
            return False
    checks = (_type_ok, _enum_ok, _number_ok, _string_ok, _array_ok, _object_ok, _logic_ok)
    return all(check(value, s, document, depth) for check in checks)


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "integer" if float(value).is_integer() else "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def _type_ok(value, s, document, depth) -> bool:
    declared = s.get("type")
    if declared is None:
        return True
    names = {declared} if isinstance(declared, str) else set(declared)
    kind = _json_type(value)
    return kind in names or (kind == "integer" and "number" in names)


def _enum_ok(value, s, document, depth) -> bool:
    if "enum" not in s:
        return True
    enum, key = s["enum"], json_key(value)
    if not isinstance(enum, list):
        return any(json_key(v) == key for v in enum)
    return key in _enum_keys(enum)


_ENUM_KEYS: dict[int, tuple[list, frozenset]] = {}  # id(enum list) -> (the list, its values' keys)
_ENUM_KEYS_SIZE = 256  # lists kept (cleared when full)


def _enum_keys(enum: list) -> frozenset:
    """The keys of an enum's values, made once per list: an enum inside another keyword is
    checked once per value of an outer enum (``literals.lower_enum``), and its keys were built
    again each time.  The list itself is kept beside its keys, so an id is never read for another."""
    found = _ENUM_KEYS.get(id(enum))
    if found is None or found[0] is not enum:
        if len(_ENUM_KEYS) >= _ENUM_KEYS_SIZE:
            _ENUM_KEYS.clear()
        found = _ENUM_KEYS[id(enum)] = (enum, frozenset(json_key(v) for v in enum))
    return found[1]


def _number_ok(value, s, document, depth) -> bool:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return True
    v = Decimal(str(value))
    bounds = (("minimum", lambda b: v >= b), ("maximum", lambda b: v <= b),
              ("exclusiveMinimum", lambda b: v > b), ("exclusiveMaximum", lambda b: v < b),
              ("multipleOf", lambda b: b > 0 and v % b == 0))
    for key, ok in bounds:
        bound = s.get(key)
        if isinstance(bound, (int, float)) and not isinstance(bound, bool) and not ok(Decimal(str(bound))):
            return False
    return True


def _count_within(count: int, s: dict, low_key: str, high_key: str) -> bool:
    """``count`` against the schema's integer bounds ``low_key``/``high_key`` (absent: no bound)."""
    low, high = s.get(low_key), s.get(high_key)
    return not (isinstance(low, int) and count < low) and not (isinstance(high, int) and count > high)


def _string_ok(value, s, document, depth) -> bool:
    if not isinstance(value, str):
        return True
    if not _count_within(len(value), s, "minLength", "maxLength"):
        return False
    if isinstance(s.get("pattern"), str) and not pattern_matches(s["pattern"], value):
        return False
    fmt = FORMATS.get(s.get("format")) if isinstance(s.get("format"), str) else None
    return fmt is None or re.fullmatch(fmt, value) is not None


def pattern_matches(pattern: str, text: str) -> bool:
    """Does the ECMA ``pattern`` match somewhere in ``text`` (JSON Schema's ``pattern`` and
    ``patternProperties``)?  ``CannotDecide`` if Python's ``re`` cannot read it."""
    try:
        return re.search(ecma_to_python(pattern), text) is not None
    except re.error as error:
        raise CannotDecide(str(error)) from None


def _array_ok(value, s, document, depth) -> bool:
    if not isinstance(value, list):
        return True
    if not _count_within(len(value), s, "minItems", "maxItems"):
        return False
    prefix = s.get("prefixItems", [])
    for i, item in enumerate(value):
        sub = prefix[i] if i < len(prefix) else s.get("items", True)
        if not is_valid(item, sub, document, depth + 1):
            return False
    if s.get("uniqueItems") is True and len({json_key(item) for item in value}) != len(value):
        return False
    if "contains" in s:
        hits = sum(1 for item in value if is_valid(item, s["contains"], document, depth + 1))
        if hits < s.get("minContains", 1) or ("maxContains" in s and hits > s["maxContains"]):
            return False
    return True


def _object_ok(value, s, document, depth) -> bool:
    if not isinstance(value, dict):
        return True
    if not _count_within(len(value), s, "minProperties", "maxProperties"):
        return False
    if any(name not in value for name in s.get("required", [])):
        return False
    properties, patterns = s.get("properties", {}), s.get("patternProperties", {})
    for key, item in value.items():
        matched = False
        if key in properties:
            matched = True
            if not is_valid(item, properties[key], document, depth + 1):
                return False
        for pattern, sub in patterns.items():
            if pattern_matches(pattern, key):
                matched = True
                if not is_valid(item, sub, document, depth + 1):
                    return False
        if not matched and not is_valid(item, s.get("additionalProperties", True), document, depth + 1):
            return False
        if "propertyNames" in s and not is_valid(key, s["propertyNames"], document, depth + 1):
            return False
    for name, dependency in {**s.get("dependencies", {}), **s.get("dependentRequired", {}),
                             **s.get("dependentSchemas", {})}.items():
        if name in value:
            if isinstance(dependency, list):
                if any(d not in value for d in dependency):
                    return False
            elif not is_valid(value, dependency, document, depth + 1):
                return False
    return True


def _logic_ok(value, s, document, depth) -> bool:
    valid = lambda sub: is_valid(value, sub, document, depth + 1)  # noqa: E731
    if "allOf" in s and not all(valid(sub) for sub in s["allOf"]):
        return False
    if "anyOf" in s and not any(valid(sub) for sub in s["anyOf"]):
        return False
    if "oneOf" in s and sum(1 for sub in s["oneOf"] if valid(sub)) != 1:
        return False
    if "not" in s and valid(s["not"]):
        return False
    if "if" in s:
        branch = s.get("then", True) if valid(s["if"]) else s.get("else", True)
        if not valid(branch):
            return False
    return True

"""``enum`` and ``const``: each listed value that the other keywords allow, spelled as JSON.

Which values: those the full schema accepts (``validator``: every keyword, ``not``,
``uniqueItems``, ``if``/``then`` included, since a finite list can be checked value by value),
or, where the validator cannot decide, those passing the simple checks of ``allowed``.
A listed value is written with the whitespace policy between its tokens and its object keys in
the order the schema lists them; a string with every spelling ``json_text`` accepts, a number
with every plain decimal spelling of the same value (``1``, ``1.0``, ``1.00``: JSON Schema
compares numbers by value).  Values that fail the schema's other keywords are dropped first, so
``{"type": "string", "enum": ["a", 1]}`` is just ``"a"``.
"""

from __future__ import annotations

import re
from decimal import Decimal

from indexc.jsonschema.errors import child_pointer
from indexc.jsonschema.expr import Expr, Lex, Ws, alt, seq
from indexc.jsonschema.json_text import literal_string
from indexc.jsonschema.keywords import unsupported_in
from indexc.jsonschema.numbers import Bound, number_regex
from indexc.jsonschema.patterns import ecma_to_python
from indexc.jsonschema.punctuation import CLOSE_ARRAY, CLOSE_OBJECT, OPEN_ARRAY, OPEN_OBJECT, bracketed
from indexc.jsonschema.validator import CannotDecide, is_valid


def lower_enum(lw, schema: dict, pointer: str) -> Expr:
    """The listed values the rest of the schema accepts.  Each is checked against the schema
    without its own ``enum``: with it, the check scanned the enum for every value, quadratic
    (JsonSchemaStore transcend-yml-schema-v4's enums of ~2,500 values: 70M comparisons, 14 s of
    a 20 s compile until session 25)."""
    values = schema["enum"]
    if not isinstance(values, list):
        raise lw.error("enum must be an array", child_pointer(pointer, "enum"))
    others = {k: v for k, v in schema.items() if k != "enum"}  # each value is in its own enum
    try:
        kept = [v for v in values if is_valid(v, others, lw.document)]
    except CannotDecide:
        unsupported = unsupported_in(schema)
        if unsupported:
            lw.unsupported(f"unsupported keyword {unsupported[0]!r}", child_pointer(pointer, unsupported[0]), unsupported[0])
        kept = [v for v in values if allowed(v, schema)]
    return alt(*(literal(lw, v) for v in kept))


def literal(lw, value: object) -> Expr:
    if value is None:
        return Lex("null")
    if isinstance(value, bool):
        return Lex("true" if value else "false")
    if isinstance(value, (int, float)):
        exact = Bound(Decimal(str(value)), True)
        return Lex(number_regex(exact, exact))
    if isinstance(value, str):
        return Lex(literal_string(value))
    if isinstance(value, list):
        if not value:
            return seq(OPEN_ARRAY, Ws(), CLOSE_ARRAY)
        items = [literal(lw, v) for v in value]
        body = items[0]
        for item in items[1:]:
            body = seq(body, lw.item_sep, item)
        return bracketed(OPEN_ARRAY, body, False, CLOSE_ARRAY)
    if isinstance(value, dict):
        if not value:
            return seq(OPEN_OBJECT, Ws(), CLOSE_OBJECT)
        members = [seq(Lex(literal_string(k)), lw.key_sep, literal(lw, v)) for k, v in value.items()]
        body = members[0]
        for member in members[1:]:
            body = seq(body, lw.item_sep, member)
        return bracketed(OPEN_OBJECT, body, False, CLOSE_OBJECT)
    raise lw.error(f"enum value of unknown type {type(value).__name__}", "#")


def json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def allowed(value: object, schema: dict) -> bool:
    """Does ``value`` satisfy the simple keywords of ``schema`` (the rest are not checked here)?"""
    types = schema.get("type")
    if types is not None:
        names = {types} if isinstance(types, str) else set(types)
        kind = json_type(value)
        if kind not in names and not (kind == "integer" and "number" in names):
            return False
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return _number_allowed(Decimal(str(value)), schema)
    if isinstance(value, str):
        return _string_allowed(value, schema)
    if isinstance(value, dict):
        required = schema.get("required", [])
        return all(r in value for r in required) if isinstance(required, list) else True
    return True


def _number_allowed(v: Decimal, schema: dict) -> bool:
    checks = [("minimum", lambda b: v >= b), ("maximum", lambda b: v <= b),
              ("exclusiveMinimum", lambda b: v > b), ("exclusiveMaximum", lambda b: v < b)]
    for key, ok in checks:
        bound = schema.get(key)
        if isinstance(bound, (int, float)) and not isinstance(bound, bool) and not ok(Decimal(str(bound))):
            return False
    return True


def _string_allowed(v: str, schema: dict) -> bool:
    if isinstance(schema.get("minLength"), int) and len(v) < schema["minLength"]:
        return False
    if isinstance(schema.get("maxLength"), int) and len(v) > schema["maxLength"]:
        return False
    pattern = schema.get("pattern")
    if isinstance(pattern, str):
        try:
            return re.search(ecma_to_python(pattern), v) is not None
        except re.error:
            return True
    return True

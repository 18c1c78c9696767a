"""Which keywords mean what here: supported, ignorable annotations, unsupported assertions.

JSON Schema says unknown keywords are annotations, so a vendor key such as ``javaType`` or
``x-kubernetes-patch-strategy`` is ignored silently.  The keywords that *constrain* values and
that this compiler cannot express are refused with their pointer (or, in lenient mode, ignored
with a warning each): ignoring them silently would accept instances the schema rejects.
"""

from __future__ import annotations

from indexc.jsonschema.errors import child_pointer

# The patterns a string must not match: indexc's own keyword, what ``negation`` folds a
# ``not: {pattern: P}`` into (merged as a list by ``merge``, lowered by ``strings``).  It is
# an assertion like the others, so a schema that spells it out gets its meaning.
EXCLUDED_PATTERNS = "x-indexc-excluded-patterns"

SUPPORTED = frozenset({
    EXCLUDED_PATTERNS,
    "type", "enum", "const", "nullable",
    "$ref", "allOf", "anyOf", "oneOf",
    "properties", "required", "additionalProperties", "patternProperties",
    "minProperties", "maxProperties",
    "items", "prefixItems", "additionalItems", "minItems", "maxItems",
    "minLength", "maxLength", "pattern", "format", "not",
    "dependencies", "dependentRequired", "dependentSchemas",
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
})

UNSUPPORTED = frozenset({
    "if", "then", "else", "contains", "minContains", "maxContains",
    "propertyNames",
    "unevaluatedProperties", "unevaluatedItems", "uniqueItems",
    "$dynamicRef", "$recursiveRef",
})


def is_noop(keyword: str, value: object, schema: dict) -> bool:
    """An unsupported keyword whose value constrains nothing (so it needs no error)."""
    if keyword == "uniqueItems":
        return value is False
    if keyword in ("if",):
        return "then" not in schema and "else" not in schema
    if keyword in ("then", "else"):
        return "if" not in schema
    if keyword in ("propertyNames", "unevaluatedProperties", "unevaluatedItems"):
        return value is True or value == {}
    if keyword == "contains":
        return False
    if keyword == "uniqueItems":
        return not value
    return False


def unsupported_in(schema: dict) -> list[str]:
    """The unsupported assertion keywords of one schema object, in schema order."""
    return [k for k, v in schema.items() if k in UNSUPPORTED and not is_noop(k, v, schema)]


def count_keyword(lw, schema: dict, keyword: str, pointer: str) -> int | None:
    """The value of a count keyword (``minItems``, ``maxLength``, ``minProperties``...), or None
    when absent; ``lw.error`` at the keyword's pointer unless it is a non-negative integer."""
    value = schema.get(keyword)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0 or value != int(value):
        raise lw.error(f"{keyword} must be a non-negative integer", child_pointer(pointer, keyword))
    return int(value)

"""``allOf`` and sibling keywords: several schemas for one value -> one schema (their intersection).

``flatten`` returns a schema without ``$ref`` or ``allOf`` at its top level: the ``$ref``
target, the ``allOf`` parts and the sibling keywords merged in the order their keys are
written (``_parts_in_key_order``; llguidance's order, which MaskBench instances follow).  ``merge`` intersects two flat schemas keyword by
keyword (types intersected, bounds tightened, ``required`` unioned in order, ``properties``
merged in llguidance's order: the left schema's, then the right's new ones).  It stays lazy
below the top level: two schemas for the same property become ``{"allOf": [a, b]}`` and are
flattened only when that property is lowered, so recursive schemas merge without unrolling.

A property listed on one side only also meets the other side's ``additionalProperties`` (as
the specification says); ``patternProperties`` of the other side are not applied to it (not
supported, rare).  Two different ``pattern``s or ``format``s cannot be intersected in the
regex dialect and are refused.
"""

from __future__ import annotations

import math
from decimal import Decimal

from indexc.jsonschema.document import SchemaDocument
from indexc.jsonschema.errors import JsonSchemaError, child_pointer
from indexc.jsonschema.keywords import EXCLUDED_PATTERNS, SUPPORTED, UNSUPPORTED

MAX_REF_CHAIN = 64
MAX_BRANCH_PRODUCT = 256
ALL_TYPES = ("null", "boolean", "object", "array", "string", "number", "integer")  # merge order of type lists


def normalize_legacy(schema: dict) -> dict:
    """Draft-4 spellings -> the 2020-12 ones this package lowers (a new dict)."""
    s = dict(schema)
    for exclusive, plain in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
        if isinstance(s.get(exclusive), bool):
            if s.pop(exclusive) and plain in s:
                s[exclusive] = s.pop(plain)
    if isinstance(s.get("items"), list):
        s["prefixItems"] = s.pop("items")
        if "additionalItems" in s:
            s["items"] = s.pop("additionalItems")
    else:
        s.pop("additionalItems", None)  # without an items array it constrains nothing
    if "const" in s:
        const = s.pop("const")
        s["enum"] = [v for v in s["enum"] if json_equal(v, const)] if isinstance(s.get("enum"), list) else [const]
    if s.get("nullable") is True:
        types = s.get("type")
        if isinstance(types, str):
            s["type"] = [types, "null"]
        elif isinstance(types, list) and "null" not in types:
            s["type"] = [*types, "null"]
        if isinstance(s.get("enum"), list) and None not in s["enum"]:
            s["enum"] = [*s["enum"], None]
    s.pop("nullable", None)
    return s


def has_assertions(schema: dict) -> bool:
    """Does the schema constrain anything (beyond annotations)?"""
    return any(k in SUPPORTED or k in UNSUPPORTED for k in schema)


class Flattener:
    def __init__(self, document: SchemaDocument):
        self.document = document

    def flatten(self, node: object, pointer: str, depth: int = 0) -> bool | dict:
        if isinstance(node, bool):
            return node
        if not isinstance(node, dict):
            raise self.document.error(f"a schema must be an object or a boolean, not {type(node).__name__}", pointer)
        if depth > MAX_REF_CHAIN:
            raise self.document.error("$ref/allOf chain refers back to itself without any structure in between", pointer)
        schema = normalize_legacy(node)
        if "$ref" not in schema and "allOf" not in schema:
            return schema
        result: bool | dict = True
        for part in self._parts_in_key_order(schema, pointer, depth):
            result = merge(result, part, pointer)
        if isinstance(result, dict):
            result = {**{k: v for k, v in schema.items() if k not in result and k not in ("$ref", "allOf")}, **result}
        return result

    def _parts_in_key_order(self, schema: dict, pointer: str, depth: int) -> list[bool | dict]:
        """The flat schemas a node intersects, in the order its keys are written (llguidance's
        order, which decides the merged ``properties`` order): the ``$ref`` target where
        ``$ref`` stands, the ``allOf`` parts where ``allOf`` stands, the sibling keywords where
        their ``properties`` stand (without ``properties``: after the ``$ref`` target, before
        the ``allOf`` parts).  ``{"allOf": [A], "properties": {B}}`` lists A's properties
        first, ``{"properties": {B}, "allOf": [A]}`` B's."""
        keys = list(schema)
        placed: list[tuple[float, int, bool | dict]] = []
        if "$ref" in schema:
            target_pointer, target = self.document.resolve(schema["$ref"], pointer=child_pointer(pointer, "$ref"))
            placed.append((keys.index("$ref"), 0, self.flatten(target, target_pointer, depth + 1)))
        if "allOf" in schema:
            parts = schema["allOf"]
            if not isinstance(parts, list):
                raise self.document.error("allOf must be an array", child_pointer(pointer, "allOf"))
            for i, part in enumerate(parts):
                placed.append((keys.index("allOf"), i, self.flatten(part, child_pointer(pointer, "allOf", i), depth + 1)))
        siblings = {k: v for k, v in schema.items() if k not in ("$ref", "allOf")}
        if has_assertions(siblings):
            if "properties" in siblings:
                position = keys.index("properties")
            else:
                position = keys.index("$ref") + 0.5 if "$ref" in schema else -1
            placed.append((position, 0, siblings))
        return [part for _, _, part in sorted(placed, key=lambda item: item[:2])]


def merge(a: bool | dict, b: bool | dict, pointer: str) -> bool | dict:
    """The intersection of two flat schemas."""
    if a is False or b is False:
        return False
    if a is True:
        return b
    if b is True:
        return a
    a, b = normalize_legacy(a), normalize_legacy(b)
    result = dict(a)
    for key, right in b.items():
        if key not in result:
            result[key] = right
        else:
            result[key] = _merge_keyword(key, result[key], right, a, b, pointer)
    if "properties" in a or "properties" in b:
        result["properties"] = _merge_properties(a, b)
    return result


def _merge_keyword(key: str, left: object, right: object, a: dict, b: dict, pointer: str) -> object:
    if json_equal(left, right):
        return left
    if key == "type":
        return _intersect_types(left, right)
    if key == "required":
        return list(dict.fromkeys([*left, *right]))
    if key in ("additionalProperties", "items"):
        return _lazy_all_of(left, right)
    if key == "patternProperties":
        merged = dict(left)
        for pattern, schema in right.items():
            merged[pattern] = _lazy_all_of(merged[pattern], schema) if pattern in merged else schema
        return merged
    if key == "prefixItems":
        longer, shorter = (left, right) if len(left) >= len(right) else (right, left)
        rest = (b if shorter is right else a).get("items", True)
        return [_lazy_all_of(x, shorter[i] if i < len(shorter) else rest) for i, x in enumerate(longer)]
    if key in ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties"):
        return max(left, right)
    if key in ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties"):
        return min(left, right)
    if key == "enum":
        kept = {json_key(w) for w in right}
        return [v for v in left if json_key(v) in kept]
    if key == "multipleOf":
        return _merge_multiple_of(left, right, pointer)
    if key in ("anyOf", "oneOf"):
        if len(left) * len(right) > MAX_BRANCH_PRODUCT:
            raise JsonSchemaError(f"allOf of two {key} lists makes more than {MAX_BRANCH_PRODUCT} branches", pointer=pointer)
        return [{"allOf": [x, y]} for x in left for y in right]
    if key == "pattern":
        raise JsonSchemaError("two different patterns for one string (allOf) cannot be intersected", pointer=pointer, keyword="pattern")
    if key == "format":
        raise JsonSchemaError(f"two different formats ({left!r}, {right!r}) for one string", pointer=pointer, keyword="format")
    if key == "properties":
        return left  # rebuilt by _merge_properties
    if key == "not":
        return {"anyOf": [left, right]}  # not A and not B = not (A or B)
    if key == EXCLUDED_PATTERNS:
        return [*left, *(p for p in right if p not in left)]
    return left  # annotations and unsupported keywords: the left one (still reported)


def _lazy_all_of(left: object, right: object) -> object:
    if left is True or left == {}:
        return right
    if right is True or right == {}:
        return left
    if left is False or right is False:
        return False
    return {"allOf": [left, right]}


def _merge_properties(a: dict, b: dict) -> dict:
    left, right = a.get("properties", {}), b.get("properties", {})
    merged = {}
    for name, schema in left.items():
        other = right[name] if name in right else b.get("additionalProperties", True)
        merged[name] = _lazy_all_of(schema, other)
    for name, schema in right.items():
        if name not in merged:
            merged[name] = _lazy_all_of(a.get("additionalProperties", True), schema)
    return merged


def _intersect_types(left: object, right: object) -> list[str]:
    lset = _type_set(left)
    rset = _type_set(right)
    out = [t for t in ALL_TYPES if t in lset and t in rset]
    if "integer" not in out and (("integer" in lset and "number" in rset) or ("number" in lset and "integer" in rset)):
        out.append("integer")
    return out


def _type_set(value: object) -> set[str]:
    return {value} if isinstance(value, str) else set(value)


def _merge_multiple_of(left: object, right: object, pointer: str) -> object:
    a, b = Decimal(str(left)), Decimal(str(right))
    if a % b == 0:
        return left
    if b % a == 0:
        return right
    if a == a.to_integral_value() and b == b.to_integral_value():
        return math.lcm(int(a), int(b))
    raise JsonSchemaError(f"multipleOf {left} and {right} together", pointer=pointer, keyword="multipleOf")


def json_key(value: object) -> object:
    """A hashable key with ``json_equal``'s equality (``json_key(a) == json_key(b)`` iff
    ``json_equal(a, b)``): an enum's values hashed, where ``json_equal`` would compare every
    pair; ``json_equal`` stays for one comparison, which it often settles at the first
    difference (two long enums of other lengths: the key would build both whole)."""
    if isinstance(value, bool):
        return ("b", value)
    if isinstance(value, (int, float)):
        return ("n", value)  # 1 == 1.0 and hash(1) == hash(1.0)
    if isinstance(value, list):
        return ("a", tuple(json_key(item) for item in value))
    if isinstance(value, dict):
        return ("o", frozenset((k, json_key(v)) for k, v in value.items()))
    return (type(value).__name__, value)


def json_equal(a: object, b: object) -> bool:
    """JSON equality: 1 == 1.0, but true != 1 and key order does not matter."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b

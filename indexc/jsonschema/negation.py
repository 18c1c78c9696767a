"""``not`` and the dependency keywords: constraints rewritten into ones that have a regular form.

A regex cannot complement a sub-language in place, but the ``not`` schemas that real
schemas use are mostly simple (counts from the MaskBench dev split: ``not: {}`` 21 times,
``not: {type: ...}``, ``not: {required: [...]}`` a few each):

- ``not: {}`` / ``not: true``: nothing is valid (the schema is ``false``);
- ``not: false``: no constraint;
- ``not: {type: T}``: the types other than ``T`` (``integer`` cannot be removed from
  ``number`` this way: refused);
- ``not: {required: [a]}`` and ``not: {anyOf: [{required: [a]}, {required: [b]}]}``: objects
  without ``a`` (and ``b``): the properties become ``false``; other types are unaffected;
- ``not: {enum: [...]}`` / ``not: {const: v}``: refused (for now).

``apply_not`` returns the schema with the ``not`` folded in, or None when the negation has no
such form (the caller then refuses it with its pointer, or ignores it in lenient mode).
"""

from __future__ import annotations

from indexc.jsonschema.merge import Flattener, has_assertions, normalize_legacy

_TYPES = ("null", "boolean", "object", "array", "string", "number", "integer")


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
    forbidden = _forbidden_names(flat)
    if forbidden is not None:
        properties = dict(rest.get("properties", {}))
        for name in forbidden:
            properties[name] = False
        return {**rest, "properties": properties}
    return None


def _without_types(rest: dict, removed: object) -> dict | None:
    removed_set = {removed} if isinstance(removed, str) else set(removed)
    current = rest.get("type", list(_TYPES))
    current_set = {current} if isinstance(current, str) else set(current)
    if "number" in removed_set:
        removed_set.add("integer")
    if "integer" in removed_set and "number" in current_set and "number" not in removed_set:
        return None
    return {**rest, "type": [t for t in _TYPES if t in current_set and t not in removed_set]}


def _forbidden_names(flat: dict) -> list[str] | None:
    """Names N such that ``flat`` = "the object has one of N" (so ``not`` = "has none of N")."""
    if set(flat) == {"required"} and isinstance(flat["required"], list) and len(flat["required"]) == 1:
        return list(flat["required"])
    if set(flat) == {"anyOf"} and isinstance(flat["anyOf"], list):
        names = []
        for branch in flat["anyOf"]:
            if not (isinstance(branch, dict) and set(branch) == {"required"} and len(branch["required"]) == 1):
                return None
            names.append(branch["required"][0])
        return names
    return None


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

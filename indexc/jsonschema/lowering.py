"""The driver: a schema document -> one ``expr`` tree plus named definitions.

``lower_schema`` walks the schema once.  Per node:

1. ``true`` is ``Ref(ANY)``, ``false`` the empty set;
2. unsupported assertion keywords (``keywords``) raise ``JsonSchemaError`` with their pointer,
   or become warnings in lenient mode;
3. a bare ``$ref`` becomes ``Ref(name)`` of its target, lowered once however often it is
   referenced (so a recursive schema becomes a cyclic set of definitions, and the router sees
   the cycle); a ``$ref`` with siblings, or an ``allOf``, is flattened (``merge``) and lowered
   as a definition keyed by its JSON text, so merged recursive schemas also close their cycles;
4. ``anyOf``/``oneOf`` are lowered branch by branch, each branch merged with the keywords
   beside it; ``oneOf`` must be provably disjoint (``one_of``) unless ``coerce_one_of``;
5. ``enum`` (and ``const``) is the list of its values that the whole schema accepts, decided
   value by value (``literals``, ``validator``), so no other keyword needs a regular form;
6. ``not`` is folded into the schema where it has a positive form, and ``dependencies``
   become ``anyOf`` branches (``negation``);
7. otherwise the node is the alternation of its types, each lowered by its own module
   (``objects``, ``arrays``, ``strings``, ``numbers``), every type allowed when ``type`` is
   absent (keywords of other types then simply do not apply, as the specification says).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

from indexc.jsonschema import arrays, literals, objects, one_of, strings
from indexc.jsonschema.any_value import ANY, any_leaf, any_value
from indexc.jsonschema.document import SchemaDocument, parse_schema_text
from indexc.jsonschema.errors import JsonSchemaError, child_pointer
from indexc.jsonschema.expr import EMPTY_SET, Alt, Expr, Lex, Ref, alt, is_empty_set
from indexc.jsonschema.keywords import unsupported_in
from indexc.jsonschema.merge import Flattener, has_assertions, normalize_legacy
from indexc.jsonschema.negation import DEPENDENCY_KEYWORDS, apply_not, dependencies_as_branches
from indexc.jsonschema.numbers import Bound, EmptyRange, Unsupported, integer_regex, number_regex
from indexc.jsonschema.options import JsonSchemaOptions
from indexc.jsonschema.punctuation import separator

TYPE_ORDER = ("object", "array", "string", "number", "integer", "boolean", "null")
_IN_PROGRESS = Alt((Lex("<in progress>"),))


@dataclass
class LoweredSchema:
    root: Expr
    definitions: dict[str, Expr]
    options: JsonSchemaOptions  # resolved (x-guidance applied)
    warnings: list[str] = field(default_factory=list)

    @property
    def bounded(self) -> dict[str, Expr]:
        return {ANY: any_leaf()} if ANY in self.definitions else {}


def lower_schema(schema: dict | bool | str, options: JsonSchemaOptions = JsonSchemaOptions(), *,
                 source: str = "<schema>") -> LoweredSchema:
    """Schema (object, boolean or JSON text) -> ``LoweredSchema``; raises ``JsonSchemaError``."""
    root = parse_schema_text(schema, source=source) if isinstance(schema, str) else schema
    x_guidance = root.get("x-guidance") if isinstance(root, dict) else None
    resolved = options.resolved(x_guidance)
    lowerer = Lowerer(SchemaDocument(root, source=source), resolved)
    expr = lowerer.lower(root, "#")
    if is_empty_set(expr):
        raise JsonSchemaError("the schema matches no JSON value (its constraints contradict each other)",
                              pointer="#", source=source)
    return LoweredSchema(expr, lowerer.definitions, resolved, list(dict.fromkeys(lowerer.warnings)))


class Lowerer:
    def __init__(self, document: SchemaDocument, options: JsonSchemaOptions):
        self.document = document
        self.options = options
        self.flattener = Flattener(document)
        self.definitions: dict[str, Expr] = {}
        self.names: dict[str, str] = {}
        self.warnings: list[str] = []
        self.item_sep = separator(options.item_separator)
        self.key_sep = separator(options.key_separator)

    # -- errors and warnings ----------------------------------------------------------
    def error(self, message: str, pointer: str, keyword: str | None = None) -> JsonSchemaError:
        return JsonSchemaError(message, pointer=pointer, source=self.document.source, keyword=keyword)

    def unsupported(self, message: str, pointer: str, keyword: str) -> None:
        """Refuse, or in lenient mode warn and let the caller drop the constraint."""
        if not self.options.lenient:
            raise self.error(message, pointer, keyword)
        self.warnings.append(f"ignored: {message} (at {pointer})")

    def warn(self, message: str) -> None:
        self.warnings.append(message)

    # -- nodes -------------------------------------------------------------------------
    def lower(self, node: object, pointer: str) -> Expr:
        if node is True:
            return self.any_value()
        if node is False:
            return EMPTY_SET
        if not isinstance(node, dict):
            raise self.error(f"a schema must be an object or a boolean, not {type(node).__name__}", pointer)
        if not has_assertions(node):
            return self.any_value()  # {} and annotation-only schemas are ``true``
        if "$ref" in node and not has_assertions({k: v for k, v in node.items() if k != "$ref"}):
            target_pointer, target = self.document.resolve(node["$ref"], pointer=child_pointer(pointer, "$ref"))
            return self.definition(target_pointer, target_pointer, lambda: self.lower(target, target_pointer))
        if "$ref" in node or "allOf" in node:
            key = json.dumps(node, sort_keys=True)
            return self.definition(key, pointer, lambda: self.lower_merged(node, pointer))
        return self.lower_flat(normalize_legacy(node), pointer)

    def lower_merged(self, node: dict, pointer: str) -> Expr:
        flat = self.flattener.flatten(node, pointer)
        if isinstance(flat, bool):
            return self.lower(flat, pointer)
        if "enum" not in flat:  # an enum decides every other keyword value by value
            self.check_keywords(node, pointer)
            parts = node.get("allOf") if isinstance(node.get("allOf"), list) else []
            for i, part in enumerate(parts):
                if isinstance(part, dict):
                    self.check_keywords(part, child_pointer(pointer, "allOf", i))
        return self.lower_flat(flat, pointer)

    def definition(self, key: str, pointer: str, build) -> Expr:
        """A named definition, lowered once; cycles come back as ``Ref`` to it."""
        name = self.names.get(key)
        if name is None:
            name = f"d{len(self.names)}"
            self.names[key] = name
            self.definitions[name] = _IN_PROGRESS
            self.definitions[name] = build()
        expr = self.definitions[name]
        if is_empty_set(expr):
            return EMPTY_SET
        if isinstance(expr, Lex):
            return expr
        return Ref(name)

    def any_value(self) -> Expr:
        if ANY not in self.definitions:
            self.definitions[ANY] = any_value(self.item_sep, self.key_sep)
        return Ref(ANY)

    def check_keywords(self, schema: dict, pointer: str) -> None:
        for keyword in unsupported_in(schema):
            self.unsupported(f"unsupported keyword {keyword!r}", child_pointer(pointer, keyword), keyword)

    def lower_flat(self, schema: dict, pointer: str) -> Expr:
        if "enum" in schema:
            return literals.lower_enum(self, schema, pointer)  # decided value by value
        self.check_keywords(schema, pointer)
        if any(k in schema for k in DEPENDENCY_KEYWORDS):
            rewritten = dependencies_as_branches(schema)
            if rewritten is None:
                raise self.error("dependencies must map names to arrays or schemas", pointer, "dependencies")
            return self.lower(rewritten, pointer)
        if "not" in schema:
            folded = apply_not(schema, self.flattener, pointer)
            if folded is None:
                self.unsupported("this 'not' has no positive form here", child_pointer(pointer, "not"), "not")
                folded = {k: v for k, v in schema.items() if k != "not"}
            if isinstance(folded, bool) or "allOf" in folded:  # an anyOf of absent names comes as an allOf part
                return self.lower(folded, pointer)
            return self.lower_flat(folded, pointer)
        if "anyOf" in schema or "oneOf" in schema:
            required_sets = one_of.exactly_one_required(schema)
            return self.lower_branches(required_sets or schema, pointer)
        types = self.types_of(schema, pointer)
        options = []
        for type_name in TYPE_ORDER:
            if type_name in types and not (type_name == "integer" and "number" in types):
                options.append(self.lower_type(type_name, schema, pointer))
        return alt(*options)

    def lower_branches(self, schema: dict, pointer: str) -> Expr:
        keyword = "anyOf" if "anyOf" in schema else "oneOf"
        branches = schema[keyword]
        if not isinstance(branches, list) or not branches:
            raise self.error(f"{keyword} must be a non-empty array", child_pointer(pointer, keyword))
        rest = {k: v for k, v in schema.items() if k != keyword}
        if keyword == "oneOf" and not self.options.coerce_one_of:
            branches = one_of.objects_only_branches(self, branches, child_pointer(pointer, "oneOf")) or branches
        exprs, nodes = [], []
        for i, branch in enumerate(branches):
            branch_pointer = child_pointer(pointer, keyword, i)
            node = {"allOf": [rest, branch]} if has_assertions(rest) else branch
            nodes.append((node, branch_pointer))
            exprs.append(self.lower(node, branch_pointer))
        if keyword == "oneOf" and not self.options.coerce_one_of:
            schemas = [self.flattener.flatten(node, p) for node, p in nodes]
            one_of.check_disjoint(self, exprs, child_pointer(pointer, "oneOf"), schemas)
        return alt(*exprs)

    def types_of(self, schema: dict, pointer: str) -> set[str]:
        declared = schema.get("type")
        if declared is None:
            return set(TYPE_ORDER)
        names = [declared] if isinstance(declared, str) else declared
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise self.error("type must be a string or an array of strings", child_pointer(pointer, "type"))
        unknown = [n for n in names if n not in TYPE_ORDER]
        if unknown:
            raise self.error(f"unknown type {unknown[0]!r}", child_pointer(pointer, "type"))
        return set(names)

    def lower_type(self, type_name: str, schema: dict, pointer: str) -> Expr:
        if type_name == "null":
            return Lex("null")
        if type_name == "boolean":
            return Lex("true|false")
        if type_name == "object":
            return objects.lower_object(self, schema, pointer)
        if type_name == "array":
            return arrays.lower_array(self, schema, pointer)
        if type_name == "string":
            return strings.lower_string(self, schema, pointer)
        return self.lower_number(schema, pointer, integer=type_name == "integer")

    def lower_number(self, schema: dict, pointer: str, *, integer: bool) -> Expr:
        low = _bound(schema, "minimum", "exclusiveMinimum", pointer, self)
        high = _bound(schema, "maximum", "exclusiveMaximum", pointer, self)
        multiple = _decimal(schema.get("multipleOf"), "multipleOf", pointer, self)
        try:
            if integer:
                return Lex(integer_regex(low, high, multiple))
            if multiple is not None and multiple == multiple.to_integral_value() and multiple >= 1:
                return Lex(f"(?:{integer_regex(low, high, multiple)})(?:\\.0+)?")
            return Lex(number_regex(low, high, multiple))
        except EmptyRange:
            return EMPTY_SET
        except Unsupported as error:
            self.unsupported(str(error), child_pointer(pointer, "multipleOf"), "multipleOf")
            return self.lower_number({k: v for k, v in schema.items() if k != "multipleOf"}, pointer, integer=integer)


def _decimal(value: object, keyword: str, pointer: str, lowerer: Lowerer) -> Decimal | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise lowerer.error(f"{keyword} must be a number", child_pointer(pointer, keyword))
    try:
        return Decimal(str(value))
    except InvalidOperation:
        raise lowerer.error(f"{keyword} must be a finite number", child_pointer(pointer, keyword)) from None


def _bound(schema: dict, inclusive_key: str, exclusive_key: str, pointer: str, lowerer: Lowerer) -> Bound | None:
    inclusive = _decimal(schema.get(inclusive_key), inclusive_key, pointer, lowerer)
    exclusive = _decimal(schema.get(exclusive_key), exclusive_key, pointer, lowerer)
    candidates = []
    if inclusive is not None:
        candidates.append(Bound(inclusive, True))
    if exclusive is not None:
        candidates.append(Bound(exclusive, False))
    if not candidates:
        return None
    lower_side = inclusive_key == "minimum"
    # the tighter bound: the larger minimum / the smaller maximum; exclusive wins a tie
    def tightness(b: Bound):
        return (b.value if lower_side else -b.value, not b.inclusive)
    return max(candidates, key=tightness)

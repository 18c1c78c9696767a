"""``oneOf`` as ``anyOf``, only where no value can match two branches.

``oneOf`` means "exactly one", which a regex cannot say in general; it equals ``anyOf`` when
the branches are disjoint.  Two proofs, cheapest first:

1. first bytes: a JSON value's first byte tells its type (``{ [ " - 0-9 t f n``), so branches
   whose possible first bytes do not meet are disjoint (``oneOf: [{type: string}, {type:
   integer}]``);
2. automata: when both branches are regular and small (``MAX_BRANCH_STATES``) and neither can
   hold an object, their DFAs are built and the reachable pairs of their product
   (``automaton.product``) are searched for one both accept (none: disjoint).  Objects are left out
   because a text is not a value: each branch writes an object's keys in its own schema
   order, so one value can match both branches through two different texts and the product
   would find none (``{"id", "win", "lose"}`` against branches listing ``id, win`` and
   ``id, lose``: it accepted invalid instances of MaskBench o19070 and o83140 once the branch
   limit was raised).  Discriminated object unions are rule 3's.

3. object rules, on the flattened branch schemas: one branch holds only objects with a required
   property that the other forbids (``additionalProperties: false`` without it, or ``false``
   for it), or both require a property whose ``const``/``enum`` values differ.

4. required sets (``exactly_one_required``, before lowering): branches that only list
   ``required`` keys say "exactly one of these key sets is complete", which is regular: for
   branch ``i``, its keys present and, for every other branch ``j``, one key of ``j`` absent
   (``properties: {k: false}``), one ``anyOf`` alternative per choice of absent keys (at most
   ``MAX_REQUIRED_ALTERNATIVES``).  The alternatives of different branches are disjoint by
   construction.  A non-object matches every such branch (``required`` says nothing about it),
   so with two or more branches it matches none under ``oneOf``: the alternatives are objects.
   MaskBench: ``calculate_area``'s ``[{required: [length, width]}, {required: [radius]},
   {required: [base, height]}]`` (2 + 4 + 2 alternatives), o65668, o69083.

5. object branches (``objects_only_branches``): when no branch says anything about
   non-objects (object keywords only, no ``type``), a non-object matches every branch, so
   with two or more branches ``oneOf`` rejects it, and the branches are read with ``type:
   object`` added, which rules 1-3 can then prove disjoint: MaskBench o17700's seven error
   objects (a required ``name`` with a different ``enum`` each), o13024's three materials.

Anything else is refused with the pointer (``--lenient`` or ``x-guidance.coerce_one_of``
accepts it as ``anyOf``, which can accept a value that matches two branches).
"""

from __future__ import annotations

import re

import numpy as np

from indexc.automaton import compile_regex
from indexc.automaton.byte_dfa import DEAD, ByteDFA
from indexc.automaton.product import reachable_pairs
from indexc.errors import IndexcError
from indexc.jsonschema.expr import Alt, Expr, Intersection, Lex, NotRegular, Ref, Repeat, Seq, Ws
from indexc.jsonschema.keywords import SUPPORTED, UNSUPPORTED
from indexc.jsonschema.merge import json_key
from indexc.jsonschema.negation import MAX_ABSENT_CHOICES, one_absent_each
from indexc.jsonschema.patterns import ecma_to_python
from indexc.jsonschema.punctuation import OPEN_OBJECT
from indexc.jsonschema.to_automaton import expr_to_dfa

MAX_BRANCH_STATES = 2_000
MAX_PRODUCT_PAIRS = 1_000_000
MAX_REQUIRED_ALTERNATIVES = MAX_ABSENT_CHOICES


def exactly_one_required(schema: dict) -> dict | None:
    """A ``oneOf`` of required-only branches as the ``anyOf`` it means (rule 4 of the module
    note), or None where it does not apply (another kind of branch, fewer than two, a branch
    that can never be the only one, or more than ``MAX_REQUIRED_ALTERNATIVES`` alternatives)."""
    branches = schema.get("oneOf")
    if "anyOf" in schema or not isinstance(branches, list) or len(branches) < 2:
        return None
    key_sets = [_required_only(branch) for branch in branches]
    if any(keys is None for keys in key_sets):
        return None
    alternatives = []
    for i, keys in enumerate(key_sets):
        choices = one_absent_each([other - keys for j, other in enumerate(key_sets) if j != i])
        if choices is None:
            return None
        for absent in choices:
            alternatives.append({"type": "object", "required": sorted(keys),
                                 "properties": {name: False for name in sorted(absent)}})
            if len(alternatives) > MAX_REQUIRED_ALTERNATIVES:
                return None
    if not alternatives:
        return None
    rest = {k: v for k, v in schema.items() if k != "oneOf"}
    return {**rest, "anyOf": alternatives}


OBJECT_KEYWORDS = frozenset({
    "properties", "required", "additionalProperties", "patternProperties", "minProperties", "maxProperties",
    "dependencies", "dependentRequired", "dependentSchemas",
})


def objects_only_branches(lw, branches: list, pointer: str) -> list | None:
    """The ``oneOf`` branches with ``type: object`` added, when each one (flattened: its
    ``$ref``s and ``allOf``s merged) asserts object keywords only (rule 5), else None."""
    if len(branches) < 2 or not all(isinstance(branch, dict) and "type" not in branch for branch in branches):
        return None
    for i, branch in enumerate(branches):
        flat = lw.flattener.flatten(branch, f"{pointer}/{i}")
        if not isinstance(flat, dict):
            return None
        if any(k not in OBJECT_KEYWORDS for k in flat if k in SUPPORTED or k in UNSUPPORTED):
            return None
    return [{**branch, "type": "object"} for branch in branches]


def _required_only(branch: object) -> frozenset[str] | None:
    """The keys of a branch whose only assertion is a non-empty ``required``, else None."""
    if not isinstance(branch, dict):
        return None
    assertions = [k for k in branch if k in SUPPORTED or k in UNSUPPORTED]
    required = branch.get("required")
    if assertions != ["required"] or not isinstance(required, list) or not required:
        return None
    if not all(isinstance(name, str) for name in required):
        return None
    return frozenset(required)


def check_disjoint(lw, branches: list[Expr], pointer: str, schemas: list[object] | None = None) -> None:
    """Refuse (or warn, lenient) unless every pair of branches is provably disjoint.

    ``schemas``: the flattened branch schemas, for the structural object rules."""
    firsts = [first_bytes(lw, b) for b in branches]
    dfas: dict[int, ByteDFA | None] = {}
    for i in range(len(branches)):
        for j in range(i + 1, len(branches)):
            if not (firsts[i] & firsts[j]):
                continue
            if schemas is not None and objects_disjoint(schemas[i], schemas[j]):
                continue
            if holds_objects(lw, branches[i]) or holds_objects(lw, branches[j]):
                lw.unsupported(f"oneOf branches {i} and {j} may overlap (not provably disjoint)", pointer, "oneOf")
                return
            a, b = _dfa(lw, branches, i, dfas), _dfa(lw, branches, j, dfas)
            if a is None or b is None:
                lw.unsupported(f"oneOf branches {i} and {j} may overlap (not provably disjoint)", pointer, "oneOf")
                return
            if intersects(a, b):
                lw.unsupported(f"oneOf branches {i} and {j} overlap (a value can match both)", pointer, "oneOf")
                return


def objects_disjoint(a: object, b: object) -> bool:
    """Structural proof for object branches: one accepts only objects that hold a property the
    other forbids, or both require a property whose listed values (``const``/``enum``) differ."""
    if not (isinstance(a, dict) and isinstance(b, dict)):
        return False
    return _requires_forbidden(a, b) or _requires_forbidden(b, a) or _discriminated(a, b)


def _objects_only(schema: dict) -> bool:
    return schema.get("type") in ("object", ["object"])


def _requires_forbidden(a: dict, b: dict) -> bool:
    if not _objects_only(a):
        return False
    properties = b.get("properties", {})
    for name in a.get("required", []):
        if properties.get(name, None) is False:
            return True
        if name not in properties and b.get("additionalProperties", True) is False:
            if not any(re.search(ecma_to_python(p), name) for p in b.get("patternProperties", {})):
                return True
    return False


def _discriminated(a: dict, b: dict) -> bool:
    if not (_objects_only(a) or _objects_only(b)):
        return False
    for name in set(a.get("required", [])) & set(b.get("required", [])):
        values_a = _listed_values(a.get("properties", {}).get(name))
        values_b = _listed_values(b.get("properties", {}).get(name))
        if values_a is not None and values_b is not None and not (
                {json_key(x) for x in values_a} & {json_key(y) for y in values_b}):
            return True
    return False


def _listed_values(schema: object) -> list | None:
    if not isinstance(schema, dict):
        return None
    if "const" in schema:
        return [schema["const"]]
    return schema.get("enum") if isinstance(schema.get("enum"), list) else None


def _dfa(lw, branches: list[Expr], i: int, cache: dict) -> ByteDFA | None:
    if i not in cache:
        from indexc.jsonschema.lowering import LoweredSchema

        lowered = LoweredSchema(branches[i], lw.definitions, lw.options)
        try:
            cache[i], _ = expr_to_dfa(lowered, max_states=MAX_BRANCH_STATES)
        except (NotRegular, IndexcError):
            cache[i] = None
    return cache[i]


def intersects(a: ByteDFA, b: ByteDFA) -> bool:
    """Is there a text both DFAs accept?  A reachable pair accepting in both (``automaton.product``);
    more than ``MAX_PRODUCT_PAIRS`` pairs counts as "may overlap"."""
    codes = reachable_pairs(a.transitions, b.transitions, max_pairs=MAX_PRODUCT_PAIRS)
    if codes is None:
        return True
    width = np.int64(b.n_states)
    return bool(np.any(a.accepting[codes // width] & b.accepting[codes % width]))


def holds_objects(lw, expr: Expr, visiting: frozenset[str] = frozenset()) -> bool:
    """Can a text of ``expr`` hold an object (anywhere: at the top or nested)?  An unknown
    reference counts as yes."""
    if isinstance(expr, Lex):
        return expr == OPEN_OBJECT
    if isinstance(expr, Alt):
        return any(holds_objects(lw, o, visiting) for o in expr.options)
    if isinstance(expr, Seq):
        return any(holds_objects(lw, item, visiting) for item in expr.items)
    if isinstance(expr, Repeat):
        return holds_objects(lw, expr.item, visiting)
    if isinstance(expr, Ref):
        if expr.name in visiting:
            return False  # the cycle's other nodes say it
        if expr.name not in lw.definitions:
            return True
        return holds_objects(lw, lw.definitions[expr.name], visiting | {expr.name})
    return not isinstance(expr, (Ws, Intersection))  # Intersection: string lexemes


def first_bytes(lw, expr: Expr, visiting: frozenset[str] = frozenset()) -> frozenset[int]:
    """Bytes a text of ``expr`` can start with (over-approximated; values never start empty)."""
    if isinstance(expr, Lex):
        return _lex_first_bytes(expr.regex)
    if isinstance(expr, Intersection):
        return frozenset.intersection(*(_lex_first_bytes(regex) for regex in expr.regexes))
    if isinstance(expr, Alt):
        return frozenset().union(*(first_bytes(lw, o, visiting) for o in expr.options))
    if isinstance(expr, Seq):
        out: frozenset[int] = frozenset()
        for item in expr.items:
            if isinstance(item, Ws):
                continue
            out |= first_bytes(lw, item, visiting)
            if not (isinstance(item, Repeat) and item.min == 0):
                break
        return out
    if isinstance(expr, Repeat):
        return first_bytes(lw, expr.item, visiting)
    if isinstance(expr, Ref):
        if expr.name in visiting or expr.name not in lw.definitions:
            return frozenset(range(256))
        return first_bytes(lw, lw.definitions[expr.name], visiting | {expr.name})
    return frozenset(range(256))


_FIRST_CACHE: dict[str, frozenset[int]] = {}


def _lex_first_bytes(regex: str) -> frozenset[int]:
    if regex not in _FIRST_CACHE:
        try:
            dfa = compile_regex(regex, max_states=MAX_BRANCH_STATES)
            _FIRST_CACHE[regex] = frozenset(np.flatnonzero(dfa.transitions[0] != DEAD).tolist())
        except IndexcError:
            _FIRST_CACHE[regex] = frozenset(range(256))
    return _FIRST_CACHE[regex]

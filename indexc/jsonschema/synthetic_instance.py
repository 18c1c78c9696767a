"""A synthetic instance of a schema: the text the compiler's warm-up walk reads (format 7).

The grammar path stores the parser memo of a walk made at compile time
(``indexc_runtime.grammar.stored_memo``), and a walk is only as useful as its text is like a
request's.  A schema's instances mostly share their structure (properties in schema order, the
same nesting), so the walk reads an instance built from the schema alone: objects with every
property in schema order (only the required ones once a ``$ref`` recurs, so that recursion
ends), arrays at their ``minItems`` (one item when that is 0), strings of ``minLength`` ``x``s,
numbers at their minimum, the first option of ``anyOf``/``oneOf``/``enum``, ``allOf`` merged;
a string with a ``pattern`` or a known ``format`` is the shortest body its regex accepts (letters
and digits first), an object without properties gets one entry of its ``patternProperties`` or
``additionalProperties``.

It is a warm-up, not a test: a value the schema refuses (a pattern, a format, a bound this does
not honour) ends the walk at the first token the masks refuse, and what was walked up to there
is kept.  The memo it leaves is exact whatever the text (sets and configurations are interned
by content): the text only decides how much of a request finds its masks ready.  On the 34
grammar-path files of every 4th MaskBench file (session 19, ``bench/stored_memo.py``) the walk
read every token it was given on 33 (session 18's generator, without patterns, formats and
property-less objects: 23); tmlanguage stops after 1 of 53.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from indexc.automaton.compile import compile_regex
from indexc.errors import IndexcError
from indexc.jsonschema.document import SchemaDocument
from indexc.jsonschema.errors import JsonSchemaError
from indexc.jsonschema.patterns import PatternError, TranslatedPattern, translate_format, translate_pattern

MAX_DEPTH = 64  # nested values before the generator stops descending (a guard, not a policy)
MAX_VALUES = 4_096  # values made before objects keep their required properties only (``_Generator``)
OBJECT_KEYWORDS = ("properties", "patternProperties", "additionalProperties")
SAMPLE_MAX_STATES = 2_000  # a pattern or format whose DFA is larger gets "x" (the walk then stops there)
SAMPLE_BYTES = tuple(b"abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ-_.:/ @+=,;!#$%&'()*<>?[]^`{|}~")


def synthetic_text(schema: Any, *, item_separator: str = ",", key_separator: str = ":",
                   flexible_whitespace: bool = True) -> str:
    """The synthetic instance as JSON text, with the separators the constraint uses (and one
    space after each where whitespace is flexible, as ``json.dumps`` writes by default)."""
    space = " " if flexible_whitespace else ""
    return json.dumps(synthetic_instance(schema), separators=(item_separator + space, key_separator + space))


def synthetic_instance(schema: Any) -> Any:
    """A JSON value shaped like a typical instance of ``schema`` (see the module note)."""
    return _Generator(schema).value(schema, (), False, 0)


class _Generator:
    """One schema's generator: its document (``$ref`` lookups) and what is left of ``MAX_VALUES``.

    The budget matters for schemas whose ``$ref``s form a wide DAG: expanded in full, every
    property of every level, their instance grows exponentially with the depth (Github_ultra
    o39449: 202,333 characters and 8.5 s before the budget, for a walk that reads at most 2,048
    tokens).  Once it is spent, objects keep their required properties only and arrays their
    ``minItems``."""

    def __init__(self, root: Any):
        self.root = root
        self.document: SchemaDocument | None = None
        self.left = MAX_VALUES

    def value(self, schema: Any, refs: tuple[str, ...], minimal: bool, depth: int) -> Any:
        self.left -= 1
        minimal = minimal or self.left <= 0
        if not isinstance(schema, dict) or depth > MAX_DEPTH:
            return None if schema is False else "x"
        if "$ref" in schema:
            ref = schema["$ref"]
            target = self.resolved(ref)
            rest = {k: v for k, v in schema.items() if k != "$ref"}
            merged = {**target, **rest} if isinstance(target, dict) else rest
            return self.value(merged, refs + (ref,), minimal or ref in refs, depth + 1)
        if "const" in schema:
            return schema["const"]
        if isinstance(schema.get("enum"), list) and schema["enum"]:
            return schema["enum"][0]
        for key in ("anyOf", "oneOf", "allOf"):
            if isinstance(schema.get(key), list) and schema[key]:
                parts = schema[key][:1] if key != "allOf" else schema[key]
                merged = {k: v for k, v in schema.items() if k != key}
                for part in parts:
                    if isinstance(part, dict):
                        merged.update(part)
                return self.value(merged, refs, minimal, depth + 1)
        kind = schema.get("type")
        if isinstance(kind, list):
            kind = next((k for k in kind if k != "null"), "null")
        if kind == "object" or (kind is None and any(isinstance(schema.get(k), dict) for k in OBJECT_KEYWORDS)):
            return self.object(schema, refs, minimal, depth)
        if kind == "array":
            items = schema.get("prefixItems", schema.get("items", {}))
            if isinstance(items, list):
                return [self.value(item, refs, minimal, depth + 1) for item in items]
            count = _count(schema.get("minItems"), 0 if minimal else 1)
            return [self.value(items, refs, minimal, depth + 1) for _ in range(count)]
        return _scalar(kind, schema)

    def object(self, schema: dict, refs: tuple[str, ...], minimal: bool, depth: int) -> dict:
        """Every property in schema order (the required ones only when ``minimal``); with no
        properties, one entry of the first ``patternProperties`` pattern (its shortest key) or
        of ``additionalProperties`` (key ``"key"``)."""
        required = schema.get("required", ())
        required = set(required) if isinstance(required, list) else set()
        properties = schema.get("properties")
        if isinstance(properties, dict) and properties:
            return {key: self.value(value, refs, minimal, depth + 1)
                    for key, value in properties.items() if not minimal or key in required}
        if minimal:
            return {}
        patterns = schema.get("patternProperties")
        if isinstance(patterns, dict) and patterns:
            pattern, value = next(iter(patterns.items()))
            key = _sample_string([_translated(pattern)]) if isinstance(pattern, str) else None
            return {key or "key": self.value(value, refs, minimal, depth + 1)}
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict):
            return {"key": self.value(extra, refs, minimal, depth + 1)}
        return {}

    def resolved(self, ref: Any) -> Any:
        """The node ``ref`` names, as the compiler resolves it, or ``{}`` where it cannot."""
        if not isinstance(ref, str):
            return {}
        try:
            if self.document is None:  # built once: its id and anchor tables walk the whole schema
                self.document = SchemaDocument(self.root)
            return self.document.resolve(ref, pointer="#")[1]
        except JsonSchemaError:
            return {}


def _scalar(kind: str | None, schema: dict) -> Any:
    minimum = schema.get("minimum")
    if kind == "integer":
        return int(minimum) if isinstance(minimum, (int, float)) and abs(minimum) < 1e15 else 1
    if kind == "number":
        return minimum if isinstance(minimum, (int, float)) else 1.5
    if kind == "boolean":
        return True
    if kind == "null":
        return None
    low = _count(schema.get("minLength"), 1)
    constraints = []
    if isinstance(schema.get("format"), str):
        constraints.append(translate_format(schema["format"]))
    if isinstance(schema.get("pattern"), str):
        constraints.append(_translated(schema["pattern"]))
    return _sample_string(constraints) or "x" * low


def _translated(pattern: str) -> TranslatedPattern | None:
    try:
        return translate_pattern(pattern)
    except (PatternError, IndexcError):
        return None


def _sample_string(constraints: list[TranslatedPattern | None]) -> str | None:
    """The shortest string body the first usable constraint's regex accepts, made of letters,
    digits and printable ASCII (no quote or backslash: the body is then the value as it is);
    None where there is none or the regex does not compile within ``SAMPLE_MAX_STATES``."""
    for translated in constraints:
        if translated is not None:
            found = _shortest(translated.body_regex)
            if found is not None:
                return found
    return None


@lru_cache(maxsize=1024)
def _shortest(body_regex: str) -> str | None:
    """Breadth-first over the regex's byte DFA, preferred bytes first (``SAMPLE_BYTES``)."""
    try:
        dfa = compile_regex(body_regex, max_states=SAMPLE_MAX_STATES, source="synthetic instance")
    except IndexcError:
        return None
    parents: dict[int, tuple[int, int]] = {0: (-1, -1)}
    frontier = [0]
    while frontier:
        following = []
        for state in frontier:
            if dfa.accepting[state]:
                return _spelled(parents, state)
            row = dfa.transitions[state]
            for byte in SAMPLE_BYTES:
                after = int(row[byte])
                if after >= 0 and after not in parents:
                    parents[after] = (state, byte)
                    following.append(after)
        frontier = following
    return None


def _spelled(parents: dict[int, tuple[int, int]], state: int) -> str:
    out = []
    while parents[state][0] >= 0:
        state, byte = parents[state]
        out.append(byte)
    return bytes(reversed(out)).decode("ascii")


def _count(value: Any, default: int, most: int = 64) -> int:
    """A count keyword's value, at least 1 where the default is, bounded (a warm-up stays short)."""
    if not isinstance(value, int) or isinstance(value, bool):
        return default
    return min(max(value, default), most)

"""Compile a schema to its DFA once (the compiler's own DFA path, ``expr_to_dfa``), and ask it about JSON texts."""

from __future__ import annotations

import json
from functools import lru_cache

from indexc.automaton import ByteDFA
from indexc.jsonschema import JsonSchemaError, JsonSchemaOptions, lower_schema
from indexc.jsonschema.expr import NotRegular
from indexc.jsonschema.to_automaton import expr_to_dfa


@lru_cache(maxsize=256)
def _dfa(schema_json: str, options: JsonSchemaOptions) -> ByteDFA:
    lowered = lower_schema(schema_json, options)
    try:
        return expr_to_dfa(lowered, max_states=50_000)[0]
    except NotRegular as cycle:
        raise JsonSchemaError(f"recursive schema (definition cycle through {cycle.name}) needs the grammar path") from None


def dfa_of(schema: dict | bool, **options) -> ByteDFA:
    return _dfa(json.dumps(schema), JsonSchemaOptions(**options))


def accepts(schema: dict | bool, text: str, **options) -> bool:
    return dfa_of(schema, **options).matches(text.encode("utf-8"))


def spellings(value: object) -> list[str]:
    """Several serialisations of one value: separators, indentation, ensure_ascii on and off."""
    out = []
    for ensure_ascii in (True, False):
        out.append(json.dumps(value, ensure_ascii=ensure_ascii))
        out.append(json.dumps(value, ensure_ascii=ensure_ascii, separators=(",", ":")))
        out.append(json.dumps(value, ensure_ascii=ensure_ascii, indent=2))
    return out


def accepts_all_spellings(schema: dict | bool, value: object, **options) -> bool:
    return all(accepts(schema, text, **options) for text in spellings(value))

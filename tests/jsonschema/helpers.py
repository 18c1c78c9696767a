"""Compile a schema to its DFA once, and ask it about JSON texts."""

from __future__ import annotations

import json
from functools import lru_cache

from indexc.automaton import ByteDFA, compile_regex
from indexc.jsonschema import JsonSchemaOptions, schema_to_regex


@lru_cache(maxsize=256)
def _dfa(schema_json: str, options: JsonSchemaOptions) -> ByteDFA:
    return compile_regex(schema_to_regex(schema_json, options), max_states=50_000)


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

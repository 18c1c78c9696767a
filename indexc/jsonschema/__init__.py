"""JSON Schema -> a regex (the DFA path) or a grammar (the Earley path).

Design note.  A schema is lowered *once* into a small expression tree (``expr``) whose leaves
are regexes over JSON text and whose ``Ref`` nodes name definitions (``$ref`` targets, merged
``allOf`` nodes, "any JSON value").  The router (``indexc.pipeline.json_schema``) then
assembles that tree into one automaton, every ``Ref`` inlined (regular schemas: masks become
pure lookups; ``to_automaton``, or as regex text with ``to_regex``), or renders it as grammar
rules, every ``Ref`` a nonterminal (recursive schemas, or automata over the state limit).  One lowering for
both paths means both accept the same language, except for the DFA path's documented depth
bound on "any JSON value".

What the DFA reads is JSON *text*, while the schema talks about decoded *values*: strings
may be escaped (``json_text``), numbers have many spellings (``numbers``), patterns match the
decoded string (``patterns``).  Each of those modules states its spelling policy; together
they guarantee that ``json.dumps`` output (any separators, ``ensure_ascii`` on or off) of a
valid instance, with properties in schema order, is accepted.

Code map, in reading order:

- ``errors``        ``JsonSchemaError`` (pointer in every message)
- ``options``       ``JsonSchemaOptions``: whitespace policy, x-guidance, leniency, routing
- ``document``      JSON text -> object (line/column errors); local ``$ref`` resolution
- ``keywords``      supported, annotation and unsupported keywords
- ``merge``         ``allOf`` and siblings of ``$ref``: schema intersection; draft-4 spellings
- ``expr``          the lowered tree and its regex renderer
- ``digit_ranges``  regexes for ranges of digit strings (decimal, hex)
- ``numbers``       exact numeric ranges over decimal text; ``multipleOf``
- ``json_text``     the spellings of a character inside a JSON string
- ``patterns``      ``pattern``/``format``: decoded-string regex -> JSON-text regex
- ``punctuation``   brackets, separators, whitespace pieces
- ``any_value``     "any JSON value" (recursive; depth-bounded on the DFA path)
- ``complement``    keys matching no ``patternProperties`` (automaton complement)
- ``strings``, ``objects``, ``arrays``, ``literals``   one JSON type each; enum/const
- ``negation``      ``not`` with a positive form (``not: {pattern}``: excluded strings); dependencies as ``anyOf`` branches
- ``validator``     a small validator: ``enum`` values decided against the whole schema
- ``intersection``  one lexeme matching several regexes: the product of their automata
- ``one_of``        proving ``oneOf`` branches disjoint (or rewriting required-only ones as the ``anyOf`` they mean)
- ``lowering``      the driver: schema -> ``LoweredSchema``
- ``to_regex``      the DFA path as regex text (``schema_to_regex``, for tools and tests)
- ``to_automaton``  the DFA path as used by the compiler: tree -> byte DFA, no text round trip
- ``synthetic_instance`` a typical instance from the schema alone: the text of the grammar path's warm-up walk
- ``shared_nfa``    its Thompson construction, suffixes shared (linear in optional properties)
- ``to_grammar``    the grammar path's rendering (``indexc.grammar.ir.Grammar``); long counts in O(log n) rules

Not supported (refused with the pointer, or ignored with a warning in lenient mode), except
beside an ``enum``/``const``, where every keyword is decided value by value:
``if/then/else``, ``contains``, ``propertyNames``, ``unevaluated*``, ``uniqueItems: true``,
``not`` without a positive form (the positive forms: ``negation``'s note: types, required
names, patterns, string enums), two different ``pattern``s (or ``format``s) merged from
``allOf`` parts, ``oneOf`` branches not provably disjoint (``one_of``'s note lists the
proofs and rewrites), min/maxProperties over optional properties
(except "at least one"), ``multipleOf`` other than powers of ten (numbers) or bounded/whole
(integers).  Remote ``$ref``s are refused.
"""

from __future__ import annotations

from indexc.jsonschema.errors import JsonSchemaError
from indexc.jsonschema.lowering import LoweredSchema, lower_schema
from indexc.jsonschema.options import JsonSchemaOptions
from indexc.jsonschema.to_regex import NoRegexText, NotRegular, RegexTooLarge, render_regex

__all__ = ["JsonSchemaError", "JsonSchemaOptions", "LoweredSchema", "lower_schema", "schema_to_regex"]


def schema_to_regex(schema: dict | bool | str, options: JsonSchemaOptions = JsonSchemaOptions(), *,
                    source: str = "<schema>") -> str:
    """The regex (indexc's dialect, whole-match) of a regular schema's JSON texts.

    Raises ``JsonSchemaError`` for a schema that cannot be compiled, and for a recursive one
    ("needs the grammar path").
    """
    lowered = lower_schema(schema, options, source=source)
    try:
        return render_regex(lowered).regex
    except NotRegular as cycle:
        raise JsonSchemaError(f"recursive schema (definition cycle through {cycle.name}) needs the grammar path",
                              pointer="#", source=source) from None
    except NoRegexText as what:
        raise JsonSchemaError(f"{what} has no regex text; the compiler builds it as an automaton",
                              pointer="#", source=source) from None
    except RegexTooLarge as big:
        raise JsonSchemaError(f"the schema's regex exceeds {big.chars:,} characters; use the grammar path",
                              pointer="#", source=source) from None

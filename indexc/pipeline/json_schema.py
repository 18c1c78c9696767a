"""A JSON Schema constraint: the regular ones through the DFA path, the others to the grammar path.

Routing (``JsonSchemaOptions.mode``), recorded in the header's constraint as ``path`` and
``reason``:

- ``auto``: the lowered schema is rendered as one regex; a ``$ref`` cycle (not regular), a
  regex over ``MAX_AUTO_REGEX_CHARS``, or a DFA over ``dfa_max_states`` states (or over the
  automaton's NFA limit) sends it to the grammar path instead;
- ``dfa``: the regex or an error; ``cfg``: the grammar path always.

The DFA path is ``indexc.automaton.compile_regex`` + ``indexc.masks`` exactly as for a
regex; the grammar path is ``indexc.pipeline.grammar.compile_grammar_ir`` on the IR from
``indexc.jsonschema.to_grammar``.  Lenient-mode warnings (and unknown formats) travel in the
constraint dict as ``warnings``.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field

from indexc.automaton import compile_regex as regex_to_dfa
from indexc.errors import LimitError
from indexc.jsonschema import JsonSchemaError, JsonSchemaOptions, LoweredSchema, lower_schema
from indexc.jsonschema.expr import NotRegular, RegexTooLarge
from indexc.jsonschema.to_grammar import schema_grammar
from indexc.jsonschema.to_regex import render_regex
from indexc.masks import compute_mask_table
from indexc.pipeline.result import CompileOptions, CompileResult, elapsed_ms
from indexc.trie import TokenTrie
from indexc.vocab.model import Vocabulary

MAX_AUTO_REGEX_CHARS = 1_000_000


@dataclass(frozen=True)
class SchemaCompileOptions(CompileOptions):
    """CompileOptions plus the (resolved) JSON Schema options, for the header."""

    json_schema: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        return {**super().as_dict(), "json_schema": self.json_schema}


@dataclass(frozen=True)
class Route:
    path: str  # "dfa" or "cfg"
    reason: str
    regex: str | None = None


def compile_json_schema(
    schema_text: str,
    vocab: Vocabulary,
    trie: TokenTrie,
    options: CompileOptions = CompileOptions(),
    *,
    schema_options: JsonSchemaOptions = JsonSchemaOptions(),
    source: str = "<schema>",
) -> CompileResult:
    """Schema text -> CompileResult (a mask table on the DFA path, grammar tables on the cfg path)."""
    t0 = time.perf_counter()
    lowered = lower_schema(schema_text, schema_options, source=source)
    route = choose_route(lowered, options, source=source)
    t1 = time.perf_counter()
    header_options = SchemaCompileOptions(options.masks, options.max_states, json_schema=lowered.options.as_dict())
    result = None
    if route.path == "dfa":
        result, route = _compile_dfa(lowered, route, vocab, trie, header_options, source)
    if result is None:
        result = _compile_cfg(lowered, schema_text, vocab, trie, header_options, route, source)
    result.timings = {"lower_ms": elapsed_ms(t0, t1), **result.timings}
    result.constraint = {
        "kind": "json_schema",
        "source": schema_text,
        "sha256": hashlib.sha256(schema_text.encode("utf-8")).hexdigest(),
        "path": route.path,
        "reason": route.reason,
        "warnings": lowered.warnings,
    }
    return result


def choose_route(lowered: LoweredSchema, options: CompileOptions, *, source: str) -> Route:
    mode = lowered.options.mode
    if mode == "cfg":
        return Route("cfg", "--mode cfg")
    try:
        rendered = render_regex(lowered)
    except NotRegular as cycle:
        if mode == "dfa":
            raise JsonSchemaError(f"recursive schema (definition cycle through {cycle.name}) cannot take the DFA path",
                                  pointer="#", source=source) from None
        return Route("cfg", f"recursive: a $ref cycle through {cycle.name}")
    except RegexTooLarge as big:
        if mode == "dfa":
            raise JsonSchemaError(f"the schema's regex exceeds {big.chars:,} characters", pointer="#", source=source) from None
        return Route("cfg", f"regex over {big.chars:,} characters")
    if mode == "auto" and len(rendered.regex) > MAX_AUTO_REGEX_CHARS:
        return Route("cfg", f"regex of {len(rendered.regex):,} characters (over {MAX_AUTO_REGEX_CHARS:,})")
    why = "regular"
    if rendered.uses_any_value:
        why += f"; any-value nesting bounded at depth {lowered.options.any_depth}"
    return Route("dfa", why if mode == "auto" else f"--mode dfa ({why})", rendered.regex)


def _compile_dfa(lowered: LoweredSchema, route: Route, vocab, trie, options: SchemaCompileOptions,
                 source: str) -> tuple[CompileResult | None, Route]:
    """The DFA path; in auto mode a DFA over the limit gives (None, a cfg route) instead."""
    auto = lowered.options.mode == "auto"
    limit = min(lowered.options.dfa_max_states, options.max_states) if auto else options.max_states
    t0 = time.perf_counter()
    try:
        dfa = regex_to_dfa(route.regex, max_states=limit, source=source)
    except LimitError as error:
        if not auto:
            raise
        return None, Route("cfg", f"DFA over the auto-mode limit of {limit:,} states ({error.message})")
    t1 = time.perf_counter()
    stage_timings: dict[str, float] = {}
    table = compute_mask_table(dfa, trie, vocab, options.masks, timings=stage_timings)
    t2 = time.perf_counter()
    timings = {"dfa_ms": elapsed_ms(t0, t1), "masks_ms": elapsed_ms(t1, t2)}
    return CompileResult(table, {}, options, timings, stage_timings), route


def _compile_cfg(lowered: LoweredSchema, schema_text: str, vocab, trie, options: SchemaCompileOptions,
                 route: Route, source: str) -> CompileResult:
    try:
        from indexc.pipeline.grammar import compile_grammar_ir
    except ImportError:
        raise JsonSchemaError(f"this schema needs the grammar path ({route.reason}), which is not available",
                              pointer="#", source=source) from None
    grammar = schema_grammar(lowered, source=source)
    return compile_grammar_ir(grammar, vocab, trie, options, source=schema_text)

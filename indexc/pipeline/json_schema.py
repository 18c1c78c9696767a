"""A JSON Schema constraint: the regular ones through the DFA path, the others to the grammar path.

Routing (``JsonSchemaOptions.mode``), recorded in the header's constraint as ``path`` and
``reason``:

- ``auto``: the lowered schema is assembled into one automaton (``jsonschema.to_automaton``);
  a ``$ref`` cycle (not regular), a minimal DFA over ``dfa_max_states`` states, or a
  construction over ``--max-states``' limits sends it to the grammar path instead.  An NFA
  over its limit with the definitions inlined is tried once more with each definition that
  several ``$ref``s name built as its own minimal DFA (``_dfa_with_embedded_definitions``),
  and so is one whose inlined tree is over ``INLINED_TREE_FACTOR`` times the NFA limit, without
  building that NFA (the five MaskBench files of every 4th over it all went over the limit;
  their routing took 0.4-1.6 s less: kb_711 7.7 -> 6.2 s, o65415 7.3 -> 5.8 s);
- ``dfa``: the DFA (with the same second attempt) or an error; ``cfg``: the grammar path always.

The DFA path then runs ``indexc.masks`` exactly as for a regex; the grammar path is ``indexc.pipeline.grammar.compile_grammar_ir`` on the IR from
``indexc.jsonschema.to_grammar``.  Lenient-mode warnings (and unknown formats) travel in the
constraint dict as ``warnings``.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field

from indexc.automaton import ByteDFA
from indexc.errors import LimitError, NFASizeError
from indexc.jsonschema import JsonSchemaError, JsonSchemaOptions, LoweredSchema, lower_schema
from indexc.jsonschema.document import parse_schema_text
from indexc.jsonschema.expr import NotRegular
from indexc.jsonschema.to_automaton import INLINED_TREE_FACTOR, expr_to_dfa
from indexc.jsonschema.to_grammar import MAX_LEXER_STATES, schema_grammar
from indexc.masks import compute_mask_table
from indexc.pipeline.collector import collector_paused
from indexc.pipeline.result import CompileOptions, CompileResult, elapsed_ms
from indexc.trie import TokenTrie
from indexc.vocab.model import Vocabulary


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


@collector_paused()
def compile_json_schema(
    schema_text: str,
    vocab: Vocabulary,
    trie: TokenTrie,
    options: CompileOptions = CompileOptions(),
    *,
    schema_options: JsonSchemaOptions = JsonSchemaOptions(),
    source: str = "<schema>",
    warm_up: str | None = None,
) -> CompileResult:
    """Schema text -> CompileResult (a mask table on the DFA path, grammar tables on the cfg path).

    ``warm_up``: the grammar path's warm-up text (``compile_grammar_ir``) instead of the schema's
    synthetic instance; the DFA path has no use for one."""
    t0 = time.perf_counter()
    document = parse_schema_text(schema_text, source=source)  # parsed once: the lowering and the synthetic instance
    lowered = lower_schema(document, schema_options, source=source)
    t1 = time.perf_counter()
    header_options = SchemaCompileOptions(options.masks, options.max_states, json_schema=lowered.options.as_dict())
    dfa, route = build_dfa_or_route(lowered, options, source=source)
    t2 = time.perf_counter()
    if dfa is not None:
        stage_timings: dict[str, float] = {}
        table = compute_mask_table(dfa, trie, vocab, options.masks, timings=stage_timings)
        timings = {"dfa_ms": elapsed_ms(t1, t2), "masks_ms": elapsed_ms(t2, time.perf_counter())}
        result = CompileResult(table, {}, header_options, timings, stage_timings)
    else:
        result = _compile_cfg(lowered, document, schema_text, vocab, trie, header_options, route, source, warm_up)
        result.timings = {"routing_ms": elapsed_ms(t1, t2), **result.timings}
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


def build_dfa_or_route(lowered: LoweredSchema, options: CompileOptions, *, source: str) -> tuple[ByteDFA | None, Route]:
    """(the DFA, its route) on the DFA path, or (None, the cfg route and why)."""
    mode = lowered.options.mode
    if mode == "cfg":
        return None, Route("cfg", "--mode cfg")
    auto = mode == "auto"
    inlined = ""  # why the definitions were embedded (the first attempt's error), if they were
    try:
        try:
            dfa, uses_any_value = expr_to_dfa(lowered, max_states=options.max_states, source=source,
                                              inlined_tree_factor=INLINED_TREE_FACTOR if auto else None)
        except NFASizeError as error:
            inlined = f"inlined, {error.message}"
            dfa, uses_any_value = _dfa_with_embedded_definitions(lowered, options, source, auto)
    except NotRegular as cycle:
        if not auto:
            raise JsonSchemaError(f"recursive schema (definition cycle through {cycle.name}) cannot take the DFA path",
                                  pointer="#", source=source) from None
        return None, Route("cfg", f"recursive: a $ref cycle through {cycle.name}")
    except LimitError as error:
        both = f"{inlined}; with its definitions embedded as DFAs, {error.message}" if inlined else error.message
        if not auto:
            raise LimitError(both, source=error.source, position=error.position) from None
        return None, Route("cfg", f"DFA over the auto-mode limits ({both})")
    if auto and dfa.n_states > lowered.options.dfa_max_states:
        return None, Route("cfg", f"DFA over the auto-mode limits ({dfa.n_states:,} states, limit "
                                  f"{lowered.options.dfa_max_states:,})")
    why = "regular"
    if uses_any_value:
        why += f"; any-value nesting bounded at depth {lowered.options.any_depth}"
    if inlined:
        why += f"; definitions embedded as their own minimal DFAs ({inlined})"
    return dfa, Route("dfa", why if auto else f"--mode dfa ({why})")


def _dfa_with_embedded_definitions(lowered: LoweredSchema, options: CompileOptions, source: str,
                                   auto: bool) -> tuple[ByteDFA, bool]:
    """The second attempt at a DFA whose inlined NFA was too large: each definition that several
    ``$ref``s name built as its own minimal DFA and embedded (``expr_to_dfa(embed_definitions=True)``):
    the same language, so the same minimal DFA, from a smaller NFA.  The auto route gives it the
    limits of a DFA it would take (``dfa_max_states``, not ``--max-states``), so that a schema
    whose DFA is too large anyway fails sooner.  Five of the 39 grammar-path files of every 4th
    MaskBench file take the DFA path this way (``BENCHMARKS.md``, session 18)."""
    max_states = min(options.max_states, lowered.options.dfa_max_states) if auto else options.max_states
    return expr_to_dfa(lowered, max_states=max_states, source=source, embed_definitions=True)


def _compile_cfg(lowered: LoweredSchema, document: object, schema_text: str, vocab, trie,
                 options: SchemaCompileOptions, route: Route, source: str, warm_up: str | None) -> CompileResult:
    try:
        from indexc.grammar.lexemes import TerminalDFAs
        from indexc.pipeline.grammar import compile_grammar_ir
    except ImportError:
        raise JsonSchemaError(f"this schema needs the grammar path ({route.reason}), which is not available",
                              pointer="#", source=source) from None
    dfas: TerminalDFAs = {}  # the terminal DFAs compiled to size the lexer, reused by the compile
    grammar = schema_grammar(lowered, source=source, max_lexer_states=MAX_LEXER_STATES, max_states=options.max_states,
                             dfas=dfas)
    warm_up = _synthetic_text(lowered, document) if warm_up is None else warm_up
    return compile_grammar_ir(grammar, vocab, trie, options, source=schema_text, dfas=dfas, warm_up=warm_up)


def _synthetic_text(lowered: LoweredSchema, document: object) -> str:
    """The schema's synthetic instance (``synthetic_instance``) with the constraint's separators:
    the grammar path's default warm-up text (format 7)."""
    from indexc.jsonschema.synthetic_instance import synthetic_text

    options = lowered.options
    return synthetic_text(document, item_separator=options.item_separator or ",",
                          key_separator=options.key_separator or ":",
                          flexible_whitespace=bool(options.whitespace_flexible) and options.whitespace_pattern is None)

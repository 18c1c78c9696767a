"""One compile call per constraint kind, and a clear failure when a kind's compiler is absent.

The JSON Schema and grammar compilers (``indexc.pipeline.json_schema``, ``indexc.pipeline.grammar``)
are imported on first use, not at import time: a build of regexes must work in a tree (or an
install) where they are missing, and an entry of a missing kind must fail *as an entry*
(``KindUnavailable``, listed with its file like any other failure), not crash the build.
Only the absence of the module itself counts as "unavailable": an import error inside it is a
real failure and is reported as such.
"""

from __future__ import annotations

import importlib

from indexc.build.project import ConstraintSpec
from indexc.errors import IndexcError
from indexc.pipeline.result import CompileOptions, CompileResult

KIND_MODULES = {"json_schema": "indexc.pipeline.json_schema", "grammar": "indexc.pipeline.grammar"}
KIND_WORDS = {"regex": "regex", "json_schema": "JSON Schema", "grammar": "grammar"}


class KindUnavailable(IndexcError):
    """This install has no compiler for the constraint's kind."""


def compile_text(constraint: ConstraintSpec, text: str, vocab, trie, options: CompileOptions) -> CompileResult:
    """Compile ``text`` as ``constraint.kind`` (``IndexcError`` for anything wrong with the input)."""
    if constraint.kind == "regex":
        from indexc.pipeline import compile_regex

        return compile_regex(text, vocab, trie, options, source=constraint.file)
    module = _kind_module(constraint)
    if constraint.kind == "json_schema":
        extra = {"schema_options": _schema_options(constraint)} if constraint.schema_options else {}
        return module.compile_json_schema(text, vocab, trie, options, source=constraint.file, **extra)
    return module.compile_grammar(text, vocab, trie, options, syntax=constraint.syntax or _syntax(constraint),
                                  source=constraint.file)


def _kind_module(constraint: ConstraintSpec):
    name = KIND_MODULES[constraint.kind]
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name != name:
            raise
        raise KindUnavailable(f"the {KIND_WORDS[constraint.kind]} compiler is not available in this indexc "
                              f"({name} is missing)", source=constraint.file) from None


def _schema_options(constraint: ConstraintSpec):
    """The entry's ``schema_options`` table as ``JsonSchemaOptions`` (same names as its fields)."""
    from indexc.jsonschema import JsonSchemaOptions

    try:
        return JsonSchemaOptions(**constraint.schema_options)
    except (TypeError, ValueError) as exc:
        raise IndexcError(f"bad schema_options: {exc}", source=constraint.file) from None


def _syntax(constraint: ConstraintSpec) -> str | None:
    """``lark`` or ``gbnf`` from the file name; None lets the grammar compiler decide."""
    for syntax in ("lark", "gbnf"):
        if constraint.file.endswith(f".{syntax}"):
            return syntax
    return None

"""``indexc compile --json-schema``: the JSON Schema options and the call into the pipeline.

Options left unset here fall back to the schema's own ``x-guidance`` object, then to the
defaults (see ``indexc.jsonschema.options``).  Warnings (lenient mode, unchecked formats) are
printed to stderr, one per line, and kept in the header's constraint (``--json`` prints them
from there).
"""

from __future__ import annotations

import argparse
import sys

from indexc.cli.common import read_text_file


def add_arguments(group) -> None:
    """The JSON Schema-only options of ``indexc compile``."""
    group.add_argument("--compact", action="store_true",
                       help="no whitespace between JSON tokens (x-guidance whitespace_flexible: false)")
    group.add_argument("--whitespace-pattern", metavar="REGEX", default=None,
                       help="regex matched at most once where JSON allows whitespace, e.g. '[ \\n]{0,4}'")
    group.add_argument("--item-separator", metavar="REGEX", default=None, help="regex between items (default ',')")
    group.add_argument("--key-separator", metavar="REGEX", default=None, help="regex between key and value (default ':')")
    group.add_argument("--lenient", action="store_true",
                       help="ignore unsupported keywords (with a warning each) and accept oneOf as anyOf")
    group.add_argument("--mode", choices=("auto", "dfa", "cfg"), default="auto",
                       help="auto: DFA when regular and small, else grammar path (default); dfa; cfg")
    group.add_argument("--any-depth", type=int, default=3, metavar="N",
                       help="DFA path: nesting depth of 'any JSON value' (default 3)")


def schema_options_from_args(args: argparse.Namespace):
    from indexc.jsonschema import JsonSchemaOptions

    return JsonSchemaOptions(
        whitespace_flexible=False if args.compact else None,
        whitespace_pattern=args.whitespace_pattern,
        item_separator=args.item_separator,
        key_separator=args.key_separator,
        lenient=True if args.lenient else None,
        mode=args.mode,
        any_depth=args.any_depth,
    )


def compile_from_args(args: argparse.Namespace, vocab, trie, options, warm_up: str | None = None):
    from indexc.pipeline.json_schema import compile_json_schema

    text = read_text_file(args.json_schema, "JSON Schema file")
    result = compile_json_schema(text, vocab, trie, options, schema_options=schema_options_from_args(args),
                                 source=args.json_schema, warm_up=warm_up)
    for warning in result.constraint.get("warnings", []):
        print(f"{args.json_schema}: warning: {warning}", file=sys.stderr)
    return result

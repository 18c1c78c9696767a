"""``indexc compile --json-schema``: the JSON Schema options and the call into the pipeline."""

from __future__ import annotations

import argparse

from indexc.errors import IndexcError


def add_arguments(group) -> None:
    """The JSON Schema-only options of ``indexc compile``."""


def compile_from_args(args: argparse.Namespace, vocab, trie, options):
    raise IndexcError("JSON Schema compile is not available yet", source=args.json_schema)

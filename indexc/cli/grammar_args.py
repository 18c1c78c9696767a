"""``indexc compile --grammar``: the grammar options and the call into the pipeline."""

from __future__ import annotations

import argparse

from indexc.cli.common import read_text_file


def add_arguments(group) -> None:
    """The grammar-only options of ``indexc compile``."""
    group.add_argument("--grammar-syntax", choices=("lark", "gbnf"), default=None,
                       help="the grammar's syntax (default: from the file name, .lark or .gbnf)")


def compile_from_args(args: argparse.Namespace, vocab, trie, options, warm_up: str | None = None):
    """Read the grammar file and compile it (Lark or GBNF front end, then the Earley path)."""
    from indexc.pipeline.grammar import compile_grammar

    text = read_text_file(args.grammar, "grammar file")
    return compile_grammar(text, vocab, trie, options, syntax=args.grammar_syntax, source=args.grammar,
                           warm_up=warm_up)

"""``indexc compile --grammar``: the grammar options and the call into the pipeline."""

from __future__ import annotations

import argparse

from indexc.cli.common import read_text_file
from indexc.limits import DEFAULT_WARM_UP_SAMPLES


def add_arguments(group) -> None:
    """The grammar-only options of ``indexc compile``."""
    group.add_argument("--grammar-syntax", choices=("lark", "gbnf"), default=None,
                       help="the grammar's syntax (default: from the file name, .lark or .gbnf)")
    group.add_argument("--warm-up-samples", type=_tokens, default=DEFAULT_WARM_UP_SAMPLES, metavar="TOKENS",
                       help="tokens of random sentences of the grammar walked at compile time after --warm-up's "
                            f"text, their parser memo and masks stored (default {DEFAULT_WARM_UP_SAMPLES}; 0: none)")


def compile_from_args(args: argparse.Namespace, vocab, trie, options, warm_up: str | None = None):
    """Read the grammar file and compile it (Lark or GBNF front end, then the Earley path)."""
    from indexc.pipeline.grammar import compile_grammar

    text = read_text_file(args.grammar, "grammar file")
    return compile_grammar(text, vocab, trie, options, syntax=args.grammar_syntax, source=args.grammar,
                           warm_up=warm_up, sampled_warm_up=args.warm_up_samples)


def _tokens(text: str) -> int:
    """A token count of at least 0 (argparse's type: a bad one is a usage error, exit 2)."""
    value = int(text)
    if value < 0:
        raise ValueError(text)
    return value

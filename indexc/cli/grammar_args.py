"""``indexc compile --grammar``: the grammar options and the call into the pipeline."""

from __future__ import annotations

import argparse

from indexc.errors import IndexcError


def add_arguments(group) -> None:
    """The grammar-only options of ``indexc compile``."""


def compile_from_args(args: argparse.Namespace, vocab, trie, options):
    raise IndexcError("grammar compile is not available yet", source=args.grammar)

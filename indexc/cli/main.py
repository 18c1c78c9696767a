"""``indexc``: the command line.

Each subcommand lives in its own module of this package and exposes
``register(subparsers)`` (adds its parser and sets ``func``).  Conventions for all of them:
exit 0 on success, 1 on a negative answer (``check`` rejecting a text), 2 on any error, with
one line on stderr; ``--json`` prints machine-readable output (the last line is one JSON
object); ``-q`` silences progress.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from indexc import __version__
from indexc.allocator import reuse_freed_memory
from indexc.errors import IndexcError

SUBCOMMANDS = ("vocab", "compile", "inspect", "check", "build", "diff")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="indexc",
        description="Compile regexes, JSON Schemas and grammars with an LLM vocabulary into token-mask indexes.",
    )
    parser.add_argument("--version", action="version", version=f"indexc {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in SUBCOMMANDS:
        importlib.import_module(f"indexc.cli.{name}_cmd").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    reuse_freed_memory()  # this process is ours: its compiles reuse freed pages (``indexc.allocator``)
    try:
        return int(args.func(args) or 0)
    except IndexcError as exc:
        print(f"indexc {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("indexc: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())

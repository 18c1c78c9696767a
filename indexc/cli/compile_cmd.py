"""``indexc compile``: one constraint + a tokenizer -> one artifact file.

The compile runs under the limits of ``--max-states``, ``--max-memory`` and ``--time-limit``
(``indexc.limits``): one hit is a ``LimitError`` line and exit 2, and no file is written.
"""

from __future__ import annotations

import argparse
import sys

from indexc.cli import grammar_args, schema_args
from indexc.cli.common import add_tokenizer_arguments, load_tokenizer_and_trie, print_json, read_text_file
from indexc.limits import DEFAULT_MAX_MEMORY, CompileLimits, enforced, parse_size


def register(subparsers) -> None:
    p = subparsers.add_parser("compile", help="compile a regex, JSON Schema or grammar with a tokenizer into an index artifact",
                              description="Compile a constraint and a tokenizer's vocabulary into an index file.")
    add_tokenizer_arguments(p)
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--regex", metavar="PATTERN", help="the regular expression (whole-string match)")
    what.add_argument("--regex-file", metavar="FILE", help="a file holding the regular expression")
    what.add_argument("--json-schema", metavar="FILE", help="a JSON Schema file (.json)")
    what.add_argument("--grammar", metavar="FILE", help="a Lark (.lark) or GBNF (.gbnf) grammar file")
    p.add_argument("-o", "--output", required=True, metavar="OUT", help="artifact path (.idx; .zst for the compressed form)")
    p.add_argument("--jobs", type=int, default=0, metavar="N", help="worker processes (default 0: all cores)")
    p.add_argument("--max-states", type=int, default=None, metavar="N",
                   help="refuse a DFA with more states (default 100,000; its construction may reach 4x N before minimisation)")
    p.add_argument("--max-memory", type=_size, default=DEFAULT_MAX_MEMORY, metavar="SIZE",
                   help="refuse a compile estimated to need more memory (bytes, or 512M, 4G; default 4G)")
    p.add_argument("--time-limit", type=_seconds, default=None, metavar="SECONDS",
                   help="stop a compile that takes longer (nothing is written)")
    p.add_argument("--compress", action="store_true", help="write the zstandard shipping form")
    p.add_argument("--fsync", action="store_true", help="fsync the artifact and its directory (survives a power loss)")
    p.add_argument("--no-byte-classes", action="store_true", help="ablation: one class per byte")
    p.add_argument("--no-token-classes", action="store_true", help="ablation: walk the byte trie, not the class trie")
    p.add_argument("--no-dead-byte-pruning", action="store_true", help="ablation: keep tokens with dead bytes in the walk")
    p.add_argument("--no-mute-literals", action="store_true", help="ablation: keep long literals' states in the walk's classes")
    p.add_argument("--no-first-step-sharing", action="store_true",
                   help="ablation: walk every state from the root, not each distinct first step once")
    p.add_argument("--no-loop-regions", action="store_true",
                   help="ablation: walk the trie a state's self-loop covers from every such state")
    p.add_argument("--slices", action="store_true", help="add self-loop token groups at once (off: measured slower here)")
    p.add_argument("--warm-up", metavar="FILE",
                   help="grammar path: a typical document (or instance) walked at compile time; its parser memo "
                        "and masks are stored, and the item bounds of the places it passes (a grammar with heavy "
                        "lexer states, format 11), so that requests like it find their masks ready (default: a JSON "
                        "Schema's synthetic instance; for a grammar, sentences sampled from it: --warm-up-samples)")
    p.add_argument("--json", action="store_true", help="print one JSON object (last line)")
    p.add_argument("-q", "--quiet", action="store_true", help="print nothing on success")
    schema_args.add_arguments(p.add_argument_group("JSON Schema options"))
    grammar_args.add_arguments(p.add_argument_group("grammar options"))
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from indexc.masks import MaskOptions
    from indexc.pipeline import CompileOptions, write
    from indexc.pipeline.collector import collector_paused

    vocab, trie, vocab_ms, cache_hit = load_tokenizer_and_trie(args)
    masks = MaskOptions(
        byte_classes=not args.no_byte_classes,
        token_classes=not args.no_token_classes,
        dead_byte_pruning=not args.no_dead_byte_pruning,
        mute_literals=not args.no_mute_literals,
        slices=args.slices,
        first_step_sharing=not args.no_first_step_sharing,
        loop_regions=not args.no_loop_regions,
        jobs=args.jobs,
    )
    options = CompileOptions(masks=masks) if args.max_states is None else CompileOptions(masks, args.max_states)
    limits = CompileLimits(options.max_states, args.max_memory, args.time_limit)
    with collector_paused():  # one pause over the compile and its write (``pipeline.collector``)
        warm_up = None if args.warm_up is None else read_text_file(args.warm_up, "warm-up file")
        with enforced(limits):
            result = compile_constraint(args, vocab, trie, options, warm_up)
        if warm_up is not None and result.constraint.get("path") == "dfa":
            print(f"indexc compile: warning: --warm-up {args.warm_up} ignored: this constraint took the DFA path, "
                  "whose artifact stores every mask already", file=sys.stderr)
        summary = write(result, vocab, args.output, compress=args.compress, durable=args.fsync)
    if not args.quiet:  # a grammar's unused or never-ending parts, a lenient schema's dropped keywords
        where = args.grammar or args.json_schema or "constraint"
        for warning in result.constraint.get("warnings", []):
            print(f"indexc compile: warning: {where}: {warning}", file=sys.stderr)
    report = {
        "path": result.constraint["path"],
        "reason": result.constraint.get("reason"),
        "warnings": result.constraint.get("warnings", []),
        "output": str(summary.path),
        "bytes": int(summary.bytes),
        "compile_ms": result.compile_ms,
        "limits": limits.as_dict(),
        "vocab_ms": vocab_ms,
        "vocab_cache_hit": cache_hit,
        "states": result.table.n_states,
        "classes": result.table.n_classes,
        "unique_masks": len(result.table.masks),
        "live_tokens": int(result.table.live_tokens.size),
        "timings": {**result.timings, **result.stage_timings},
    }
    if args.json:
        print_json(report)
    elif not args.quiet:
        print(
            f"{report['output']}: {report['states']} states, {report['unique_masks']} unique masks, "
            f"{report['bytes']:,} bytes; compile {report['compile_ms']:.1f} ms "
            f"(vocabulary and trie {vocab_ms:.1f} ms{', cached' if cache_hit else ''})"
        )
    return 0


def _size(text: str) -> int:
    try:
        return parse_size(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a size: {text!r} (bytes, or a number with K, M, G)") from None


def _seconds(text: str) -> float:
    try:
        seconds = float(text)
    except ValueError:
        seconds = 0.0
    if not seconds > 0:
        raise argparse.ArgumentTypeError(f"not a positive number of seconds: {text!r}")
    return seconds


def compile_constraint(args: argparse.Namespace, vocab, trie, options, warm_up: str | None = None):
    """Dispatch on the constraint kind given on the command line -> CompileResult (``warm_up``:
    the grammar path's warm-up text, ``--warm-up``; a regex has no use for one)."""
    if args.json_schema is not None:
        return schema_args.compile_from_args(args, vocab, trie, options, warm_up)
    if args.grammar is not None:
        return grammar_args.compile_from_args(args, vocab, trie, options, warm_up)
    from indexc.pipeline import compile_regex

    if args.regex is not None:
        pattern, source = args.regex, "--regex"
    else:
        pattern, source = read_text_file(args.regex_file, "regex file").rstrip("\r\n"), args.regex_file
    return compile_regex(pattern, vocab, trie, options, source=source)

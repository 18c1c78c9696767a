"""Arguments and helpers shared by the subcommands (tokenizer options, JSON output)."""

from __future__ import annotations

import argparse
import json
import time

from indexc.errors import IndexcError


def add_tokenizer_arguments(parser: argparse.ArgumentParser, *, flag: str = "--tokenizer") -> None:
    """``--tokenizer`` plus the overrides every command that reads a vocabulary accepts."""
    parser.add_argument(flag, dest="tokenizer", required=True, metavar="FILE",
                        help="HF tokenizer.json (or .json.zst) or a .gguf file")
    parser.add_argument("--tokenizer-config", metavar="FILE", default=None,
                        help="HF tokenizer_config.json (default: found beside the tokenizer)")
    parser.add_argument("--eos", metavar="ID[,ID...]", default=None, type=parse_id_list,
                        help="end-of-sequence token ids (default: from the tokenizer and its config)")
    parser.add_argument("--vocab-size", metavar="N", type=int, default=None,
                        help="model vocabulary size when larger than the tokenizer's (extra ids are holes)")
    parser.add_argument("--no-cache", action="store_true",
                        help="do not use the vocabulary+trie cache (INDEXC_CACHE_DIR, default ~/.cache/indexc)")


def parse_id_list(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(part) for part in text.split(",") if part.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated token ids, got {text!r}") from None


def load_tokenizer(args: argparse.Namespace):
    """(Vocabulary, load time in ms) for the tokenizer options of ``args`` (through the cache)."""
    vocab, _, load_ms, _ = load_tokenizer_and_trie(args)
    return vocab, load_ms


def load_tokenizer_and_trie(args: argparse.Namespace):
    """(Vocabulary, TokenTrie, load time in ms, cache hit) for the tokenizer options of ``args``."""
    from indexc.pipeline.collector import freeze_survivors
    from indexc.trie.cache import load_vocabulary_and_trie

    t0 = time.perf_counter()
    vocab, trie, hit = load_vocabulary_and_trie(
        args.tokenizer, config_path=args.tokenizer_config, eos_ids=args.eos, vocab_size=args.vocab_size,
        cache_dir=None if getattr(args, "no_cache", False) else "default",
    )
    freeze_survivors()  # this process is ours: its compiles' collections skip the vocabulary (``pipeline.collector``)
    return vocab, trie, round((time.perf_counter() - t0) * 1000.0, 3), hit


def print_json(obj: dict) -> None:
    print(json.dumps(obj, sort_keys=True))


def read_text_file(path: str, what: str) -> str:
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise IndexcError(f"cannot read {what}: {exc}", source=path) from None

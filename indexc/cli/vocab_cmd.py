"""``indexc vocab``: what the compiler sees of a tokenizer (family, ids, eos, fingerprint, trie).

Useful before compiling: it shows which ids end a sequence (and so are allowed in accepting
states), which are special or holes (never allowed), and the fingerprint an artifact built
with this tokenizer will carry.  ``--tokens`` lists every id with its exact bytes, so a
reviewer can see what a token stands for (the GPT-2 byte map and ``▁`` already undone).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Sequence

import numpy as np

from indexc.cli.common import load_tokenizer_and_trie, parse_id_list, print_json
from indexc.vocab import TokenKind, Vocabulary
from indexc.vocab.display import kind_name, printable


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "vocab", help="show how a tokenizer's vocabulary is read",
        description="Read a tokenizer (HF tokenizer.json, .json.zst, or GGUF) and print its family, "
                    "size, special and eos ids, fingerprint and token-trie size.",
    )
    p.add_argument("tokenizer", metavar="TOKENIZER", help="HF tokenizer.json (or .json.zst) or a .gguf file")
    p.add_argument("--config", "--tokenizer-config", dest="tokenizer_config", metavar="FILE", default=None,
                   help="HF tokenizer_config.json (default: found beside the tokenizer)")
    p.add_argument("--eos", metavar="ID[,ID...]", default=None, type=parse_id_list,
                   help="end-of-sequence token ids (default: from the tokenizer and its config)")
    p.add_argument("--vocab-size", metavar="N", type=int, default=None,
                   help="model vocabulary size when larger than the tokenizer's (extra ids are holes)")
    p.add_argument("--tokens", action="store_true", help="list every token: id, kind, hex bytes, text")
    p.add_argument("--json", action="store_true",
                   help="JSON lines: one object per token with --tokens, then the summary object")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    vocab, trie, load_ms, cached = load_tokenizer_and_trie(args)
    if args.tokens:
        lines = token_json_lines(vocab) if args.json else token_text_lines(vocab)
        sys.stdout.writelines(lines)
    summary = summarize(vocab, trie_nodes=trie.n_nodes, load_ms=load_ms, cached=cached)
    if args.json:
        print_json(summary)
    else:
        print(summary_text(summary))
    return 0


def summarize(vocab: Vocabulary, *, trie_nodes: int, load_ms: float, cached: bool) -> dict:
    counts = np.bincount(vocab.kinds, minlength=len(TokenKind))
    return {
        "tokenizer": vocab.source,
        "family": vocab.family,
        "size": vocab.size,
        "kinds": {kind_name(kind): int(counts[kind]) for kind in TokenKind},
        "special_ids": vocab.special_ids.tolist(),
        "eos_ids": list(vocab.eos_ids),
        "eos_tokens": [vocab.names[i] for i in vocab.eos_ids],
        "fingerprint": vocab.fingerprint,
        "trie_nodes": int(trie_nodes),
        "load_ms": load_ms,  # vocabulary and trie, through the cache when it holds them
        "cache_hit": cached,
    }


def summary_text(summary: dict) -> str:
    kinds = ", ".join(f"{count} {name}" for name, count in summary["kinds"].items())
    eos = ", ".join(f"{i} {name}" for i, name in zip(summary["eos_ids"], summary["eos_tokens"])) or "none"
    rows = [
        ("tokenizer", summary["tokenizer"]),
        ("family", summary["family"]),
        ("size", f"{summary['size']} ids ({kinds})"),
        ("special ids", f"{id_ranges(summary['special_ids']) or 'none'} ({len(summary['special_ids'])})"),
        ("eos ids", eos),
        ("fingerprint", summary["fingerprint"]),
        ("trie nodes", str(summary["trie_nodes"])),
        ("time", f"vocabulary and trie {summary['load_ms']:.1f} ms" + (" (cached)" if summary["cache_hit"] else "")),
    ]
    return "\n".join(f"{label:<12} {value}" for label, value in rows)


def id_ranges(ids: Sequence[int]) -> str:
    """``[0, 1, 2, 5]`` -> ``"0-2, 5"`` (ids sorted ascending)."""
    parts: list[str] = []
    start = previous = None
    for i in [*ids, None]:
        if start is not None and i == previous + 1:
            previous = i
            continue
        if start is not None:
            parts.append(str(start) if start == previous else f"{start}-{previous}")
        start = previous = i
    return ", ".join(parts)


def token_text_lines(vocab: Vocabulary) -> Iterator[str]:
    """``id<TAB>kind<TAB>hex<TAB>"text"`` per token; a special token shows its name unquoted."""
    for i, (data, kind) in enumerate(zip(vocab.token_bytes, vocab.kinds.tolist())):
        if kind == TokenKind.SPECIAL:
            shown = printable(vocab.names[i].encode("utf-8", "surrogatepass"))
        elif kind == TokenKind.HOLE:
            shown = ""
        else:
            shown = '"' + printable(data).replace('"', '\\"') + '"'
        yield f"{i}\t{kind_name(kind)}\t{data.hex() or '-'}\t{shown}\n"


def token_json_lines(vocab: Vocabulary) -> Iterator[str]:
    """One JSON object per token: id, kind, hex, text (printable bytes) and name."""
    for i, (data, kind) in enumerate(zip(vocab.token_bytes, vocab.kinds.tolist())):
        record = {"id": i, "kind": kind_name(kind), "hex": data.hex(), "text": printable(data),
                  "name": vocab.names[i] if vocab.names else ""}
        yield json.dumps(record) + "\n"  # ASCII: no U+2028 or U+0085 can split a line

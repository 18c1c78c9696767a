"""``indexc check``: tokenize texts as the model would and walk them through an artifact.

The text is tokenized by the HF ``tokenizers`` library from the same tokenizer.json the
artifact was built for (the fingerprints must match), without special tokens, and walked
token by token through the runtime: every token must be allowed, and the end must be a
place where the end-of-sequence token is allowed.  Exit 0: every text accepted; 1: some text
rejected (the report gives the token index, the byte offset and the token); 2: an error.
An artifact built for another vocabulary is an error naming both fingerprints;
``--allow-fingerprint-mismatch`` walks it anyway, with a warning on stderr.
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings

from indexc.cli.common import add_tokenizer_arguments, load_tokenizer, print_json, read_text_file
from indexc.errors import IndexcError


def register(subparsers) -> None:
    p = subparsers.add_parser("check", help="walk texts through an artifact's masks",
                              description="Tokenize texts and check that an artifact accepts them.")
    p.add_argument("artifact", metavar="ARTIFACT")
    add_tokenizer_arguments(p)
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--text", metavar="S", help="the text to check")
    what.add_argument("--text-file", metavar="F", help="a file whose whole content is the text")
    what.add_argument("--jsonl", metavar="F", help='one text per line: a JSON string or {"text": ...}')
    p.add_argument("--allow-fingerprint-mismatch", action="store_true",
                   help="walk the texts even if the artifact was built for another vocabulary (prints a warning)")
    p.add_argument("--json", action="store_true", help="one JSON object per text, then a summary object")
    p.add_argument("-q", "--quiet", action="store_true", help="print nothing; the exit code says it")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import indexc_runtime

    vocab, _ = load_tokenizer(args)
    index = _load_checked(args.artifact, vocab.fingerprint, args.allow_fingerprint_mismatch)
    encode = _encoder(args.tokenizer)
    texts = _texts(args)
    rejected = 0
    for number, text in enumerate(texts, start=1):
        try:
            verdict = walk(index, vocab, encode(text))
        except indexc_runtime.ArtifactError as exc:  # a bad state-table value meets the walk
            raise IndexcError(str(exc).removeprefix(f"{args.artifact}: "), source=args.artifact) from None
        rejected += not verdict["accepted"]
        verdict["line" if args.jsonl else "text_index"] = number
        _report(args, verdict)
    if args.json:
        print_json({"texts": len(texts), "accepted": len(texts) - rejected, "rejected": rejected})
    return 1 if rejected else 0


def _load_checked(path: str, fingerprint: str, allow_mismatch: bool):
    """The artifact, refused for another vocabulary unless allowed, and then with a warning on stderr."""
    import indexc_runtime

    try:
        index = indexc_runtime.load(path)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", indexc_runtime.FingerprintMismatchWarning)
            index.check_fingerprint(fingerprint, allow_mismatch=allow_mismatch)
    except (indexc_runtime.ArtifactError, indexc_runtime.FingerprintMismatch) as exc:
        raise IndexcError(str(exc).removeprefix(f"{path}: "), source=path) from None
    for warning in caught:
        print(f"indexc check: warning: {warning.message}", file=sys.stderr)
    return index


def walk(index, vocab, token_ids: list[int]) -> dict:
    """Advance token by token; the verdict says where and why a text is rejected."""
    from indexc_runtime import TokenNotAllowed

    matcher = index.matcher()
    offset = 0
    for position, token in enumerate(token_ids):
        try:
            matcher.advance(token)
        except TokenNotAllowed:
            return {"accepted": False, "reason": "token not allowed", "token_index": position,
                    "token_id": token, "token": vocab.token_bytes[token].decode("utf-8", "replace"),
                    "byte_offset": offset, "tokens": len(token_ids)}
        offset += len(vocab.token_bytes[token])
    if not matcher.is_accepting():
        return {"accepted": False, "reason": "text ends where the constraint cannot stop",
                "token_index": len(token_ids), "byte_offset": offset, "tokens": len(token_ids)}
    return {"accepted": True, "tokens": len(token_ids)}


def _encoder(tokenizer_path: str):
    """A function text -> token ids, from the HF ``tokenizers`` library."""
    if str(tokenizer_path).endswith(".gguf"):
        raise IndexcError("check tokenizes with a HF tokenizer.json; a GGUF file cannot tokenize here",
                          source=tokenizer_path)
    from tokenizers import Tokenizer

    from indexc.vocab import read_tokenizer_json_text

    tokenizer = Tokenizer.from_str(read_tokenizer_json_text(tokenizer_path))
    return lambda text: tokenizer.encode(text, add_special_tokens=False).ids


def _texts(args: argparse.Namespace) -> list[str]:
    if args.text is not None:
        return [args.text]
    if args.text_file is not None:
        return [read_text_file(args.text_file, "text file")]
    texts = []
    for number, line in enumerate(read_text_file(args.jsonl, "JSONL file").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            raise IndexcError(f"line {number}: not JSON: {exc.msg}", source=args.jsonl) from None
        text = value.get("text") if isinstance(value, dict) else value
        if not isinstance(text, str):
            raise IndexcError(f'line {number}: expected a JSON string or {{"text": string}}', source=args.jsonl)
        texts.append(text)
    return texts


def _report(args: argparse.Namespace, verdict: dict) -> None:
    if args.json:
        print_json(verdict)
    elif not args.quiet:
        if verdict["accepted"]:
            print(f"accepted ({verdict['tokens']} tokens)")
        elif "token_id" in verdict:
            print(f"rejected at token {verdict['token_index']} (id {verdict['token_id']}, "
                  f"{verdict['token']!r}) at byte {verdict['byte_offset']}: {verdict['reason']}")
        else:
            print(f"rejected at the end (byte {verdict['byte_offset']}): {verdict['reason']}")

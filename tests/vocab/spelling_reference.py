"""An independent, deliberately plain reading of a tokenizer.json for the tests.

One Python loop per token, written from each family's rules and nothing from ``indexc.vocab``:
the GPT-2 byte map built the textbook way, ``<0xNN>`` matched by a regex, ``▁`` replaced.
``indexc.vocab`` must agree with it on every id of every bundled tokenizer.
"""

from __future__ import annotations

import re

BYTE_PIECE = re.compile(r"<0x([0-9A-Fa-f]{2})>")


def gpt2_char_to_byte() -> dict[str, int]:
    """Inverse of GPT-2's bytes_to_unicode: printable Latin-1 stays, the rest moves to U+0100+."""
    kept = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    chars = {b: chr(b) for b in kept}
    shift = 0
    for b in range(256):
        if b not in chars:
            chars[b] = chr(256 + shift)
            shift += 1
    return {c: b for b, c in chars.items()}


def reference_tokens(doc: dict, family: str) -> dict[int, tuple[str, bytes]]:
    """id -> (kind name, bytes) for a tokenizer.json of a known family."""
    model = doc["model"]
    if isinstance(model["vocab"], list):
        pieces = {i: entry[0] for i, entry in enumerate(model["vocab"])}
    else:
        pieces = {i: s for s, i in model["vocab"].items()}
    char_to_byte = gpt2_char_to_byte()
    out: dict[int, tuple[str, bytes]] = {}
    for token_id, piece in pieces.items():
        if family == "byte-level-bpe":
            out[token_id] = ("normal", bytes(char_to_byte[c] for c in piece))
        elif (match := BYTE_PIECE.fullmatch(piece)) and family == "sentencepiece-bpe":
            out[token_id] = ("byte", bytes([int(match.group(1), 16)]))
        else:
            out[token_id] = ("normal", piece.replace("\u2581", " ").encode("utf-8"))
    unk = model.get("unk_id")
    if unk is None and model.get("unk_token") is not None:
        unk = {s: i for i, s in pieces.items()}.get(model["unk_token"])
    if unk is not None:
        out[unk] = ("special", b"")
    for added in doc.get("added_tokens", []):
        if added["special"]:
            out[added["id"]] = ("special", b"")
        else:
            out[added["id"]] = ("user", added["content"].encode("utf-8"))
    return out

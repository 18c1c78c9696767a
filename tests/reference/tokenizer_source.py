"""Where the reference engines get a tokenizer: the text of a HuggingFace ``tokenizer.json``.

llguidance and the outlines-core helper both start from the JSON text of a tokenizer, not
from a path, because the copies bundled with the tests are zstd-compressed
(``tests/data/tokenizers/<name>.json.zst``, about 4x smaller) and are inflated in memory:
nothing is written next to them.  A source may be

- a bundled name (``"gpt2"``, ``"llama3"``, ...), resolved under ``tests/data/tokenizers``;
- a path to ``tokenizer.json`` or to its ``.zst`` form;
- the bytes of either form (the zstd magic number decides, not the name).

The text is returned as ``str`` because that is what ``llguidance.LLTokenizer`` takes.
Nothing here reads ``../shared``: the bench may pass such a path explicitly, the tests never do.
"""

from __future__ import annotations

import os
from pathlib import Path

import zstandard

BUNDLED_DIR = Path(__file__).resolve().parents[1] / "data" / "tokenizers"
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
MAX_TOKENIZER_BYTES = 1 << 28  # 256 MiB: far above any real tokenizer.json (Qwen2: 7 MB)

TokenizerSource = str | os.PathLike | bytes


def bundled_tokenizer_path(name: str) -> Path:
    """Path of the zstd-compressed tokenizer.json bundled with the tests, e.g. ``"gpt2"``."""
    path = BUNDLED_DIR / f"{name}.json.zst"
    if not path.is_file():
        known = sorted(p.name.removesuffix(".json.zst") for p in BUNDLED_DIR.glob("*.json.zst"))
        raise FileNotFoundError(f"{path}: no bundled tokenizer {name!r} (bundled: {', '.join(known)})")
    return path


def tokenizer_json_text(source: TokenizerSource) -> str:
    """The JSON text of a tokenizer given by bundled name, path, or raw bytes."""
    if isinstance(source, bytes):
        return _inflate_if_compressed(source).decode("utf-8")
    path = Path(source)
    if not path.exists() and isinstance(source, str) and os.sep not in source and "." not in source:
        path = bundled_tokenizer_path(source)
    return _inflate_if_compressed(path.read_bytes()).decode("utf-8")


def _inflate_if_compressed(raw: bytes) -> bytes:
    if not raw.startswith(ZSTD_MAGIC):
        return raw
    return zstandard.ZstdDecompressor().decompress(raw, max_output_size=MAX_TOKENIZER_BYTES)

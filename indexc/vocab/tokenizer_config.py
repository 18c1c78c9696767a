"""The HF ``tokenizer_config.json`` beside a tokenizer: where it is and what its eos token is.

Only one thing is read from it: ``eos_token``, the end-of-sequence token the model was trained
to emit (``tokenizer.json`` itself does not say which special token ends a sequence).  It is a
string (``"</s>"``) or a serialized AddedToken (``{"content": "</s>", ...}``), or null.

Where it is looked for when no path is given, beside a HF tokenizer file ``<stem>.json`` or
``<stem>.json.zst``: ``<stem>.tokenizer_config.json`` (the bundled test data names files so),
then ``tokenizer_config.json`` (a model repository's layout).  A GGUF file carries its eos ids
in its own metadata, so nothing is looked for beside it; an explicit path is still honoured.
"""

from __future__ import annotations

import json
from pathlib import Path

from indexc.errors import VocabularyError

CONFIG_NAME = "tokenizer_config.json"
HF_SUFFIXES = (".json.zst", ".json")


def find_tokenizer_config(tokenizer_path: str) -> Path | None:
    """The config beside a HF tokenizer file, or None (also for any other kind of file)."""
    path = Path(tokenizer_path)
    for suffix in HF_SUFFIXES:
        if path.name.endswith(suffix):
            stem = path.name[: -len(suffix)]
            for candidate in (path.with_name(f"{stem}.{CONFIG_NAME}"), path.with_name(CONFIG_NAME)):
                if candidate.is_file():
                    return candidate
            return None
    return None


def read_eos_token(config_path: str | Path) -> str | None:
    """The content of ``eos_token`` in a tokenizer_config.json (None if absent or null)."""
    source = str(config_path)
    try:
        with open(config_path, encoding="utf-8-sig") as handle:
            config = json.load(handle)
    except OSError as exc:
        raise VocabularyError(f"cannot read tokenizer config: {exc.strerror or exc}", source=source) from None
    except UnicodeDecodeError:
        raise VocabularyError("tokenizer config is not UTF-8 text", source=source) from None
    except json.JSONDecodeError as exc:
        raise VocabularyError(f"tokenizer config is not JSON: {exc.msg}", source=source,
                              position=exc.pos) from None
    if not isinstance(config, dict):
        raise VocabularyError("tokenizer config is not a JSON object", source=source)
    eos = config.get("eos_token")
    if isinstance(eos, dict):
        eos = eos.get("content")
    if eos is None or isinstance(eos, str):
        return eos or None
    raise VocabularyError(f"eos_token must be a string or an AddedToken object, got {eos!r}", source=source)

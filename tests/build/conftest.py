"""A small project on disk per test: the bundled GPT-2 tokenizer and a few short regexes."""

from __future__ import annotations

from pathlib import Path

import pytest

GPT2 = Path(__file__).resolve().parents[1] / "data" / "tokenizers" / "gpt2.json.zst"
REGEXES = {"digits.regex": "[0-9]{1,3}", "word.regex": "(yes|no)!", "hex.regex": "0x[0-9a-f]{2}"}


def write_project(directory: Path, files: dict[str, str], entries: str = '[[constraints]]\nfiles = "*.regex"\n') -> Path:
    """``indexc.toml`` naming GPT-2 as ``gpt2`` and ``entries``, beside ``files``."""
    directory.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (directory / name).write_text(text + "\n", encoding="utf-8")
    project = directory / "indexc.toml"
    project.write_text(f'[tokenizers.gpt2]\npath = "{GPT2.as_posix()}"\n\n{entries}', encoding="utf-8")
    return project


@pytest.fixture
def project(tmp_path) -> Path:
    return write_project(tmp_path / "schemas", REGEXES)

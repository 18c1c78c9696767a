"""Fixtures of the MaskBench tests: the bundled sample and the engines on the bundled Llama-3.

The sample is ``tests/data/maskbench/`` (chosen by ``bench/maskbench/select_sample.py``); the
tokenizer is the zstd copy of Llama-3 under ``tests/data/tokenizers`` with its
tokenizer_config's EOS (128001), as in the bench.  Each engine loads the tokenizer once per
session (indexc: vocabulary + trie through the cache; llguidance: ``LLTokenizer``, 1.2 s).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from bench.maskbench.dataset import MaskBenchFile, list_files, load_file
from bench.maskbench.schema_engines import load_schema_engine
from bench.maskbench.worker import text_encoder

SAMPLE_DIR = Path(__file__).resolve().parents[1] / "data" / "maskbench"
LLAMA3 = str(Path(__file__).resolve().parents[1] / "data" / "tokenizers" / "llama3.json.zst")
EOS_IDS = [128001]  # <|end_of_text|>, the eos_token of llama3.tokenizer_config.json


@dataclass
class EngineSetup:
    engine: object
    tokenizer: object


def sample_names() -> list[str]:
    return [p.name for p in list_files(SAMPLE_DIR)]


def sample_file(name: str) -> MaskBenchFile:
    return load_file(SAMPLE_DIR / name)


@pytest.fixture(scope="session")
def encode():
    """The Llama-3 tokenizer's own encoding of a text (HF ``tokenizers``)."""
    return text_encoder(LLAMA3)


@pytest.fixture(scope="session")
def indexc_setup() -> EngineSetup:
    engine = load_schema_engine("indexc")
    return EngineSetup(engine, engine.load_tokenizer(LLAMA3, EOS_IDS))


@pytest.fixture(scope="session")
def llguidance_setup() -> EngineSetup:
    engine = load_schema_engine("llguidance")
    return EngineSetup(engine, engine.load_tokenizer(LLAMA3, EOS_IDS))

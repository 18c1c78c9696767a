"""Artifacts written from the hand-built tables of ``handmade`` (one per test, or per session for the big one)."""

from __future__ import annotations

from pathlib import Path

import pytest

import handmade
import indexc_runtime


@pytest.fixture
def number_artifact(tmp_path: Path) -> Path:
    path = tmp_path / "number.idx"
    handmade.write_handmade(path, handmade.NUMBER, handmade.NUMBER_TOKENS, handmade.NUMBER_EOS, "number",
                            token_layout="token_id")
    return path


@pytest.fixture
def padded_number_artifact(tmp_path: Path) -> Path:
    """NUMBER over a 100-id vocabulary with 28 live ids: token class rows by live token."""
    path = tmp_path / "padded.idx"
    handmade.write_handmade(path, handmade.NUMBER, handmade.PADDED_NUMBER_TOKENS, handmade.NUMBER_EOS, "padded")
    return path


@pytest.fixture
def number_index(number_artifact: Path) -> indexc_runtime.Index:
    return indexc_runtime.load(number_artifact, expected_fingerprint="handmade-number")


@pytest.fixture(scope="session")
def big_artifact(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("big") / "big.idx"
    handmade.write_big(path, token_layout="token_id")
    return path

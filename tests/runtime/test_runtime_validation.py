"""What ``load`` refuses before reading a single section: things that are not files, zstandard
bombs; and headers outside the documented data model, which tools refuse before printing them.

Each case is one a hostile or broken input could reach, and each must be an ``ArtifactError``
from ``load`` itself (never a hang, a ``RecursionError`` later, or a gigabyte allocation),
except the informative header keys, which serving never reads: those are refused by
``load(..., verify=True)``, ``Index.verify`` and ``Index.header``, before any tool reads them.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
import zstandard

import indexc_runtime
import surgery
from indexc_runtime import ArtifactError
from indexc_runtime.format import MAX_HEADER_DEPTH, MIN_INFLATION_CAP
from indexc_runtime.source import inflation_cap

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "golden"
RAW = (GOLDEN / "format-v2-small.idx").read_bytes()


def test_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "artifact.idx"
    os.mkfifo(fifo)  # open() for reading would block until a writer comes
    with pytest.raises(ArtifactError, match="not a regular file"):
        indexc_runtime.load(fifo)


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/null"])
def test_a_device_is_refused(device):
    with pytest.raises(ArtifactError, match="not a regular file"):
        indexc_runtime.load(device)


def test_a_zstd_bomb_is_refused_before_it_inflates():
    """The golden file and 1 GiB of zeros compress to 34 KB: far past the cap for that size."""
    bomb = (GOLDEN.parent / "fuzz_corpus" / "zstd-bomb-1gib.bin").read_bytes()
    assert inflation_cap(len(bomb)) == MIN_INFLATION_CAP
    tracemalloc.start()
    try:
        with pytest.raises(ArtifactError, match="declares 1,073,745,872 bytes, more than"):
            indexc_runtime.load(bomb)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20


def test_a_bomb_without_a_declared_size_stops_at_the_cap():
    chunker = zstandard.ZstdCompressor(level=1, write_content_size=False)
    bomb = chunker.compress(RAW + bytes(MIN_INFLATION_CAP))  # the one-shot API declares no size here
    assert zstandard.frame_content_size(bomb) == -1
    with pytest.raises(ArtifactError, match="inflates to more than 67,108,864 bytes"):
        indexc_runtime.load(bomb)


def test_a_frame_that_lies_about_its_size_is_refused():
    frame = bytearray(zstandard.ZstdCompressor(level=3).compress(RAW))
    assert zstandard.frame_content_size(bytes(frame)) == len(RAW)
    honest = zstandard.ZstdCompressor(level=3, write_content_size=False).compress(RAW)
    indexc_runtime.load(honest)  # no declared size is fine
    # The frame header's content-size field is the last bytes of the frame header: rewrite it to
    # one byte less by compressing a shorter input and splicing its header onto the body.
    shorter = zstandard.ZstdCompressor(level=3).compress(RAW[:-1])
    header_size = zstandard.frame_header_size(shorter)
    assert header_size == zstandard.frame_header_size(bytes(frame))
    spliced = shorter[:header_size] + bytes(frame[header_size:])
    with pytest.raises(ArtifactError, match="zstandard"):
        indexc_runtime.load(spliced)


def _nest(levels: int) -> list:
    value: list = []
    for _ in range(levels):
        value = [value]
    return value


@pytest.mark.parametrize("change, message", [
    (lambda h: h.update(extra=_nest(1000)), "nests lists and maps more than"),
    (lambda h: h["stats"].update(extra=_nest(MAX_HEADER_DEPTH)), "nests lists and maps more than"),
    (lambda h: h.update(extra=b"\x00\x01"), "holds a bytes value"),
    (lambda h: h["constraint"].update(source=b"a+"), "holds a bytes value"),
    (lambda h: h.update(constraint=["regex"]), "constraint must be a map"),
    (lambda h: h.update(compiler_version=1), "compiler_version must be a string"),
    (lambda h: h.update(stats=None), "stats must be a map"),
])
def test_headers_outside_the_data_model_are_refused_before_a_tool_reads_them(change, message):
    """Serving never reads the informative keys; ``verify`` (what inspect runs) and ``header`` refuse them."""
    patched = surgery.rewrite_header(RAW, change)
    with pytest.raises(ArtifactError, match=message):
        indexc_runtime.load(patched, verify=True)
    index = indexc_runtime.load(patched)
    with pytest.raises(ArtifactError, match=message):
        index.header
    with pytest.raises(ArtifactError, match=message):
        index.verify()
    out = np.zeros((1, index.mask_words), dtype=np.int32)
    index.matcher().fill_bitmask(out)
    assert out.any()


def test_a_section_entry_outside_the_data_model_is_refused_by_load():
    patched = surgery.rewrite_header(RAW, lambda h: surgery.section(h, "accepting").update(extra=_nest(20)))
    with pytest.raises(ArtifactError, match=r"sections\[\d+\] nests"):
        indexc_runtime.load(patched)


def test_a_header_at_the_depth_limit_loads_and_can_be_copied_and_printed():
    patched = surgery.rewrite_header(RAW, lambda h: h.update(extra=_nest(MAX_HEADER_DEPTH - 2)))
    header = indexc_runtime.load(patched).header
    assert json.loads(json.dumps(header)) == copy.deepcopy(header)


def test_informative_keys_may_be_absent():
    def drop(header: dict) -> None:
        for key in ("compiler_version", "constraint", "options", "stats"):
            header.pop(key)

    index = indexc_runtime.load(surgery.rewrite_header(RAW, drop), verify=True)
    assert "constraint" not in index.header


def _check(*arguments: str) -> subprocess.CompletedProcess:
    tokenizer = GOLDEN.parent / "tokenizers" / "gpt2.json.zst"
    return subprocess.run([sys.executable, "-m", "indexc", "check", str(GOLDEN / "format-v2-small.idx"),
                           "--tokenizer", str(tokenizer), "--text", '"ab"', *arguments],
                          capture_output=True, text=True, timeout=120)


def test_check_refuses_another_vocabulary_naming_both_fingerprints():
    artifact_fingerprint = indexc_runtime.load(GOLDEN / "format-v2-small.idx").fingerprint
    done = _check()
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
    assert artifact_fingerprint in done.stderr and "tokenizer being served has fingerprint" in done.stderr


def test_check_walks_another_vocabulary_only_when_told_and_says_so():
    done = _check("--allow-fingerprint-mismatch")
    assert done.returncode in (0, 1), done.stderr
    assert "warning: SERVING ANYWAY" in done.stderr and "fingerprint" in done.stderr

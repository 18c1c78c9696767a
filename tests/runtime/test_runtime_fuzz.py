"""Fuzz the loader and the matcher: any mutation of a real artifact works or is an ArtifactError.

Seeds are the golden files and artifacts compiled here from the bundled GPT-2 tokenizer;
mutations (``fuzz_artifacts``) flip bits, truncate, splice files, rewrite header fields and
section values with the checksums fixed, swap sections, transplant another artifact's header
values.  CI runs a bounded, derandomized number of examples (``FUZZ_EXAMPLES``, 300 unless
``INDEXC_FUZZ_EXAMPLES`` says otherwise: ``make fuzz`` asks for many more).  Each example's
peak Python-visible allocation is bounded: no header field may drive an allocation.

The inputs that found bugs are replayed from ``tests/data/fuzz_corpus`` (see its README), and
the command line is checked to report a bad file in one line with exit code 2.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fuzz_artifacts
import indexc_runtime
import surgery
from indexc_runtime import ArtifactError

FUZZ_EXAMPLES = int(os.environ.get("INDEXC_FUZZ_EXAMPLES", "300"))
GOLDEN = fuzz_artifacts.golden_seeds()
CORPUS = fuzz_artifacts.corpus_inputs()
PEAK_BYTES_OVER_INPUT = 16 << 20  # per example, beyond 4x the input's own size


@pytest.fixture(scope="module")
def seeds(tmp_path_factory) -> dict[str, bytes]:
    return {**GOLDEN, **fuzz_artifacts.compile_seeds(tmp_path_factory.mktemp("fuzz-seeds"))}


def test_every_seed_serves(seeds):
    for name, data in seeds.items():
        assert fuzz_artifacts.exercise(data, random.Random(0)) == "served", name


@settings(max_examples=FUZZ_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.randoms(use_true_random=False), st.data())
def test_mutated_artifacts_serve_or_raise_artifact_error(seeds, rng, data):
    name = data.draw(st.sampled_from(sorted(seeds)), label="seed")
    mutated = fuzz_artifacts.mutate(seeds[name], rng, list(seeds.values()))
    tracemalloc.start()
    try:
        fuzz_artifacts.exercise(mutated, rng)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < PEAK_BYTES_OVER_INPUT + 4 * len(mutated)


@settings(max_examples=FUZZ_EXAMPLES // 3, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(sorted(GOLDEN)), st.binary(max_size=64), st.integers(0, 1 << 16))
def test_raw_bytes_with_checksums_fixed_serve_or_raise_artifact_error(name, noise, where):
    """The atheris harness's input shape: arbitrary bytes spliced in, then every CRC made right."""
    seed = GOLDEN[name]
    cut = where % (len(seed) + 1)
    fuzz_artifacts.exercise(fuzz_artifacts.fix_checksums(seed[:cut] + noise + seed[cut + len(noise):]),
                            random.Random(where))


@settings(max_examples=FUZZ_EXAMPLES // 3, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.randoms(use_true_random=False))
def test_inspect_shows_every_header_the_runtime_accepts(tmp_path_factory, rng):
    """``indexc inspect`` (text and JSON) on header rewrites that load: it must never fail."""
    from indexc.cli.inspect_cmd import describe, render

    data = GOLDEN[rng.choice(sorted(name for name in GOLDEN if name.endswith(".idx")))]
    for _ in range(rng.randint(1, 3)):
        data = rng.choice((fuzz_artifacts.rewrite_header_field, fuzz_artifacts.transplant_header))(
            data, rng, list(GOLDEN.values()))
    try:
        index = indexc_runtime.load(data, verify=True)
    except ArtifactError:
        return
    path = tmp_path_factory.mktemp("inspect") / "artifact.idx"
    path.write_bytes(data)
    report = describe(index, str(path))
    render(report)
    json.dumps(report)


@pytest.mark.parametrize("change", [
    lambda h: [h.pop(key) for key in ("compiler_version", "constraint", "options", "stats")],
    lambda h: h["constraint"].update(source=12345),
    lambda h: h.update(stats={"nested": {"deep": [1, 2]}}),
], ids=["informative-keys-absent", "source-not-a-string", "nested-stats"])
def test_inspect_shows_unusual_headers_the_runtime_accepts(tmp_path, change):
    from indexc.cli.inspect_cmd import describe, render

    path = tmp_path / "artifact.idx"
    path.write_bytes(surgery.rewrite_header(GOLDEN["format-v3-small.idx"], change))
    report = describe(indexc_runtime.load(path, verify=True), str(path))
    assert render(report)[0].startswith("artifact")
    json.dumps(report)


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_the_fuzz_corpus_replays_as_artifact_errors(name):
    """Each input once broke the runtime (README.md says how); now each is refused cleanly."""
    assert fuzz_artifacts.exercise(CORPUS[name], random.Random(0)) == "refused"


def test_the_corpus_is_not_empty():
    assert CORPUS, "tests/data/fuzz_corpus lost its inputs"


@pytest.mark.parametrize("command", ["inspect", "check"])
def test_the_command_line_reports_a_bad_artifact_in_one_line_with_exit_2(tmp_path, command):
    bad = tmp_path / "bad.idx"
    bad.write_bytes(GOLDEN["format-v2-small.idx"][:-7])
    extra = ["--tokenizer", str(fuzz_artifacts.DATA / "tokenizers" / "gpt2.json.zst"), "--text", "1"] \
        if command == "check" else []
    done = subprocess.run([sys.executable, "-m", "indexc", command, str(bad), *extra],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "truncated" in lines[0] and str(bad) in lines[0], done.stderr


def test_artifact_error_is_the_documented_type():
    with pytest.raises(ArtifactError) as caught:
        indexc_runtime.load(b"not an artifact")
    assert isinstance(caught.value, ValueError) and caught.value.source == "<bytes>"

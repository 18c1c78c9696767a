"""Coverage-guided fuzzing of the artifact loader and matcher with atheris (``make fuzz``; never in CI).

Each input is one mode byte and then the artifact bytes: an odd mode byte has every checksum
fixed first (``fix_checksums``), so that libFuzzer's byte mutations reach the checks behind the
CRCs instead of dying at them.  The property is ``tests/runtime/fuzz_artifacts.exercise``:
``load`` + serving either work or raise ``ArtifactError``.  A crash is written by libFuzzer as
``crash-<sha1>``; minimise it, then add it to ``tests/data/fuzz_corpus/`` (without the mode
byte, checksums fixed as the mode asked) where the tests replay it.

    .venv/bin/python fuzz/fuzz_loader.py -max_total_time=60 -rss_limit_mb=2048 build/fuzz-corpus

Seeds: the golden files and the compiled GPT-2 artifacts, written into the corpus directory
(first argument that is a directory) on the first run, both modes.
"""

from __future__ import annotations

import os
import random
import sys
from pathlib import Path

import atheris

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "runtime"))

with atheris.instrument_imports(include=["indexc_runtime"]):
    import indexc_runtime  # noqa: F401  (instrumented for coverage feedback)

import fuzz_artifacts  # noqa: E402


def test_one_input(data: bytes) -> None:
    if not data:
        return
    body = data[1:]
    if data[0] & 1:
        body = fuzz_artifacts.fix_checksums(body)
    fuzz_artifacts.exercise(body, random.Random(len(body)))


def write_seeds(corpus: Path) -> None:
    """The golden and compiled artifacts as starting inputs, in both modes (once)."""
    corpus.mkdir(parents=True, exist_ok=True)
    if any(corpus.iterdir()):
        return
    seeds = {**fuzz_artifacts.golden_seeds(), **fuzz_artifacts.compile_seeds(ROOT / "build" / "fuzz-seeds")}
    for name, data in seeds.items():
        for mode in (0, 1):
            (corpus / f"seed-{mode}-{name}").write_bytes(bytes([mode]) + data)


def main() -> None:
    os.environ.setdefault("INDEXC_CACHE_DIR", str(ROOT / "build" / "fuzz-cache"))
    for argument in sys.argv[1:]:
        if not argument.startswith("-"):
            write_seeds(Path(argument))
            break
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()

"""A compile killed (SIGKILL) at any moment leaves the old artifact or the new one, never a torn file.

The writer (``indexc.artifact.atomic``) writes a temporary file beside the target and renames
it over the target.  SIGKILL cannot be caught, so a kill between the temporary's creation and
the rename leaves that temporary behind (``.<name>.<host>-<pid>.<random>.tmp``, documented);
the next write of the same target removes it.  Each kill here is at a different moment of a
real ``indexc compile`` (chosen as fractions of a measured run: this only picks the moments,
nothing asserts a time), and one kill is placed inside the write itself by a writer that stops
half-way.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import indexc_runtime
from indexc.artifact.atomic import remove_stale_temporaries, write_atomically
from tests_paths import TOKENIZERS

OLD_REGEX = "[0-9]{1,3}"
NEW_REGEX = "[a-z ]{1,80}"
KILL_FRACTIONS = (0.05, 0.3, 0.6, 0.8, 0.95, 1.2)


def compile_command(regex: str, output: Path) -> list[str]:
    return [sys.executable, "-m", "indexc", "compile", "--tokenizer", str(TOKENIZERS / "gpt2.json.zst"),
            "--regex", regex, "-o", str(output), "--jobs", "1", "-q"]


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> dict:
    """The old and the new artifact's bytes, and how long a whole compile of the new one takes."""
    folder = tmp_path_factory.mktemp("reference")
    subprocess.run(compile_command(OLD_REGEX, folder / "old.idx"), check=True, timeout=300)
    started = time.perf_counter()
    subprocess.run(compile_command(NEW_REGEX, folder / "new.idx"), check=True, timeout=300)
    seconds = time.perf_counter() - started
    return {"old": (folder / "old.idx").read_bytes(), "new": (folder / "new.idx").read_bytes(), "seconds": seconds}


def strays(folder: Path, target: Path) -> list[Path]:
    return [path for path in folder.iterdir() if path != target]


@pytest.mark.parametrize("fraction", KILL_FRACTIONS)
def test_a_killed_compile_leaves_the_old_or_the_new_artifact(tmp_path, reference, fraction):
    target = tmp_path / "artifact.idx"
    target.write_bytes(reference["old"])
    process = subprocess.Popen(compile_command(NEW_REGEX, target))
    time.sleep(fraction * reference["seconds"])
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=60)
    content = target.read_bytes()
    assert content in (reference["old"], reference["new"]), "a torn artifact"
    indexc_runtime.load(target, verify=True)
    for stray in strays(tmp_path, target):  # only the documented temporary of the killed process
        assert stray.name.startswith(".artifact.idx.") and stray.name.endswith(".tmp")
        assert f"-{process.pid}." in stray.name
    subprocess.run(compile_command(NEW_REGEX, target), check=True, timeout=300)
    assert target.read_bytes() == reference["new"]
    assert strays(tmp_path, target) == [], "the next write removes what the killed one left"


def test_a_kill_in_the_middle_of_the_write_keeps_the_old_file(tmp_path, reference):
    target = tmp_path / "artifact.idx"
    target.write_bytes(reference["old"])
    half_way = (
        "import sys, time; from pathlib import Path; from indexc.artifact.atomic import write_atomically\n"
        "def write(handle):\n"
        "    handle.write(Path(sys.argv[2]).read_bytes()[:1000]); handle.flush()\n"
        "    print('half', flush=True); time.sleep(600)\n"
        "write_atomically(Path(sys.argv[1]), write)\n"
    )
    source = tmp_path.parent / f"{tmp_path.name}-new.bin"
    source.write_bytes(reference["new"])
    process = subprocess.Popen([sys.executable, "-c", half_way, str(target), str(source)], stdout=subprocess.PIPE, text=True)
    assert process.stdout.readline().strip() == "half"
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=60)
    assert target.read_bytes() == reference["old"]
    [stray] = strays(tmp_path, target)
    assert stray.stat().st_size == 1000 and f"-{process.pid}." in stray.name
    assert remove_stale_temporaries(target) == [stray] and not stray.exists()


def test_a_live_writers_temporary_is_never_removed(tmp_path):
    target = tmp_path / "artifact.idx"

    def write(handle):
        [ours] = strays(tmp_path, target)
        assert remove_stale_temporaries(target) == [] and ours.exists()  # this process is alive
        handle.write(b"data")

    assert write_atomically(target, write) == 4
    assert strays(tmp_path, target) == [] and os.stat(target).st_size == 4

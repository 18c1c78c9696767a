"""``indexc compile --max-states / --max-memory / --time-limit``: one line, exit 2, nothing written."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests_paths import TOKENIZERS


def compile_(output, *arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "indexc", "compile", "--tokenizer", str(TOKENIZERS / "gpt2.json.zst"),
                           "-o", str(output), "--jobs", "1", *arguments], capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("arguments, message", [
    (["--regex", "[a-z ]{1,80}", "--time-limit", "0.001"], "time limit of 0.001 s reached during .* --time-limit"),
    (["--regex", "[a-z ]{1,80}", "--max-memory", "1M"], "an estimated .* more than the memory limit of 1.0 MiB; raise it with --max-memory"),
    (["--regex", "[a-z]{1,20}", "--max-states", "5"], "states .*limit .*--max-states"),
])
def test_a_limit_hit_is_one_line_exit_2_and_the_old_file_stays(tmp_path, arguments, message):
    output = tmp_path / "out.idx"
    output.write_bytes(b"the old artifact")
    done = compile_(output, *arguments)
    assert done.returncode == 2, done.stderr
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("indexc compile: error: ") and __import__("re").search(message, line), line
    assert output.read_bytes() == b"the old artifact"
    assert [p.name for p in tmp_path.iterdir()] == ["out.idx"]


@pytest.mark.parametrize("arguments", [["--max-memory", "lots"], ["--time-limit", "0"], ["--time-limit", "soon"]])
def test_bad_limit_values_are_usage_errors(tmp_path, arguments):
    done = compile_(tmp_path / "out.idx", "--regex", "a", *arguments)
    assert done.returncode == 2 and "usage:" in done.stderr


def test_the_limits_in_force_are_reported(tmp_path):
    done = compile_(tmp_path / "out.idx", "--regex", "[0-9]{1,3}", "--max-memory", "2G", "--time-limit", "300",
                    "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["limits"] == {"max_states": 100_000, "max_memory": 2 << 30, "time_limit": 300.0}

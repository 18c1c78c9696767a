"""End to end through the command line: compile -> inspect -> check, and every bad input."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

import indexc_runtime
from indexc.cli.main import main

DATA = Path(__file__).resolve().parents[1] / "data" / "tokenizers"
GPT2 = str(DATA / "gpt2.json.zst")
DATE = r"\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])"


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def date_artifact(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("art") / "date.idx"
    assert main(["compile", "--tokenizer", GPT2, "--regex", DATE, "-o", str(out), "-q"]) == 0
    return out


def test_compile_json_report(tmp_path, capsys):
    out = tmp_path / "d.idx"
    code, stdout, _ = run_cli(capsys, "compile", "--tokenizer", GPT2, "--regex", DATE, "-o", str(out), "--json")
    assert code == 0
    report = json.loads(stdout.strip().splitlines()[-1])
    for key in ("compile_ms", "vocab_ms", "states", "unique_masks", "bytes", "path"):
        assert key in report
    assert report["path"] == "dfa"
    assert report["bytes"] == out.stat().st_size
    assert report["states"] == indexc_runtime.load(out).n_states


def test_inspect(date_artifact, capsys):
    code, stdout, _ = run_cli(capsys, "inspect", str(date_artifact), "--json")
    assert code == 0
    info = json.loads(stdout.strip().splitlines()[-1])
    assert json.dumps(info).count(DATE.replace("\\", "\\\\")) >= 1  # the constraint's source is in the header
    code, stdout, _ = run_cli(capsys, "inspect", str(date_artifact))
    assert code == 0 and "\npath        dfa\n" in stdout  # the compile path taken, for people


def test_check_accepts_and_rejects(date_artifact, capsys):
    assert run_cli(capsys, "check", str(date_artifact), "--tokenizer", GPT2, "--text", "2026-11-21")[0] == 0
    code, stdout, _ = run_cli(capsys, "check", str(date_artifact), "--tokenizer", GPT2, "--text", "2026-13-01", "--json")
    assert code == 1
    verdict = json.loads(stdout.strip().splitlines()[0])
    assert verdict["accepted"] is False and verdict["byte_offset"] <= 5
    code, stdout, _ = run_cli(capsys, "check", str(date_artifact), "--tokenizer", GPT2, "--text", "2026-11")
    assert code == 1 and "end" in stdout


def test_check_jsonl(date_artifact, tmp_path, capsys):
    lines = tmp_path / "t.jsonl"
    lines.write_text('"2026-01-31"\n{"text": "1999-12-01"}\n"1999-12-32"\n')
    code, stdout, _ = run_cli(capsys, "check", str(date_artifact), "--tokenizer", GPT2, "--jsonl", str(lines), "--json")
    assert code == 1
    rows = [json.loads(line) for line in stdout.strip().splitlines()]
    assert [r["accepted"] for r in rows[:3]] == [True, True, False]
    assert rows[-1] == {"texts": 3, "accepted": 2, "rejected": 1}


def test_compressed_form_loads(tmp_path, capsys):
    out = tmp_path / "d.idx.zst"
    assert run_cli(capsys, "compile", "--tokenizer", GPT2, "--regex", DATE, "-o", str(out), "--compress", "-q")[0] == 0
    index = indexc_runtime.load(out)
    bitmask = np.zeros((1, (index.vocab_size + 31) // 32), dtype=np.int32)
    index.matcher().fill_bitmask(bitmask)
    assert bitmask.any()


@pytest.mark.parametrize(
    "regex, words",
    [
        ("(?=a)b", "look"),
        (r"(a)\1", "reference"),
        ("a(b", "unterminated"),
        (r"[]", ""),
        (r"a{5,2}", ""),
    ],
)
def test_bad_regex_exit_2_and_no_file(tmp_path, capsys, regex, words):
    out = tmp_path / "x.idx"
    code, _, err = run_cli(capsys, "compile", "--tokenizer", GPT2, "--regex", regex, "-o", str(out))
    assert code == 2
    assert err.count("\n") == 1 and "error" in err
    assert words.lower() in err.lower()
    assert not out.exists() and os.listdir(tmp_path) == []


def test_state_limit_and_unwritable_output(tmp_path, capsys):
    code, _, err = run_cli(capsys, "compile", "--tokenizer", GPT2, "--regex", "[ab]{0,500}", "--max-states", "50",
                           "-o", str(tmp_path / "x.idx"))
    assert code == 2 and "limit" in err and "--max-states" in err
    code, _, err = run_cli(capsys, "compile", "--tokenizer", GPT2, "--regex", "a", "-o", "/proc/nope/x.idx")
    assert code == 2 and "x.idx" in err


def test_unreadable_tokenizer(tmp_path, capsys):
    bad = tmp_path / "tok.json"
    bad.write_text('{"model": ')
    code, _, err = run_cli(capsys, "compile", "--tokenizer", str(bad), "--regex", "a", "-o", str(tmp_path / "x.idx"))
    assert code == 2 and "tok.json" in err
    assert not (tmp_path / "x.idx").exists()


def test_check_refuses_other_vocabulary(date_artifact, capsys):
    code, _, err = run_cli(capsys, "check", str(date_artifact), "--tokenizer", str(DATA / "mistral.json.zst"),
                           "--text", "2026-11-21")
    assert code == 2 and "fingerprint" in err.lower()

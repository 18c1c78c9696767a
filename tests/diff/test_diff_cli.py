"""indexc diff on the command line: exit codes, the readable report, --json, and --manifest on two builds."""

from __future__ import annotations

import json
import re

from indexc.build import run_build
from indexc.cli.main import main
from tests.build.conftest import REGEXES, write_project
from tests.diff.conftest import compile_to, tiny_vocabulary


def test_exit_codes_identical_differ_error(tmp_path, capsys):
    vocab = tiny_vocabulary()
    a = compile_to(tmp_path / "a.idx", "ab[0-9]+", vocab)
    same = compile_to(tmp_path / "same.idx", "ab[0-9]+", vocab)
    other = compile_to(tmp_path / "other.idx", "ab[0-8]+", vocab)
    assert main(["diff", str(a), str(same)]) == 0
    assert "identical masks" in capsys.readouterr().out
    assert main(["diff", str(a), str(other)]) == 1
    out = capsys.readouterr().out
    assert "shortest text accepted by A and not by B: 'ab9'" in out and "after 'ab'" in out
    (tmp_path / "junk.idx").write_bytes(b"not an artifact")
    assert main(["diff", str(a), str(tmp_path / "junk.idx")]) == 2
    assert "cannot read the artifact" in capsys.readouterr().err


def test_json_report(tmp_path, capsys):
    vocab = tiny_vocabulary()
    a = compile_to(tmp_path / "a.idx", "ab[0-9]+", vocab)
    b = compile_to(tmp_path / "b.idx", "ab[0-8]+", vocab)
    assert main(["diff", str(a), str(b), "--json"]) == 1
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert report["identical"] is False and report["accepted_witness"] == "ab9"
    assert report["pairs"][0]["witness"] == "ab" and report["pairs"][0]["n_only_a"] == 2


def test_manifest_mode_compares_two_builds(tmp_path, capsys):
    old_project = write_project(tmp_path / "old", REGEXES)
    new_files = {**REGEXES, "digits.regex": "[0-9]{1,4}", "extra.regex": "x"}
    del new_files["hex.regex"]
    new_project = write_project(tmp_path / "new", new_files)
    run_build(old_project, tmp_path / "old-out", jobs=1)
    run_build(new_project, tmp_path / "new-out", jobs=1)
    assert main(["diff", "--manifest", str(tmp_path / "old-out"), str(tmp_path / "new-out")]) == 1
    out = capsys.readouterr().out
    assert "1 changed, 1 appeared, 1 disappeared, 1 unchanged" in out
    assert "+ gpt2/extra.idx" in out and "- gpt2/hex.idx" in out
    assert "shortest text accepted by B and not by A: '0000'" in out
    assert re.search(r"only B: \d+ '\d+'", out)  # GPT-2 tokens shown by text: the manifest names the tokenizer
    assert main(["diff", "--manifest", str(tmp_path / "old-out"), str(tmp_path / "old-out")]) == 0


def test_manifest_mode_compares_grammar_artifacts(tmp_path, capsys):
    entries = '[[constraints]]\nfiles = "*.lark"\n'
    old = write_project(tmp_path / "old", {"pair.lark": 'start: "(" s ")"\ns: "a" | "(" s ")"'}, entries)
    new = write_project(tmp_path / "new", {"pair.lark": 'start: "(" s ")"\ns: "b" | "(" s ")"'}, entries)
    run_build(old, tmp_path / "old-out", jobs=1)
    run_build(new, tmp_path / "new-out", jobs=1)
    assert main(["diff", "--manifest", str(tmp_path / "old-out"), str(tmp_path / "new-out"), "--max-pairs", "50"]) == 1
    out = capsys.readouterr().out
    assert "~ gpt2/pair.idx:" in out and "50 of 51 compared state pairs differ" in out
    assert "bounded: the search stopped after 50 pairs" in out and "only A: 64 'a'" in out
    assert "shortest text accepted by A and not by B: '(a)'" in out

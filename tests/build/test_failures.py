"""One failing constraint never stops the others: listed with file and reason, exit 1, no partial files."""

from __future__ import annotations

import json

import pytest

from indexc.build import ProjectError, run_build
from indexc.build import kinds
from indexc.cli.main import main
from tests.build.conftest import REGEXES, write_project


def test_bad_regex_fails_alone(tmp_path):
    project = write_project(tmp_path / "p", {**REGEXES, "broken.regex": "a(b"})
    out = tmp_path / "artifacts"
    report = run_build(project, out, jobs=1)
    failed = report.with_status("failed")
    assert [record.artifact for record in failed] == ["gpt2/broken.idx"]
    assert failed[0].file.endswith("broken.regex") and failed[0].reason
    assert report.exit_code == 1
    assert sorted(p.name for p in (out / "gpt2").iterdir()) == ["digits.idx", "hex.idx", "word.idx"]
    manifest = json.loads((out / "manifest.json").read_text())
    assert [f["artifact"] for f in manifest["failures"]] == ["gpt2/broken.idx"]
    assert "gpt2/broken.idx" not in manifest["artifacts"]


def test_missing_kind_compiler_is_a_listed_failure(tmp_path, monkeypatch):
    monkeypatch.setitem(kinds.KIND_MODULES, "json_schema", "indexc.pipeline.no_such_kind_module")
    files = {"digits.regex": "[0-9]+", "order.schema.json": '{"type": "integer"}'}
    project = write_project(tmp_path / "p", files, '[[constraints]]\nfiles = ["*.regex", "*.schema.json"]\n')
    report = run_build(project, tmp_path / "out", jobs=1)
    by_artifact = {record.artifact: record for record in report.records}
    assert by_artifact["gpt2/digits.idx"].status == "compiled"
    assert by_artifact["gpt2/order.idx"].status == "failed"
    assert "JSON Schema compiler is not available" in by_artifact["gpt2/order.idx"].reason


def test_cli_exit_code_and_json_report(tmp_path, capsys):
    project = write_project(tmp_path / "p", {"ok.regex": "[ab]", "bad.regex": "(("})
    code = main(["build", str(project), "-o", str(tmp_path / "out"), "--jobs", "1", "--json"])
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert code == 1
    assert (report["compiled"], report["failed"], report["total"]) == (1, 1, 2)
    assert report["failures"][0]["file"].endswith("bad.regex")


@pytest.mark.parametrize("entries, message", [
    ('[[constraints]]\nfiles = "*.regex"\nmute_literal = false\n', "unknown key"),
    ('[[constraints]]\nfiles = "absent.regex"\n', "no file"),
    ('[[constraints]]\nfiles = "*.regex"\ntokenizers = ["llama9"]\n', "unknown tokenizer"),
])
def test_project_mistakes_are_errors_not_silent_defaults(tmp_path, entries, message):
    project = write_project(tmp_path / "p", REGEXES, entries)
    with pytest.raises(ProjectError, match=message):
        run_build(project, tmp_path / "out", jobs=1)


def test_a_broken_worker_pool_fails_the_unfinished_pairs_only(project, tmp_path, monkeypatch):
    from indexc.build import runner

    real = runner.run_tasks

    def dies_after_one(tasks, **kwargs):
        outcomes = real(tasks, **kwargs)
        yield next(outcomes)
        raise RuntimeError("A worker process was killed (SIGKILL)")

    monkeypatch.setattr(runner, "run_tasks", dies_after_one)
    out = tmp_path / "out"
    report = run_build(project, out, jobs=1)
    compiled, failed = report.with_status("compiled"), report.with_status("failed")
    assert len(compiled) == 1 and len(failed) == len(REGEXES) - 1
    assert all("worker pool broke" in record.reason for record in failed)
    monkeypatch.setattr(runner, "run_tasks", real)
    again = run_build(project, out, jobs=1)
    assert len(again.with_status("cached")) == 1 and len(again.with_status("compiled")) == len(REGEXES) - 1


def test_a_rejected_constraint_is_not_compiled_again_until_it_changes(tmp_path):
    from indexc.build.summary import summary_text

    project = write_project(tmp_path / "p", {**REGEXES, "broken.regex": "a(b"})
    out = tmp_path / "out"
    first = run_build(project, out, jobs=1)
    assert [r.known for r in first.with_status("failed")] == [False]
    second = run_build(project, out, jobs=1)
    (failure,) = second.with_status("failed")
    assert failure.known and failure.reason == first.with_status("failed")[0].reason and second.exit_code == 1
    assert "1 known failure(s) not retried" in summary_text(second)
    (project.parent / "broken.regex").write_text("a(b)\n")
    third = run_build(project, out, jobs=1)
    assert not third.with_status("failed") and len(third.with_status("compiled")) == 1

"""Incremental builds: a no-op re-run, rebuilds on change, corrupted files, removed pairs and --prune."""

from __future__ import annotations

import json
from pathlib import Path

from indexc.build import read_manifest, run_build
from indexc.build.summary import summary_text
from tests.build.conftest import REGEXES


def statuses(report) -> dict[str, str]:
    return {record.artifact: record.status for record in report.records}


def test_second_build_does_no_compile_work_and_says_so(project, tmp_path):
    out = tmp_path / "artifacts"
    first = run_build(project, out, jobs=1)
    assert set(statuses(first).values()) == {"compiled"} and len(first.records) == len(REGEXES)
    manifest_before = (out / "manifest.json").read_bytes()
    second = run_build(project, out, jobs=1)
    assert set(statuses(second).values()) == {"cached"}
    assert not second.manifest_written and (out / "manifest.json").read_bytes() == manifest_before
    assert summary_text(second).startswith(f"nothing to compile: {len(REGEXES)} artifacts up to date")


def test_manifest_records_inputs_hashes_and_statistics(project, tmp_path):
    out = tmp_path / "artifacts"
    run_build(project, out, jobs=1)
    entry = json.loads((out / "manifest.json").read_text())["artifacts"]["gpt2/digits.idx"]
    assert entry["constraint"]["kind"] == "regex" and entry["path_taken"] == "dfa"
    assert entry["bytes"] == (out / "gpt2" / "digits.idx").stat().st_size
    assert entry["stats"]["states"] > 0 and entry["tokenizer"]["name"] == "gpt2"
    assert len(entry["key"]) == 64 and len(entry["sha256"]) == 64


def test_changed_constraint_or_option_rebuilds_only_that_pair(project, tmp_path):
    out = tmp_path / "artifacts"
    run_build(project, out, jobs=1)
    (project.parent / "word.regex").write_text("(yes|no|maybe)!\n")
    assert statuses(run_build(project, out, jobs=1)) == {
        "gpt2/digits.idx": "cached", "gpt2/hex.idx": "cached", "gpt2/word.idx": "compiled"}
    text = project.read_text() + '\n[[constraints]]\nfiles = "hex.regex"\nmute_literals = false\n'
    project.write_text(text)
    assert statuses(run_build(project, out, jobs=1))["gpt2/hex.idx"] == "compiled"


def test_a_damaged_artifact_is_rebuilt_not_trusted(project, tmp_path):
    out = tmp_path / "artifacts"
    run_build(project, out, jobs=1)
    good = (out / "gpt2" / "hex.idx").read_bytes()
    (out / "gpt2" / "hex.idx").write_bytes(good[:100])
    assert statuses(run_build(project, out, jobs=1))["gpt2/hex.idx"] == "compiled"
    assert (out / "gpt2" / "hex.idx").read_bytes() == good


def test_removed_constraint_is_reported_then_pruned(project, tmp_path):
    out = tmp_path / "artifacts"
    run_build(project, out, jobs=1)
    (project.parent / "hex.regex").unlink()
    kept = run_build(project, out, jobs=1)
    assert kept.removed == ["gpt2/hex.idx"] and (out / "gpt2" / "hex.idx").exists()
    assert "delete with --prune" in summary_text(kept)
    pruned = run_build(project, out, jobs=1, prune=True)
    assert pruned.removed == ["gpt2/hex.idx"] and not (out / "gpt2" / "hex.idx").exists()
    assert "gpt2/hex.idx" not in read_manifest(out).artifacts
    assert run_build(project, out, jobs=1).removed == []


def test_compiler_change_rebuilds_and_a_stale_worker_refuses(project, tmp_path, monkeypatch):
    from dataclasses import replace

    from indexc.build import keys, plan, worker

    out = tmp_path / "artifacts"
    run_build(project, out, jobs=1)
    for module in (keys, plan, worker):
        monkeypatch.setattr(module, "compiler_identity", lambda kind: "0.1.0+edited")
    report = run_build(project, out, jobs=1)
    assert set(statuses(report).values()) == {"compiled"}
    stale = worker.compile_pair(replace(_any_task(project), compiler="0.0.9+old"))
    assert not stale.ok and "restart the workers" in stale.reason


def _any_task(project):
    from indexc.build.plan import VocabularyFacts, plan_build
    from indexc.build.project import read_project

    return plan_build(read_project(project), {"gpt2": VocabularyFacts("f" * 32, 50257)})[0]


def test_a_same_size_edit_is_caught_by_the_hash(project, tmp_path):
    out = tmp_path / "artifacts"
    run_build(project, out, jobs=1)
    path = out / "gpt2" / "digits.idx"
    good = path.read_bytes()
    path.write_bytes(good[:-1] + bytes([good[-1] ^ 1]))
    assert statuses(run_build(project, out, jobs=1))["gpt2/digits.idx"] == "compiled"
    assert path.read_bytes() == good


def test_the_compiler_identity_follows_the_runtime_a_grammar_warm_up_walks_with(monkeypatch, tmp_path):
    """A grammar-path artifact stores a walk the grammar runtime made at compile time: an edit
    there changes the identity of the grammar and JSON Schema kinds, not the regex kind's."""
    import indexc_runtime.format

    from indexc.build import keys

    runtime_grammar = Path(indexc_runtime.format.__file__).parent / "grammar"
    copy = tmp_path / "grammar"
    copy.mkdir()
    for file in runtime_grammar.glob("*.py"):
        (copy / file.name).write_bytes(file.read_bytes())
    before = {kind: keys.compiler_identity(kind) for kind in ("regex", "grammar", "json_schema")}
    (copy / "walker.py").write_bytes((copy / "walker.py").read_bytes() + b"\n# edited\n")
    fake_format = tmp_path / "format.py"
    fake_format.write_bytes(Path(indexc_runtime.format.__file__).read_bytes())
    monkeypatch.setattr(indexc_runtime.format, "__file__", str(fake_format))
    keys.compiler_identity.cache_clear()
    try:
        after = {kind: keys.compiler_identity(kind) for kind in before}
    finally:
        keys.compiler_identity.cache_clear()
    assert after["regex"] == before["regex"]
    assert after["grammar"] != before["grammar"] and after["json_schema"] != before["json_schema"]

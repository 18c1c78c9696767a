"""``indexc compile --json-schema`` end to end with the bundled GPT-2 tokenizer, then ``indexc check``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from indexc.cli.main import main

GPT2 = str(Path(__file__).resolve().parents[1] / "data" / "tokenizers" / "gpt2.json.zst")
SCHEMA = {
    "type": "object",
    "properties": {"id": {"type": "integer", "minimum": 1}, "tag": {"enum": ["a", "b"]}},
    "required": ["id"],
    "additionalProperties": False,
}


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    folder = tmp_path_factory.mktemp("schema")
    schema = folder / "s.schema.json"
    schema.write_text(json.dumps(SCHEMA))
    out = folder / "s.idx"
    assert main(["compile", "--tokenizer", GPT2, "--json-schema", str(schema), "-o", str(out), "-q"]) == 0
    return out


def test_compiled_artifact_accepts_a_valid_instance_and_rejects_an_invalid_one(compiled, capsys):
    code, out, _ = run(capsys, "check", "--tokenizer", GPT2, str(compiled), "--text", '{"id": 42, "tag": "b"}', "--json")
    assert code == 0, out
    code, _, _ = run(capsys, "check", "--tokenizer", GPT2, str(compiled), "--text", '{"id": 0}', "--json")
    assert code == 1


def test_json_report_and_header_record_the_route(tmp_path, capsys):
    schema = tmp_path / "s.json"
    schema.write_text(json.dumps({"type": "array", "items": {"type": "boolean"}, "uniqueItems": True}))
    out = tmp_path / "s.idx"
    code, stdout, stderr = run(capsys, "compile", "--tokenizer", GPT2, "--json-schema", str(schema), "-o", str(out),
                               "--lenient", "--compact", "--json")
    assert code == 0
    report = json.loads(stdout.strip().splitlines()[-1])
    assert report["path"] == "dfa" and report["reason"] == "regular"
    assert len(report["warnings"]) == 1 and "uniqueItems" in report["warnings"][0]
    assert "warning" in stderr and "uniqueItems" in stderr


@pytest.mark.parametrize("text, expected", [
    ('{"type": "object", "properties": {"a": {"if": {}, "then": {}}}}', "#/properties/a/if"),
    ('{"type": "object",, }', "line 1, column 19"),
    ('{"$ref": "#/definitions/nope"}', "points nowhere"),
    ('{"type": "integer", "minimum": 3, "maximum": 1}', "matches no JSON value"),
])
def test_bad_schemas_exit_2_without_a_partial_file(tmp_path, capsys, text, expected):
    schema = tmp_path / "bad.json"
    schema.write_text(text)
    out = tmp_path / "bad.idx"
    code, _, stderr = run(capsys, "compile", "--tokenizer", GPT2, "--json-schema", str(schema), "-o", str(out))
    assert code == 2 and expected in stderr
    assert not out.exists() and not list(tmp_path.glob("*.idx*"))

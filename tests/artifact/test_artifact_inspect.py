"""``indexc inspect``: text and JSON reports of an artifact, and a one-line error for a bad file."""

from __future__ import annotations

import json
from pathlib import Path

from indexc.cli.main import main

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "golden"


def test_text_report_shows_header_sections_and_mask_forms(capsys):
    assert main(["inspect", str(GOLDEN / "format-v1-small.idx")]) == 0
    out = capsys.readouterr().out
    assert "version 1, dfa index" in out and "300 ids, fingerprint handmade-format-v1-small, eos [1]" in out
    assert "5 (3 accepting), 4 byte classes" in out
    assert "5 unique: dense 2 (80 B), sparse 2 (40 B), complement 1 (24 B)" in out
    assert "token_class_data       u1     350                    350" in out


def test_json_report_is_one_object(capsys):
    assert main(["inspect", str(GOLDEN / "format-v1-small.idx.zst"), "--json"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 1
    report = json.loads(lines[0])
    assert report["compressed"] and report["bytes"] == 1456 and report["raw_bytes"] == 5328
    assert report["header"]["constraint"]["kind"] == "regex" and "sections" not in report["header"]
    assert report["masks"]["forms"]["complement"] == {"count": 1, "bytes": 24}
    assert report["masks"]["tokens_per_mask"]["min"] == 1  # the final state: eos only
    assert report["states"]["count"] == 5 and report["live_tokens"] == 293
    assert sum(s["bytes"] for s in report["sections"]) < report["raw_bytes"]


def test_a_damaged_file_is_one_error_line_and_exit_2(tmp_path, capsys):
    damaged = bytearray((GOLDEN / "format-v1-small.idx").read_bytes())
    damaged[-10] ^= 0xFF
    (tmp_path / "bad.idx").write_bytes(bytes(damaged))
    assert main(["inspect", str(tmp_path / "bad.idx")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "bad.idx" in err[0] and "section 'special_ids': checksum mismatch" in err[0]

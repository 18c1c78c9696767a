"""The per-file regression record: what happened to each file, in a form stable across runs.

Like llguidance's ``expected_maskbench.json`` (``{}`` for a passing file, else the error), one
entry per file name:

- ``{}``: passed;
- ``{"compile_error": <first line of the engine's message>}``, ``{"timeout": "compile over 60 s"}``,
  ``{"crash": ...}``;
- ``{"validation_error": "test #i: should accept but didn't (<where>)"}`` for the first valid
  instance rejected, and/or ``{"invalidation_error": "test #j: should reject but didn't"}`` for the
  first invalid instance accepted, ``{"walk_error": ...}`` for an engine that raised.

Nothing timed goes in, so two runs of the same code give the same file.  ``changes(old, new)``
lists the files of ``new`` whose record differs from ``old`` (a file missing from ``old`` is
new); only the files of the run are compared, so ``--limit`` runs can be checked too.

``compare_with_llguidance`` reads llguidance's own file (``../shared/reference/``; its
categories are ``json_error`` and ``validation_error``) and crosses pass/fail: the files
llguidance passes and we do not are the first ones to look at.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from bench.maskbench.protocol import COMPILE_ERROR, CRASH, TIMEOUT, FileOutcome

DEFAULT_EXPECTED = Path(__file__).resolve().parent / "expected_maskbench.json"
LLGUIDANCE_REFERENCE = Path(__file__).resolve().parents[3] / "shared" / "reference" / "llguidance_expected_maskbench.json"


def record_of(outcome: FileOutcome) -> dict:
    if outcome.status in (COMPILE_ERROR, TIMEOUT, CRASH):
        return {outcome.status: outcome.reason}
    record: dict[str, str] = {}
    broken = [i for i in outcome.instances if i.walk_error]
    if broken:
        record["walk_error"] = f"test #{broken[0].index}: {broken[0].failure}"
    if outcome.valid_rejected:
        first = outcome.valid_rejected[0]
        record["validation_error"] = f"test #{first.index}: should accept but didn't ({first.failure})"
    if outcome.invalid_accepted:
        record["invalidation_error"] = f"test #{outcome.invalid_accepted[0].index}: should reject but didn't"
    return record


def records_of(outcomes: list[FileOutcome]) -> dict[str, dict]:
    return {o.file: record_of(o) for o in sorted(outcomes, key=lambda o: o.file)}


def load_records(path: str | Path) -> dict[str, dict]:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def save_records(records: dict[str, dict], path: str | Path) -> None:
    Path(path).write_text(json.dumps(records, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")


@dataclass(frozen=True)
class Change:
    file: str
    before: dict | None  # None: the file was not in the expected file
    after: dict

    def describe(self) -> str:
        before = "absent" if self.before is None else _short(self.before)
        return f"{self.file}: {before} -> {_short(self.after)}"


def changes(expected: dict[str, dict], actual: dict[str, dict]) -> list[Change]:
    return [Change(name, expected.get(name), record) for name, record in sorted(actual.items())
            if expected.get(name) != record]


@dataclass
class Crossing:
    """Files of one run crossed with llguidance's recorded outcome."""

    both_pass: list[str]
    only_ours: list[str]
    only_llguidance: list[str]
    neither: list[str]
    not_in_reference: list[str]

    def describe(self) -> str:
        return (f"both pass {len(self.both_pass)}, only this engine {len(self.only_ours)}, "
                f"only llguidance (reference file) {len(self.only_llguidance)}, neither {len(self.neither)}"
                + (f", not in the reference {len(self.not_in_reference)}" if self.not_in_reference else ""))


def compare_with_llguidance(actual: dict[str, dict], reference: dict[str, dict]) -> Crossing:
    crossing = Crossing([], [], [], [], [])
    for name, record in sorted(actual.items()):
        if name not in reference:
            crossing.not_in_reference.append(name)
            continue
        ours, theirs = not record, not reference[name]
        bucket = {(True, True): crossing.both_pass, (True, False): crossing.only_ours,
                  (False, True): crossing.only_llguidance, (False, False): crossing.neither}[(ours, theirs)]
        bucket.append(name)
    return crossing


def _short(record: dict) -> str:
    if not record:
        return "pass"
    return "; ".join(f"{key}: {value[:120]}" for key, value in sorted(record.items()))

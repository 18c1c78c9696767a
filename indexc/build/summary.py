"""The end of a build, for people (a short table) and for machines (one JSON object).

The text says first whether any work was done ("nothing to compile: N artifacts up to date"
is the line a no-op ``make compile`` prints), then the counts and the time, the five slowest
compiles of this build, every failure with its file and reason, and the artifacts the project
no longer produces.  The JSON holds the same facts plus every pair's record.
"""

from __future__ import annotations

from dataclasses import asdict

from indexc.build.runner import CACHED, COMPILED, FAILED, BuildReport

SLOWEST = 5


def summary_text(report: BuildReport) -> str:
    compiled, cached, failed = (report.with_status(s) for s in (COMPILED, CACHED, FAILED))
    lines = []
    known = [record for record in failed if record.known]
    if not compiled and len(known) == len(failed):
        again = f", {len(known)} known failure(s) not retried (inputs unchanged)" if known else ""
        lines.append(f"nothing to compile: {len(cached)} artifacts up to date in {report.output}{again}")
    lines.append(f"compiled {len(compiled)}, cached {len(cached)}, failed {len(failed)}, "
                 f"total {len(report.records)} in {report.seconds:.2f} s "
                 f"({report.backend}, {report.jobs} job{'s' if report.jobs != 1 else ''})")
    slowest = sorted(compiled, key=lambda record: -record.wall_ms)[:SLOWEST]
    if slowest:
        lines.append(f"slowest {len(slowest)}:")
        lines += [f"  {record.wall_ms / 1000.0:8.2f} s  {record.artifact}  ({record.bytes:,} bytes, "
                  f"{record.path_taken})" for record in slowest]
    lines += failure_lines(report)
    if report.removed:
        verb = "deleted (--prune)" if report.pruned else "no longer in the project (delete with --prune)"
        lines.append(f"{len(report.removed)} artifact(s) {verb}:")
        lines += [f"  {artifact}" for artifact in report.removed]
    return "\n".join(lines)


def failure_lines(report: BuildReport) -> list[str]:
    """Every failed pair with its file, tokenizer and reason (all that ``-q`` prints)."""
    failed = report.with_status(FAILED)
    if not failed:
        return []
    known = sum(record.known for record in failed)
    title = f"failed {len(failed)}" + (f" ({known} as in the last build, not retried)" if known else "") + ":"
    return [title, *(f"  {r.file} [{r.tokenizer}]: {r.reason}" for r in failed)]


def summary_json(report: BuildReport) -> dict:
    compiled = report.with_status(COMPILED)
    return {
        "output": report.output,
        "compiled": len(compiled),
        "cached": len(report.with_status(CACHED)),
        "failed": len(report.with_status(FAILED)),
        "total": len(report.records),
        "seconds": round(report.seconds, 3),
        "jobs": report.jobs,
        "backend": report.backend,
        "removed": report.removed,
        "pruned": report.pruned,
        "manifest_written": report.manifest_written,
        "tokenizer_ms": report.tokenizer_ms,
        "slowest": [r.artifact for r in sorted(compiled, key=lambda record: -record.wall_ms)[:SLOWEST]],
        "failures": [{"file": r.file, "tokenizer": r.tokenizer, "artifact": r.artifact, "reason": r.reason,
                      "not_retried": r.known} for r in report.with_status(FAILED)],
        "pairs": [asdict(record) for record in report.records],
    }

"""One engine's outcomes -> the figures of the MaskBench table; several engines -> markdown.

Counting rules (the issue's "Proving it" list, MaskBench's table in spirit):

- **passing**: compiled, and every instance behaved (a file without tests passes if it compiles);
- **compile error / timeout / crash**: files, the first by reason (``reasons.reason_of``);
- **validation errors**: valid instances rejected, and the files holding one; **invalidation
  errors**: invalid instances accepted, and their files; **walk errors**: instances on which the
  engine raised or refused a token its own mask allowed;
- **compile ms**: over the files that compiled (timeouts are counted apart, not as the limit);
  nearest-rank p50 / p90 / p99 and max;
- **mask µs**: every fill of every walk of every compiled file, p50 / p99 (the cold first masks
  of lazy engines included, as a server would see them);
- **size**: p50 over compiled files of what the engine can say: indexc's artifact file,
  outlines-core's serialized index, xgrammar's ``memory_size_bytes``; llguidance has none;
- **by path** (engines that say which path a schema took: indexc's ``dfa`` and ``cfg``): the
  compile and mask figures again per path, with the masks over ``SLOW_MASK_US`` counted, since
  the overall mask p99 says little about where it comes from.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from bench.engines.common import format_size
from bench.maskbench.protocol import COMPILE_ERROR, CRASH, PASS, TIMEOUT, FileOutcome
from bench.maskbench.reasons import reason_of


@dataclass
class EngineSummary:
    engine: str
    files: int
    passing: int
    compile_errors: int
    timeouts: int
    crashes: int
    valid_rejected: int
    valid_rejected_files: int
    invalid_accepted: int
    invalid_accepted_files: int
    walk_errors: int
    instances: int
    tokens: int
    compile_ms: dict
    mask_us: dict
    size_p50: int | None
    reasons: list[tuple[str, int]]  # compile errors, timeouts and crashes by group, most frequent first
    by_path: dict = None  # path -> PathSummary.as_dict(), for engines that report a path

    def as_dict(self) -> dict:
        return {**self.__dict__, "reasons": [list(r) for r in self.reasons]}


def summarize(engine: str, outcomes: list[FileOutcome]) -> EngineSummary:
    compiled = [o for o in outcomes if o.compile_ms is not None and o.status not in (COMPILE_ERROR, TIMEOUT, CRASH)]
    instances = [i for o in compiled for i in o.instances]
    masks = np.fromiter((t for o in compiled for t in o.mask_us), dtype=np.float64)
    sizes = [o.size_bytes for o in compiled if o.size_bytes is not None]
    refused = [o for o in outcomes if o.status in (COMPILE_ERROR, TIMEOUT, CRASH)]
    return EngineSummary(
        engine=engine,
        files=len(outcomes),
        passing=sum(o.status == PASS for o in outcomes),
        compile_errors=sum(o.status == COMPILE_ERROR for o in outcomes),
        timeouts=sum(o.status == TIMEOUT for o in outcomes),
        crashes=sum(o.status == CRASH for o in outcomes),
        valid_rejected=sum(len(o.valid_rejected) for o in compiled),
        valid_rejected_files=sum(bool(o.valid_rejected) for o in compiled),
        invalid_accepted=sum(len(o.invalid_accepted) for o in compiled),
        invalid_accepted_files=sum(bool(o.invalid_accepted) for o in compiled),
        walk_errors=sum(i.walk_error for i in instances),
        instances=len(instances),
        tokens=sum(i.tokens for i in instances),
        compile_ms=percentiles([o.compile_ms for o in compiled], (50, 90, 99, 100)),
        mask_us=percentiles(masks, (50, 99, 100)),
        size_p50=int(np.median(sizes)) if sizes else None,
        reasons=Counter(f"{o.status}: {reason_of(o.reason)}" for o in refused).most_common(),
        by_path={path: path_summary(group) for path, group in _by_path(compiled).items()},
    )


SLOW_MASK_US = 200.0  # issue 4's mask p99 goal


def path_summary(compiled: list[FileOutcome]) -> dict:
    """Files, compile ms p50 / p99, masks, mask µs p50 / p99 / max and masks over ``SLOW_MASK_US``."""
    masks = np.fromiter((t for o in compiled for t in o.mask_us), dtype=np.float64)
    return {"files": len(compiled), "compile_ms": percentiles([o.compile_ms for o in compiled], (50, 99)),
            "masks": int(masks.size), "mask_us": percentiles(masks, (50, 99, 100)),
            "slow_masks": int(np.count_nonzero(masks > SLOW_MASK_US))}


def _by_path(compiled: list[FileOutcome]) -> dict[str, list[FileOutcome]]:
    groups: dict[str, list[FileOutcome]] = {}
    for o in compiled:
        if o.path:
            groups.setdefault(o.path, []).append(o)
    return dict(sorted(groups.items()))


def percentiles(values, qs: tuple[int, ...]) -> dict:
    """Nearest-rank percentiles (``p100`` is the max); empty input gives an empty dict."""
    data = np.sort(np.asarray(list(values) if not isinstance(values, np.ndarray) else values, dtype=np.float64))
    if data.size == 0:
        return {}
    return {f"p{q}": float(data[max(0, int(np.ceil(q / 100 * data.size)) - 1)]) for q in qs}


ROWS = (
    ("files", lambda s: f"{s.files:,}"),
    ("passing", lambda s: f"{s.passing:,} ({100 * s.passing / max(1, s.files):.1f}%)"),
    ("compile error", lambda s: f"{s.compile_errors:,}"),
    ("timeout", lambda s: f"{s.timeouts:,}"),
    ("crash / out of memory", lambda s: f"{s.crashes:,}"),
    ("validation error (valid rejected): instances / files", lambda s: f"{s.valid_rejected:,} / {s.valid_rejected_files:,}"),
    ("invalidation error (invalid accepted): instances / files", lambda s: f"{s.invalid_accepted:,} / {s.invalid_accepted_files:,}"),
    ("walk error (engine raised)", lambda s: f"{s.walk_errors:,}"),
    ("instances walked / tokens", lambda s: f"{s.instances:,} / {s.tokens:,}"),
    ("compile ms p50", lambda s: _ms(s.compile_ms, "p50")),
    ("compile ms p90", lambda s: _ms(s.compile_ms, "p90")),
    ("compile ms p99", lambda s: _ms(s.compile_ms, "p99")),
    ("compile ms max", lambda s: _ms(s.compile_ms, "p100")),
    ("mask µs p50", lambda s: _us(s.mask_us, "p50")),
    ("mask µs p99", lambda s: _us(s.mask_us, "p99")),
    ("mask µs max", lambda s: _us(s.mask_us, "p100")),
    ("size p50 (artifact / index / memory)", lambda s: format_size(s.size_p50)),
)


def markdown_table(summaries: list[EngineSummary]) -> str:
    header = "| metric | " + " | ".join(s.engine for s in summaries) + " |"
    rule = "|:--|" + "--:|" * len(summaries)
    lines = [header, rule]
    lines += [f"| {label} | " + " | ".join(cell(s) for s in summaries) + " |" for label, cell in ROWS]
    return "\n".join(lines)


def markdown_paths(summary: EngineSummary) -> str:
    """The per-path table of one engine ("" when it reports no path)."""
    if not summary.by_path:
        return ""
    lines = [f"| {summary.engine}: path | files | compile ms p50 / p99 | masks | mask µs p50 / p99 / max "
             f"| masks over {SLOW_MASK_US:g} µs |", "|:--|--:|--:|--:|--:|--:|"]
    for path, p in summary.by_path.items():
        lines.append(f"| {path} | {p['files']:,} | {_ms(p['compile_ms'], 'p50')} / {_ms(p['compile_ms'], 'p99')} "
                     f"| {p['masks']:,} | {_us(p['mask_us'], 'p50')} / {_us(p['mask_us'], 'p99')} / "
                     f"{_us(p['mask_us'], 'p100')} | {p['slow_masks']:,} |")
    return "\n".join(lines)


def markdown_reasons(summary: EngineSummary, top: int = 15) -> str:
    if not summary.reasons:
        return f"{summary.engine}: no compile errors, timeouts or crashes."
    lines = [f"| {summary.engine}: files not compiled, by reason | files |", "|:--|--:|"]
    lines += [f"| {reason.replace('|', '/')} | {count} |" for reason, count in summary.reasons[:top]]
    rest = sum(count for _, count in summary.reasons[top:])
    if rest:
        lines.append(f"| ({len(summary.reasons) - top} other reasons) | {rest} |")
    return "\n".join(lines)


def _ms(values: dict, key: str) -> str:
    return "—" if key not in values else (f"{values[key]:,.1f}" if values[key] < 100 else f"{values[key]:,.0f}")


def _us(values: dict, key: str) -> str:
    return "—" if key not in values else f"{values[key]:,.1f}"

"""The MaskBench protocol for one file and one engine: compile, then walk every instance.

A schema *passes* when it compiles and every instance behaves: a valid instance is walked to
its end (each token in the mask before it is taken, then an EOS id in the final mask, which in
every engine here means "accepting"), an invalid one is refused at some token or by the
missing EOS at its end.  MaskBench's own runner stops after the last token and never asks
for EOS; here a valid instance must also end in an accepting state, and an invalid one that is
an unfinished valid document (a required property missing, ``minItems`` not reached) counts
as refused -- which is what a decoder that may only stop on EOS does with it.

Instances are tokenized with the tokenizer's own encoder (HF ``tokenizers``, no special tokens
added), the text being MaskBench's ``json.dumps(data, ensure_ascii=False)``.  Every fill of the
mask is timed on its own (``bench.engines.common.time_walk``); the advance is timed apart.  An
exception while walking, or a token that the mask allowed and ``advance`` then refused, is an
engine inconsistency: the instance is marked ``walk_error`` and misbehaves whatever its
validity (it is never counted as the refusal of an invalid instance).

The outcome is a plain dict (``FileOutcome.as_dict``) so that it crosses the worker pipe as one
JSON line.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from typing import Sequence

from bench.engines.common import time_walk
from bench.maskbench.dataset import MaskBenchFile
from bench.maskbench.schema_engines import SchemaRefused, first_line

PASS = "pass"
COMPILE_ERROR = "compile_error"
TIMEOUT = "timeout"
CRASH = "crash"
FAIL = "fail"  # compiled, some instance misbehaved


@dataclass
class InstanceOutcome:
    index: int
    valid: bool
    accepted: bool
    tokens: int
    failure: str = ""  # where it was refused (or why the walk broke)
    walk_error: bool = False  # the engine raised while walking: neither accepted nor refused

    @property
    def behaved(self) -> bool:
        return not self.walk_error and self.accepted == self.valid


@dataclass
class FileOutcome:
    file: str
    family: str
    engine: str
    status: str
    reason: str = ""  # compile error, timeout or crash: one line
    compile_ms: float | None = None
    size_bytes: int | None = None
    path: str | None = None  # indexc: "dfa" or "cfg"
    instances: list[InstanceOutcome] = field(default_factory=list)
    mask_us: list[float] = field(default_factory=list)
    advance_us: list[float] = field(default_factory=list)

    def as_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, raw: dict) -> "FileOutcome":
        instances = [InstanceOutcome(**item) for item in raw.get("instances", [])]
        return cls(**{**raw, "instances": instances})

    @property
    def valid_rejected(self) -> list[InstanceOutcome]:
        return [i for i in self.instances if i.valid and not i.accepted]

    @property
    def invalid_accepted(self) -> list[InstanceOutcome]:
        return [i for i in self.instances if not i.valid and i.accepted]


def run_file(engine, tokenizer, encode, mbfile: MaskBenchFile, eos_ids: Sequence[int],
             on_compiled=None) -> FileOutcome:
    """Compile ``mbfile``'s schema with ``engine`` and walk its instances.

    ``encode(text) -> token ids``; ``on_compiled(compile_ms)`` is called between the compile
    and the walks (the worker uses it to tell the parent that the compile is over).
    """
    outcome = FileOutcome(mbfile.name, mbfile.family, engine.name, PASS)
    started = time.perf_counter()
    try:
        compiled = engine.compile_schema(tokenizer, mbfile.schema_text, mbfile.name)
    except SchemaRefused as exc:
        outcome.status, outcome.reason = COMPILE_ERROR, str(exc)
        return outcome
    except Exception as exc:  # an engine bug is a compile error too, named as such
        outcome.status, outcome.reason = COMPILE_ERROR, f"{type(exc).__name__}: {first_line(exc)}"
        return outcome
    elapsed_ms = (time.perf_counter() - started) * 1000.0
    outcome.compile_ms = compiled.compile_ms if compiled.compile_ms is not None else elapsed_ms
    if on_compiled is not None:
        on_compiled(outcome.compile_ms)
    for instance in mbfile.instances:
        outcome.instances.append(_walk(engine, compiled, encode(instance.text), instance, eos_ids, outcome))
    describe = getattr(engine, "describe", None)
    if describe is not None:
        describe(compiled)
    outcome.size_bytes = compiled.serialized_bytes
    outcome.path = compiled.extra.get("path")
    outcome.status = PASS if all(i.behaved for i in outcome.instances) else FAIL
    return outcome


def _walk(engine, compiled, token_ids: list[int], instance, eos_ids, outcome: FileOutcome) -> InstanceOutcome:
    try:
        report = time_walk(engine.start_walk(compiled), token_ids, eos_ids)
    except Exception as exc:  # a crash in fill or in starting the walk
        return InstanceOutcome(instance.index, instance.valid, False, len(token_ids),
                               f"{type(exc).__name__}: {first_line(exc)}", walk_error=True)
    outcome.mask_us.extend(report.mask_us)
    outcome.advance_us.extend(report.advance_us)
    # A token the mask allowed but advance refused is an engine inconsistency, not a refusal.
    broke = report.failure.startswith("advance on token")
    return InstanceOutcome(instance.index, instance.valid, report.accepted, len(token_ids),
                           report.failure, walk_error=broke)

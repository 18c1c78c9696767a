"""A worker process: one engine, its tokenizer loaded once, MaskBench files one at a time.

Why a long-lived process per engine instead of one per file: loading Llama-3 costs each engine
1-3 s (llguidance's ``LLTokenizer`` 1.2 s, outlines-core's vocabulary 0.3 s on top, the HF
encoder 0.5 s), which would exceed the whole walk of most files.  Why a process at all: a
compile that hangs or eats the machine (outlines-core built a 553 MiB index for two
``maxLength: 256`` strings) must not stall or kill the run, so the parent (``pool``) holds a
deadline and kills this process by its pid when it passes, and the address space is capped
here (``RLIMIT_AS``, ``--mem-limit-gb``) so an explosion ends as an allocation failure in this
process instead of the kernel's OOM killer choosing among the engineers' processes.

Wire protocol (JSON lines; stdout is reserved for it, anything a library prints goes to
stderr):  the worker says ``{"event": "ready"}`` once the tokenizer is loaded; then for each
request line ``{"path": ...}`` it says ``{"event": "compiled", "compile_ms": ...}`` after the
compile (so the parent can give the walks their own deadline) and ``{"event": "done",
"outcome": {...}}`` at the end.

Run: ``python -m bench.maskbench.worker --engine llguidance --tokenizer T --eos 128001``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys

from bench.maskbench.dataset import load_file
from bench.maskbench.protocol import run_file
from bench.maskbench.schema_engines import load_schema_engine


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="MaskBench worker (started by bench.maskbench)")
    p.add_argument("--engine", required=True)
    p.add_argument("--tokenizer", required=True)
    p.add_argument("--eos", required=True, help="comma-separated EOS ids")
    p.add_argument("--mem-limit-gb", type=float, default=0.0, help="address-space cap (0: none)")
    return p.parse_args(argv)


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    wire = _take_stdout()
    _cap_memory(args.mem_limit_gb)
    eos_ids = [int(i) for i in args.eos.split(",")]
    engine = load_schema_engine(args.engine)
    tokenizer = engine.load_tokenizer(args.tokenizer, eos_ids)
    encode = text_encoder(args.tokenizer)
    _say(wire, {"event": "ready"})
    for line in sys.stdin:
        request = json.loads(line)
        mbfile = load_file(request["path"])
        outcome = run_file(engine, tokenizer, encode, mbfile, eos_ids,
                           on_compiled=lambda ms: _say(wire, {"event": "compiled", "compile_ms": ms}))
        _say(wire, {"event": "done", "outcome": outcome.as_dict()})
    return 0


def text_encoder(tokenizer_path: str):
    """``text -> ids``: the tokenizer's own encoding (HF ``tokenizers``), no special tokens."""
    from tokenizers import Tokenizer

    from tests.reference.tokenizer_source import tokenizer_json_text

    tokenizer = Tokenizer.from_str(tokenizer_json_text(tokenizer_path))
    return lambda text: tokenizer.encode(text, add_special_tokens=False).ids


def _take_stdout():
    """The wire: a private copy of fd 1; fd 1 itself now points at stderr."""
    wire = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return wire


def _cap_memory(gigabytes: float) -> None:
    if gigabytes > 0:
        cap = int(gigabytes * (1 << 30))
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))


def _say(wire, message: dict) -> None:
    wire.write(json.dumps(message) + "\n")
    wire.flush()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

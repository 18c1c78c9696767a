"""One measurement in a fresh interpreter: ``python -m MODULE --one ARGS...`` prints a JSON line.

The grammar bench and the parser floor measure each case in a process of its own, so that no
case inherits another's memos, allocator state or collector generations; the child's last
stdout line is its row, and a failure is a row too (``{"error": ...}``), never a lost case.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def run_one(module: str, args: list[str], timeout_s: float) -> dict:
    """The child's JSON row, or ``{"error": ...}`` with its last stderr line or the timeout."""
    try:
        done = subprocess.run([sys.executable, "-m", module, "--one", *args], cwd=REPO,
                              capture_output=True, text=True, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        return {"error": f"timeout after {timeout_s:g} s"}
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        return {"error": (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]}
    return json.loads(lines[-1])

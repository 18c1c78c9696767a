"""One measurement in a fresh interpreter: ``python -m MODULE --one ARGS...`` prints a JSON line.

The grammar bench and the parser floor measure each case in a process of its own, so that no
case inherits another's memos, allocator state or collector generations; the child's last
stdout line is its row, and a failure is a row too (``{"error": ...}``), never a lost case.
Both sides of that exchange are here: ``run_one`` (the parent) and ``add_one_option`` /
``print_one`` (the child's ``--one``).

The child runs from the repository root (``cwd``): ``python -m`` puts it first on
``sys.path``, so the child imports this checkout's ``bench`` and ``indexc`` whatever
``PYTHONPATH`` says; ``PYTHONPATH`` does reach ``indexc_runtime`` (installed, not at the
root), which is how an older runtime is measured on this checkout's compiler.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Callable

REPO = Path(__file__).resolve().parents[1]


def run_one(module: str, args: list[str], timeout_s: float, option: str = "--one") -> dict:
    """The child's JSON row, or ``{"error": ...}`` with its last stderr line or the timeout
    (``option``: the child's option that takes ``args``)."""
    try:
        done = subprocess.run([sys.executable, "-m", module, option, *args], cwd=REPO,
                              capture_output=True, text=True, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        return {"error": f"timeout after {timeout_s:g} s"}
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        return {"error": (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]}
    return json.loads(lines[-1])


def add_one_option(parser: argparse.ArgumentParser, metavar: tuple[str, str]) -> None:
    """The child's option: ``--one A B`` measures that one case (hidden from ``--help``)."""
    parser.add_argument("--one", nargs=2, metavar=metavar, help=argparse.SUPPRESS)


def print_one(one: list[str], measure: Callable[[str, str], dict]) -> int:
    """The child's side of ``run_one``: its row as the last stdout line; the exit status."""
    print(json.dumps(measure(*one)))
    return 0

"""indexc.allocator: the malloc thresholds are set once, on glibc only, and a compile still works."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from indexc import allocator


def _glibc() -> bool:
    try:
        return os.confstr("CS_GNU_LIBC_VERSION").startswith("glibc")
    except (AttributeError, ValueError, OSError):
        return False


def test_applies_on_glibc_and_is_idempotent():
    first = allocator.reuse_freed_memory()
    assert first is _glibc()
    assert allocator.reuse_freed_memory() is first


def test_not_glibc_does_nothing(monkeypatch):
    monkeypatch.setattr(allocator, "_applied", None)
    monkeypatch.setattr(allocator, "_is_glibc", lambda: False)
    assert allocator.reuse_freed_memory() is False


@pytest.mark.skipif(not _glibc(), reason="the page-fault count is a glibc malloc property")
def test_freed_blocks_are_reused_without_page_faults():
    """The behaviour the module exists for: a freed 8 MB block is handed out again, already
    mapped, so touching a new block of that size costs (almost) no page faults."""
    code = (
        "import resource, numpy as np\n"
        "from indexc.allocator import reuse_freed_memory\n"
        "assert reuse_freed_memory()\n"
        "a = np.ones(1 << 20); del a\n"  # 8 MB: mapped on first use, then kept on the heap
        "before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt\n"
        "b = np.ones(1 << 20)\n"
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)\n"
    )
    faults = int(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
    assert faults < 64  # untuned: ~500 here (a fresh mapping, faulted in 4 KiB and 2 MiB pages)

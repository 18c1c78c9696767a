"""The cyclic garbage collector stays paused while a constraint compiles.

A compile holds large live structures of small containers: the subset construction's dict of
frozensets, the NFA's lists, the normaliser's sets, the JSON Schema lowering's trees.  Every
few hundred allocations the generational collector runs, and every few of those it rescans
all survivors, so its cost grows with what the compile keeps alive, not with the garbage it
finds (the compile's garbage is freed by reference counting as it goes; it makes few cycles).
Measured by the front end's owner: 7% of Github_easy o44020's DFA build, 30-45% of Kubernetes
kb_684's lowering and DFA attempt.  The artifact write (``pipeline.result.write``) is paused
too: in a fresh process that had just loaded a tokenizer (its 128k-token lists), a full
collection landed in the write of a small regex's compile and took 4 ms of its 12.

Paused, not disabled for good: the collector resumes when the outermost compile returns (or
raises), and collects then whatever cycles the compile left.  Memory stays bounded by the
compile's own limits (``indexc.limits``: ``--max-memory`` is checked on the structures that
grow), not by the collector.  A caller that had disabled the collector itself keeps it so.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator


@contextmanager
def collector_paused() -> Iterator[None]:
    """Disable the cyclic collector for the block (a decorator too); re-enable it only if it was on."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()

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
raises), and collects then whatever cycles the compile left.  That resumption is where a full
collection lands, and a full collection walks every object the process holds: so the processes
indexc owns (the command line, the build workers, the benches' indexc engine) move what is
alive once their tokenizer is loaded out of its reach (``freeze_survivors``).  Memory stays bounded by the
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


def freeze_survivors() -> None:
    """Move every object alive now out of the collector's generations (``gc.freeze``): later
    collections walk only what is made after.  Called by the processes indexc owns right after
    their tokenizer load (the vocabulary, the trie and the imports live as long as the process).
    A fresh process's first compiles of the bench's small regexes are bimodal on this host
    (``date``: ~9 or ~14 ms); with the survivors frozen, 4 of 6 interleaved fresh processes ran
    in the fast mode against 1 of 6 without (date, uuid, color_list: 8.8-9.5 / 7.0-7.5 /
    7.1-7.5 ms), and a compile that ended in a full collection (4 ms of a 13 ms ``date``) no
    longer pays for walking the vocabulary's objects."""
    gc.freeze()

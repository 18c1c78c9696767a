"""A one-line progress bar on stderr: done/total, compiled, failed, elapsed and an ETA.

Drawn only when stderr is a terminal (a CI log gets the summary, not hundreds of carriage
returns) and redrawn at most ten times a second.  The ETA is the mean time per finished pair
times the pairs left: pairs differ in cost by orders of magnitude, so it is a guide, which is
all a bar can be.  No dependency: twenty lines beat pulling in tqdm for one line of output.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

BAR_WIDTH = 24
REDRAW_SECONDS = 0.1


class ProgressBar:
    def __init__(self, total: int, *, stream: TextIO | None = None, enabled: bool | None = None):
        self.total = total
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.done = self.failed = 0
        self.start = time.monotonic()
        self._drawn_at = 0.0

    def advance(self, *, failed: bool) -> None:
        self.done += 1
        self.failed += failed
        now = time.monotonic()
        if self.enabled and (now - self._drawn_at >= REDRAW_SECONDS or self.done == self.total):
            self._drawn_at = now
            self.stream.write("\r" + self.line(now - self.start))
            self.stream.flush()

    def line(self, elapsed: float) -> str:
        filled = BAR_WIDTH * self.done // max(self.total, 1)
        eta = elapsed / self.done * (self.total - self.done) if self.done else 0.0
        return (f"[{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {self.done}/{self.total} "
                f"compiled {self.done - self.failed}, failed {self.failed}  "
                f"{_clock(elapsed)} elapsed, ETA {_clock(eta)} ")

    def close(self) -> None:
        if self.enabled and self.done:
            self.stream.write("\n")
            self.stream.flush()


def _clock(seconds: float) -> str:
    minutes, seconds = divmod(int(round(seconds)), 60)
    return f"{minutes}:{seconds:02d}"

"""The progress bar: counts and an ETA on a terminal, nothing when stderr is not one."""

from __future__ import annotations

import io

from indexc.build.progress import ProgressBar


def test_line_shows_counts_and_eta():
    bar = ProgressBar(4, enabled=False)
    bar.advance(failed=False)
    bar.advance(failed=True)
    line = bar.line(elapsed=10.0)
    assert "2/4" in line and "compiled 1, failed 1" in line and "ETA 0:10" in line


def test_draws_only_when_enabled():
    quiet, loud = io.StringIO(), io.StringIO()
    for stream, enabled in ((quiet, False), (loud, True)):
        bar = ProgressBar(1, stream=stream, enabled=enabled)
        bar.advance(failed=False)
        bar.close()
    assert quiet.getvalue() == "" and "1/1" in loud.getvalue()

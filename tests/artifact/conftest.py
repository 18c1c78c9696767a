"""The writer's tests build their tables with the same hand-made helpers as the runtime's tests."""

from __future__ import annotations

import sys
from pathlib import Path

# tests/ is not a package: make tests/runtime/handmade.py importable from here too.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runtime"))

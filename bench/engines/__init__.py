"""The engines of the regex benchmark, one module each, all with the shape of ``common.Engine``.

Design note.  An engine module imports its library only when it is used, so that the driver can
list every engine and say "not installed" for one whose package is missing (xgrammar needs
torch and lives only in ``.venv-bench``).  ``unavailable_reason(name)`` answers without
importing anything heavy; ``load_engine(name)`` imports the module and returns its ``ENGINE``.

Code map (reading order):
- ``common``               Compiled, MaskWalk, WalkReport, the timed walk, bitmask helpers.
- ``indexc_engine``        the ``indexc compile`` command line + ``indexc_runtime``.
- ``outlines_core_engine`` outlines-core 0.2.14 ``Index`` / ``Guide``.
- ``llguidance_engine``    llguidance ``LLMatcher`` with ``no_forcing`` (DESIGN's exact masks).
- ``xgrammar_engine``      xgrammar ``GrammarCompiler.compile_regex`` / ``GrammarMatcher``.
"""

from __future__ import annotations

import importlib
import importlib.util

ENGINE_MODULES = {
    "indexc": ("bench.engines.indexc_engine", ("indexc", "indexc_runtime")),
    "outlines-core": ("bench.engines.outlines_core_engine", ("outlines_core",)),
    "llguidance": ("bench.engines.llguidance_engine", ("llguidance",)),
    "xgrammar": ("bench.engines.xgrammar_engine", ("xgrammar", "torch", "transformers")),
}


def unavailable_reason(name: str) -> str | None:
    """None if the engine's packages are importable, else why not (e.g. "not installed")."""
    missing = [pkg for pkg in ENGINE_MODULES[name][1] if importlib.util.find_spec(pkg) is None]
    return f"not installed ({', '.join(missing)})" if missing else None


def load_engine(name: str):
    """The ``ENGINE`` object of an engine module (imports the engine's library)."""
    return importlib.import_module(ENGINE_MODULES[name][0]).ENGINE

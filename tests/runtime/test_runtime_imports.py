"""The serving package stands alone: importing and using it never imports the compiler, nor any
third-party package beyond numpy, msgpack and zstandard."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "golden" / "format-v1-small.idx"

SCRIPT = f"""
import json, sys
import numpy, msgpack, zstandard
before = set(sys.modules)
import indexc_runtime
index = indexc_runtime.load({str(GOLDEN)!r}, verify=True)
matcher = index.matcher()
matcher.fill_bitmask(numpy.zeros((1, index.mask_words), dtype=numpy.int32))
matcher.advance(37)
matcher.forced_tokens()
new = set(sys.modules) - before
print(json.dumps({{
    "compiler": sorted(n for n in sys.modules if n == "indexc" or n.startswith("indexc.")),
    "new_non_stdlib": sorted(n for n in new if n.split(".")[0] not in sys.stdlib_module_names
                             and n.split(".")[0] != "indexc_runtime"),
}}))
"""


def test_indexc_runtime_imports_neither_the_compiler_nor_other_packages():
    result = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.splitlines()[-1])
    assert report["compiler"] == []
    assert report["new_non_stdlib"] == [], "the runtime imported more than numpy, msgpack and zstandard"

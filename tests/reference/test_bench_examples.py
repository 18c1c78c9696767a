"""Every regex of the engine benchmark comes with an example that really is in its language.

The bench reports "valid example accepted" per engine; that column only means something if the
example is valid.  Two independent judges: Python's ``re`` on the text, and the llguidance
oracle walking the text's GPT-2 tokenization (each token allowed, EOS allowed at the end).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from .llguidance_oracle import LlgOracle

EXAMPLES = Path(__file__).resolve().parents[2] / "bench" / "data" / "regex_examples.json"
ENTRIES = json.loads(EXAMPLES.read_text(encoding="utf-8"))["regexes"]


@pytest.fixture(scope="module")
def gpt2() -> LlgOracle:
    return LlgOracle("gpt2")


def test_names_are_unique():
    names = [e["name"] for e in ENTRIES]
    assert len(names) == len(set(names)) >= 16


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["name"] for e in ENTRIES])
def test_example_is_in_the_language(entry, gpt2):
    assert re.fullmatch(entry["regex"], entry["example"])
    matcher = gpt2.matcher(entry["regex"])
    for token in gpt2.tokenize(entry["example"]):
        assert token in matcher.exact_allowed_ids()
        matcher.advance(token)
    assert matcher.is_accepting()
    assert set(gpt2.eos_ids.tolist()) <= set(matcher.exact_allowed_ids().tolist())

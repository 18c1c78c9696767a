"""Coverages (``indexc_runtime.grammar.coverage``): a wide one served as its open places.

``Coverage.narrowed`` must name exactly the places its bits leave open (none of the spare
word's), count runs as the bits do, and stay wide past its limit; on RFC-XML's text with
Llama-3 (every token undecided, a few hundred open) the walker must take it and give the masks
the wide walk gives."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import indexc_runtime
from indexc.grammar import load_grammar
from indexc.pipeline import write
from indexc.pipeline.grammar import compile_grammar_ir
from indexc.trie import build_trie
from indexc_runtime.grammar.coverage import Coverage, OpenPlaces
from tests.conftest import bundled_tokenizer_file, keep_coverages_wide
from tests.reference.llguidance_oracle import LlgOracle

GRAMMARS = Path(__file__).resolve().parents[1] / "data" / "grammars"


def _coverage(places: int, open_places: list[int]) -> Coverage:
    """A coverage of ``places`` trie places with only ``open_places`` open; the spare word's
    bits set, as ``of_masks`` sets them (``bits |= ~undecided``)."""
    bits = np.full((places + 31) // 32 + 1, 0xFFFFFFFF, dtype=np.uint32)
    for place in open_places:
        bits[place >> 5] &= ~np.uint32(1 << (place & 31))
    return Coverage(bits, places)


@pytest.mark.parametrize("places", [1, 31, 32, 33, 1000, 4097])
def test_narrowed_names_the_open_places_and_counts_runs_as_the_bits(places):
    rng = np.random.default_rng(places)
    open_places = sorted(set(rng.integers(0, places, size=min(places, 40)).tolist()))
    wide = _coverage(places, open_places)
    narrow = wide.narrowed(len(open_places))
    assert isinstance(narrow, OpenPlaces)
    assert narrow.places.tolist() == open_places
    lo = rng.integers(0, places + 1, size=200)
    hi = np.minimum(lo + rng.integers(0, 80, size=200), places)
    assert narrow.open_counts(lo, hi).tolist() == wide.open_counts(lo, hi).tolist()
    assert narrow.open_runs(lo, hi).tolist() == wide.open_runs(lo, hi).tolist()


def test_a_coverage_with_more_open_places_than_the_limit_stays_wide():
    wide = _coverage(100, [3, 50, 99])
    assert wide.narrowed(2) is wide
    assert wide.narrowed(-1) is wide
    assert isinstance(wide.narrowed(3), OpenPlaces)
    assert _coverage(100, []).narrowed(0).places.size == 0


def _masks(path: Path, tokens: list[int]) -> list[bytes]:
    """The mask rows along ``tokens`` from a fresh index (its own memo)."""
    index = indexc_runtime.load(path)
    matcher, row = index.matcher(), np.zeros((1, index.mask_words), dtype=np.int32)
    rows = []
    for token in tokens:
        matcher.fill_bitmask(row)
        rows.append(row.tobytes())
        matcher.advance(token)
    return rows


def test_rfc_text_masks_as_open_places_equal_the_wide_walk(bundled_vocabulary, tmp_path, monkeypatch):
    vocab = bundled_vocabulary("llama3")
    text = (GRAMMARS / "lark" / "rfc.lark").read_text()
    write(compile_grammar_ir(load_grammar(text, source="rfc.lark"), vocab, build_trie(vocab), source=text),
          vocab, str(tmp_path / "rfc.idx"))
    tokens = LlgOracle(bundled_tokenizer_file("llama3")).tokenize((GRAMMARS / "samples" / "rfc.xml").read_text())[:60]
    narrowed = []
    original = Coverage.narrowed

    def counting(self, most):
        found = original(self, most)
        narrowed.append(found is not self)
        return found

    monkeypatch.setattr(Coverage, "narrowed", counting)
    served = _masks(tmp_path / "rfc.idx", tokens)
    assert sum(narrowed) >= 3, narrowed  # text content after <title>, <section title=", ...
    keep_coverages_wide(monkeypatch)
    narrowed.clear()
    assert _masks(tmp_path / "rfc.idx", tokens) == served
    assert not any(narrowed)

"""indexc's masks against llguidance's (``no_forcing``) along the valid walks of sample schemas.

llguidance with forcing off is DESIGN.md's mask oracle: for the same schema, at every step of
a valid instance's walk, both engines must allow the same non-special tokens, and EOS exactly
when the text so far is a complete document.  Llama-3 masks are 4,008 int32 words, so a step
is compared as two numpy rows (XOR, special ids cleared), and a difference is reported as the
tokens on each side with their text.

Cost: every compared file is compiled by indexc (the dominating cost) and walked by both
engines; to stay within seconds the test takes ``SCHEMAS`` (every ``STRIDE``-th sample file that
both engines are expected to pass) and at most ``STEPS`` steps of the first valid instance,
spread over the whole walk (its first steps, then evenly spaced ones, then the end).

Intended differences are listed in ``docs/json-schema-semantics.md`` (section "Against
llguidance"); ``INTENDED`` names the files where one shows up and why.
"""

from __future__ import annotations

import numpy as np
import pytest

from bench.maskbench.dataset import MaskBenchFile
from tests.reference.llguidance_oracle import LlgOracle

from .conftest import EOS_IDS, LLAMA3, sample_file, sample_names
from .test_sample_protocol import EXPECTED_FAILURES

STRIDE = 8
STEPS = 40
INTENDED: dict[str, str] = {}


def compared_files() -> list[str]:
    names = [n for n in sample_names() if n not in EXPECTED_FAILURES and n not in INTENDED]
    return [n for n in names[::STRIDE] if any(i.valid for i in sample_file(n).instances)]


def steps_of(length: int) -> list[int]:
    """Which positions of a walk of ``length`` tokens to compare (``length`` = the end)."""
    head = list(range(min(8, length + 1)))
    spread = np.linspace(0, length, num=min(STEPS - len(head), length + 1)).round().astype(int).tolist()
    return sorted(set(head) | set(spread) | {length})


@pytest.fixture(scope="module")
def oracle() -> LlgOracle:
    return LlgOracle(LLAMA3, eos_ids=EOS_IDS)


@pytest.mark.parametrize("name", compared_files())
def test_masks_match_llguidance_along_the_valid_walk(name, indexc_setup, llguidance_setup, encode, oracle):
    mbfile = sample_file(name)
    tokens = encode(next(i for i in mbfile.instances if i.valid).text)
    ours = _indexc_walk(indexc_setup, mbfile)
    theirs = _llguidance_walk(llguidance_setup, mbfile)
    keep = _comparable_bits(oracle)
    wanted = set(steps_of(len(tokens)))
    for position in range(len(tokens) + 1):
        if position in wanted:
            a, b = ours.mask(), theirs.mask()
            diff = (a ^ b) & keep
            assert not diff.any(), _difference(oracle, mbfile, tokens, position, a & keep, b & keep)
            assert _bit(a, EOS_IDS[0]) == _bit(b, EOS_IDS[0]), f"{name}: EOS differs at token #{position}"
        if position < len(tokens):
            ours.advance(tokens[position])
            theirs.advance(tokens[position])


class _Walk:
    def __init__(self, fill, advance, words: int):
        self._fill, self.advance = fill, advance
        self._row = np.zeros((1, words), dtype=np.int32)

    def mask(self) -> np.ndarray:
        self._fill(self._row)
        return self._row[0].copy()


def _indexc_walk(setup, mbfile: MaskBenchFile) -> _Walk:
    import indexc_runtime

    compiled = setup.engine.compile_schema(setup.tokenizer, mbfile.schema_text, mbfile.name)
    index = indexc_runtime.load(str(compiled.handle))
    matcher = index.matcher()
    return _Walk(lambda row: matcher.fill_bitmask(row, row=0), matcher.advance, index.mask_words)


def _llguidance_walk(setup, mbfile: MaskBenchFile) -> _Walk:
    compiled = setup.engine.compile_schema(setup.tokenizer, mbfile.schema_text, mbfile.name)
    _, matcher = compiled.handle

    def fill(row: np.ndarray) -> None:
        row[0, :] = np.frombuffer(matcher.compute_bitmask(), dtype=np.int32)[: row.shape[1]]

    def advance(token: int) -> None:
        assert matcher.consume_token(int(token)), matcher.get_error()

    return _Walk(fill, advance, (setup.tokenizer.vocab_size + 31) // 32)


def _comparable_bits(oracle: LlgOracle) -> np.ndarray:
    """All bits of a Llama-3 row but the special tokens' (EOS is compared on its own)."""
    ids = np.arange(((oracle.vocab_size + 31) // 32) * 32)
    keep = ids < oracle.vocab_size
    keep[oracle.special_ids] = False
    return np.packbits(keep, bitorder="little").view(np.int32)


def _bit(row: np.ndarray, token: int) -> bool:
    return bool((int(row[token >> 5]) >> (token & 31)) & 1)


def _ids(row: np.ndarray) -> np.ndarray:
    return np.flatnonzero(np.unpackbits(row.view(np.uint8), bitorder="little"))


def _difference(oracle, mbfile, tokens, position, ours, theirs) -> str:
    only_ours = np.setdiff1d(_ids(ours), _ids(theirs))
    only_theirs = np.setdiff1d(_ids(theirs), _ids(ours))
    text = b"".join(oracle.token_bytes(t) for t in tokens[:position]).decode("utf-8", "replace")

    def show(ids):
        return f"{len(ids)} tokens, e.g. " + ", ".join(repr(oracle.token_bytes(int(i))) for i in ids[:8])

    return (f"{mbfile.name}: masks differ after {position} tokens ({text[-60:]!r}): only indexc allows "
            f"{show(only_ours)}; only llguidance allows {show(only_theirs)}")

"""``load`` and ``Index``: one artifact, opened once, shared by every matcher that serves it.

What costs what (this machine, p50):
- ``load``: mmap + prefix + msgpack header + layout checks + CRC-32 of the sections of at most
  ``SMALL_SECTION_BYTES`` (64 KiB): 0.15 ms for a 1.7 MB artifact of a 128,256-id vocabulary,
  0.16-0.27 ms for gpt2 / llama3 regex artifacts; it does not grow with the vocabulary.
- First use of a table group (state tables on the first matcher, masks on the first fill or
  advance, token class sequences on the first advance): the CRC-32 of its remaining sections
  (~0.5 ms per MB) and its vectorised bound checks (less).  Each group is built once per Index
  (``functools.cached_property``), so matchers are cheap (~1 us) and share everything.
  Load + matcher + first fill: 0.27 ms for the 128k artifact above.
- ``load(..., verify=True)`` or ``Index.verify()`` does all of that at once: every checksum,
  every bound (0.5 ms for a 36 KB artifact, 2.3 ms for a 1.9 MB one).  Use it where a
  corrupted file must be caught before serving starts.

Files are memory-mapped: replace an artifact with a rename (as the writer does), never by
truncating or rewriting it in place, or a process serving the old file may crash (SIGBUS).

So a bad file raises ``ArtifactError`` either from ``load`` or from the first call that touches
the bad section; after a group has been built, no matcher call can index out of bounds.
"""

from __future__ import annotations

import copy
import warnings
from functools import cached_property

import numpy as np

from indexc_runtime.automaton import Automaton
from indexc_runtime.container import Container
from indexc_runtime.errors import FingerprintMismatch
from indexc_runtime.header import SectionInfo
from indexc_runtime.masks import MaskStore
from indexc_runtime.tokens import TokenClasses

SMALL_SECTION_BYTES = 64 << 10


class FingerprintMismatchWarning(RuntimeWarning):
    """Serving an artifact for another vocabulary because the caller said ``allow_mismatch=True``."""


def load(path_or_bytes, *, expected_fingerprint: str | None = None, verify: bool = False) -> "Index":
    """Open an artifact (a path, raw or ``.zst``, or bytes) without reading its big sections.

    ``expected_fingerprint``: the served tokenizer's vocabulary fingerprint; a different one
    raises ``FingerprintMismatch``.  ``verify``: check every checksum and bound now.
    """
    index = Index(Container.open(path_or_bytes))
    if expected_fingerprint is not None:
        index.check_fingerprint(expected_fingerprint)
    if verify:
        index.verify()
    else:
        index._verify_small_sections()
    return index


class Index:
    """A loaded artifact: metadata, lazily built tables, and a factory of matchers."""

    def __init__(self, container: Container):
        self._container = container
        header = container.header
        self.source: str = container.source
        self.vocab_size: int = header.vocab_size
        self.fingerprint: str = header.fingerprint
        self.eos_token_ids: tuple[int, ...] = header.eos_ids
        self.n_states: int = header.n_states
        self.n_classes: int = header.n_classes
        self.n_masks: int = header.n_masks
        self.start_state: int = header.start_state
        self.mask_words: int = header.dims["mask_words"]  # columns of a bitmask row
        self.format_version: int = header.format_version

    def matcher(self) -> "Matcher":
        from indexc_runtime.matcher import Matcher

        return Matcher(self)

    @property
    def header(self) -> dict:
        """The decoded header (a copy: changing it changes nothing)."""
        return copy.deepcopy(self._container.header.raw)

    @property
    def sections(self) -> tuple[SectionInfo, ...]:
        """Every section, in file order (name, dtype, shape, offset, nbytes, crc32)."""
        return tuple(self._container.header.sections.values())

    @property
    def nbytes(self) -> int:
        """Size of the (decompressed) artifact in bytes."""
        return self._container.nbytes

    @cached_property
    def special_token_ids(self) -> np.ndarray:
        self._container.verify_checksum("special_ids")
        ids = self._container.array("special_ids")
        self._container.check_range("special_ids", ids, 0, self.vocab_size - 1)
        return ids

    def check_fingerprint(self, fingerprint: str, *, allow_mismatch: bool = False) -> None:
        """Refuse to serve for another vocabulary (``FingerprintMismatch``).

        ``allow_mismatch=True`` only warns (``FingerprintMismatchWarning``): for experiments
        with a tokenizer known to differ only in ways that cannot change a mask.
        """
        if fingerprint == self.fingerprint:
            return
        error = FingerprintMismatch(self.fingerprint, fingerprint, source=self.source)
        if not allow_mismatch:
            raise error
        warnings.warn(f"SERVING ANYWAY (allow_mismatch=True): {error}", FingerprintMismatchWarning, stacklevel=2)

    def verify(self) -> None:
        """Check every section's checksum and every bound now (``ArtifactError`` on the first problem)."""
        for name in self._container.header.sections:
            self._container.verify_checksum(name)
        _ = self._automaton, self._masks, self._tokens, self.special_token_ids

    def mask_form_counts(self) -> dict[str, int]:
        """How many unique masks are stored densely, sparsely, as complements."""
        return self._masks.form_counts()

    def state_token_ids(self, state: int) -> np.ndarray:
        """Sorted allowed token ids of a state (eos included where it accepts)."""
        if not 0 <= state < self.n_states:
            raise IndexError(f"state {state} is outside [0, {self.n_states})")
        return self._masks.token_ids(self._automaton.state_mask[state])

    def mask_token_ids(self, mask_id: int) -> np.ndarray:
        """Sorted token ids of one stored (unique) mask."""
        if not 0 <= mask_id < self.n_masks:
            raise IndexError(f"mask {mask_id} is outside [0, {self.n_masks})")
        return self._masks.token_ids(mask_id)

    def section(self, name: str) -> np.ndarray:
        """A section's raw read-only array, checksum verified (for tools: inspect, diff).

        Serving never needs this; the values are as stored, bounds are checked only for the
        sections the matcher has already used.
        """
        if name not in self._container.header.sections:
            raise KeyError(f"no section {name!r} in {self.source}")
        self._container.verify_checksum(name)
        return self._container.array(name)

    @cached_property
    def _automaton(self) -> Automaton:
        return Automaton.from_container(self._container)

    @cached_property
    def _masks(self) -> MaskStore:
        return MaskStore.from_container(self._container)

    @cached_property
    def _tokens(self) -> TokenClasses:
        return TokenClasses.from_container(self._container)

    @cached_property
    def _eos(self) -> frozenset[int]:
        return frozenset(self.eos_token_ids)

    def _verify_small_sections(self) -> None:
        for info in self._container.header.sections.values():
            if info.nbytes <= SMALL_SECTION_BYTES:
                self._container.verify_checksum(info.name)

    def __repr__(self) -> str:
        return (f"<indexc_runtime.Index {self.source!r}: {self.n_states} states, {self.n_masks} masks, "
                f"vocab {self.vocab_size}>")

"""``load`` and ``Index``: one artifact, opened once, shared by every matcher that serves it.

What ``load`` does, in order (``container.open_raw`` first, whatever the kind: the file is
mapped once and ``index_kind`` read from the decoded header, ``grammar.kind``):
- mmap + prefix + msgpack header + layout checks; the header's typed fields and section table
  (``header``), not its informative keys (``compiler_version``, ``constraint``, ``options``,
  ``stats``), which serving never reads: those are checked by ``Index.header`` and ``verify``;
- the CRC-32 of every section of at most ``SMALL_SECTION_BYTES`` (64 KiB: the header-sized
  tables; 10-130 us in all, most of it the page faults of their first read);
- the bounds that every lookup relies on, vectorised, one ``max`` per section (``Automaton``,
  ``TokenClasses``, the word indices, ``special_ids``), so that no later lookup can go out of
  range; the exceptions are read where they are used: the state table (``automaton``), the
  order of the token class offsets (the walk), and each mask's form, row, range, order and
  tail bits (``masks``: checked when the mask is first used);
- the entry of the start state's mask (every matcher's first fill), then the pages of the
  sections that serving reads at random are mapped in (``PREFETCHED_SECTIONS``,
  ``source.populate``: ~18 us per MB, between ``SMALL_SECTION_BYTES``, which the checksum
  just read, and ``PREFETCH_BYTES``: an 8 MB table of dense rows would add ~0.15-0.4 ms to the
  load for pages most requests never read; past the cap a row's pages fault in on its first
  use, ~1 us).

Measured (this machine, shared, 2 cores, load average 1.5-2; ``bench/bench_load.py --runs
15``, median of fresh processes, the 11 regex and DFA-path JSON Schema artifacts of ``make
compile``, Llama-3, 0.1-9.8 MB): load + ``matcher()`` + first fill 0.57-0.90 ms; interleaved
with the session-4 start runtime in the same minutes, 0.74-0.91 ms against 1.15-1.42 ms.
In a fresh process most of it is the first run of each code path: header parsing ~110 us
(~45 us warm), msgpack 50-70 us, the first numpy slice and reduction ~70 us, the mmap and its
first page ~50 us; the slowest (``event``, ``tool_call``) also bound 0.5 MB of token class
offsets and 0.8 MB of classes (~140 us with their page faults).  The whole-store mask scan
(25-30 numpy calls, 240-330 us), a second open of the file to decide its kind (55-90 us),
the data-model walk of the informative keys (~45 us) and a comparison of the 128k token
class offsets (100-170 us) are what left the load.  ``matcher()`` ~1 us; a mask's first
fill ~4 us (its per-mask check ~0.4 us of it), later fills ~1-2 us.

What ``load`` does *not* do is hash the big sections (dense mask rows, the state table, token
class data: ~0.25 ms per MB) or scan what is checked at first use: a flipped bit there cannot
make a lookup go out of bounds, only give a wrong answer or an ``ArtifactError`` where it is
read, which is what checksums and ``verify`` are for.  Use ``load(..., verify=True)`` or
``Index.verify()`` (every CRC-32, the state table's bound, every mask, the offsets' order, the
header's data model) where a damaged file must be caught before serving; the compiler runs it
on every file it writes, ``indexc inspect`` on every file it shows.

Files are memory-mapped read-only and never copied: processes that load one artifact (a
server's workers) share one copy of its pages in the page cache (tested with two processes in
``tests/runtime/test_serving_load_bytes.py``).  ``load_bytes`` opens an artifact from memory.
Replace an artifact with a rename (as the writer does), never by
truncating or rewriting it in place, or a process serving the old file may crash (SIGBUS).
"""

from __future__ import annotations

import copy
import warnings

import numpy as np

from indexc_runtime.automaton import Automaton
from indexc_runtime.container import Container, open_raw
from indexc_runtime.errors import FingerprintMismatch
from indexc_runtime.header import SectionInfo, check_data_model, parse_header
from indexc_runtime.masks import MaskStore
from indexc_runtime.matcher import Matcher
from indexc_runtime.tokens import TokenClasses
from indexc_runtime.grammar.index import grammar_index_from_raw  # at import: a load pays no import
from indexc_runtime.grammar.kind import is_grammar_header

SMALL_SECTION_BYTES = 64 << 10
# Read at random while serving and scanned by no load-time check: mapped in at load (``source.populate``).
PREFETCHED_SECTIONS = ("class_transitions", "dense_masks", "mask_word_value")
PREFETCH_BYTES = 1 << 20  # a prefetched section larger than this stays lazy


class FingerprintMismatchWarning(RuntimeWarning):
    """Serving an artifact for another vocabulary because the caller said ``allow_mismatch=True``."""


def load(path_or_bytes, *, expected_fingerprint: str | None = None, verify: bool = False) -> "Index":
    """Open an artifact (a path, raw or ``.zst``, or bytes), check every bound, build the tables.

    ``expected_fingerprint``: the served tokenizer's vocabulary fingerprint; a different one
    raises ``FingerprintMismatch``.  ``verify``: also check the checksum of every section (big
    ones included, not only those of at most 64 KiB) and what is otherwise checked where it is
    read (``Index.verify``), before a single mask is read.
    """
    raw = open_raw(path_or_bytes)  # opened once, whatever the kind
    if is_grammar_header(raw.header):  # grammar artifacts: their own reader
        return grammar_index_from_raw(raw, expected_fingerprint=expected_fingerprint, verify=verify)
    container = Container.from_raw(raw, parse_header(raw.header, raw.source))
    for info in container.header.sections.values():
        if verify or info.nbytes <= SMALL_SECTION_BYTES:
            container.verify_checksum(info.name)
    index = Index(container, verify=verify)
    if expected_fingerprint is not None:
        index.check_fingerprint(expected_fingerprint)
    return index


def load_bytes(data, *, expected_fingerprint: str | None = None, verify: bool = False) -> "Index":
    """Open an artifact held in memory (raw or ``.zst`` bytes, a bytearray, a memoryview): no file needed.

    The same checks as ``load``.  Raw bytes are used in place when 8-byte aligned (else copied
    once); unlike a memory-mapped file, each process holds its own copy.
    """
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"load_bytes() takes bytes, a bytearray or a memoryview, not {type(data).__name__}")
    return load(data, expected_fingerprint=expected_fingerprint, verify=verify)


class Index:
    """A loaded artifact: metadata, the checked tables, and a factory of matchers."""

    def __init__(self, container: Container, *, verify: bool = False):
        """Check and wrap every table (``ArtifactError`` on the first bad bound); ``verify``: run
        ``verify`` before the first mask is read, so its messages are the ones a bad file gets."""
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
        self._automaton = Automaton.from_container(container)
        self._masks = MaskStore.from_container(container)
        self._tokens = TokenClasses.from_container(container)
        self._eos = frozenset(self.eos_token_ids)
        special_ids = container.array("special_ids")
        container.check_below("special_ids", special_ids, self.vocab_size)
        self.special_token_ids: np.ndarray = special_ids
        self._fast_forward = None  # fast_forward.FastForwardTables, built by the first jump-forward
        if verify:
            self.verify()
        self._masks.entry(self._automaton.state_mask[self.start_state])  # every matcher's first fill
        for name in PREFETCHED_SECTIONS:  # a section of at most 64 KiB was just read by its checksum
            if SMALL_SECTION_BYTES < container.header.sections[name].nbytes <= PREFETCH_BYTES:
                container.prefetch(name)

    def matcher(self) -> Matcher:
        return Matcher(self)

    @property
    def header(self) -> dict:
        """The decoded header (a copy: changing it changes nothing).

        ``ArtifactError`` if a value is outside the JSON data model or nested too deep (the
        informative keys are checked here, not by ``load``: serving never reads them).
        """
        raw = self._container.header.raw
        check_data_model(raw, self.source)
        return copy.deepcopy(raw)

    @property
    def sections(self) -> tuple[SectionInfo, ...]:
        """Every section, in file order (name, dtype, shape, offset, nbytes, crc32)."""
        return tuple(self._container.header.sections.values())

    @property
    def nbytes(self) -> int:
        """Size of the (decompressed) artifact in bytes."""
        return self._container.nbytes

    @property
    def n_live_tokens(self) -> int:
        """How many text tokens appear in at least one mask (the tokens ``advance`` can walk)."""
        return self._tokens.live_count()

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
        """Check every section's checksum, the transition table's bound and the header's informative
        keys (everything else was checked by ``load``).

        ``ArtifactError`` on the first problem.
        """
        check_data_model(self._container.header.raw, self.source)
        for name in self._container.header.sections:
            self._container.verify_checksum(name)
        self._automaton.check_transitions(self._container)
        self._masks.check_all(self._container)
        self._tokens.check_order()

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

        Serving never needs this; the values are as stored (bounds checked at load for the
        sections this runtime knows).
        """
        if name not in self._container.header.sections:
            raise KeyError(f"no section {name!r} in {self.source}")
        self._container.verify_checksum(name)
        return self._container.array(name)

    def __repr__(self) -> str:
        return (f"<indexc_runtime.Index {self.source!r}: {self.n_states} states, {self.n_masks} masks, "
                f"vocab {self.vocab_size}>")

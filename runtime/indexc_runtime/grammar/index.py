"""``load_grammar_index`` and ``GrammarIndex``: a grammar artifact, opened once, shared by its matchers.

Loading does what a DFA artifact's load does (mmap, prefix, header, layout, the CRC-32 of
every section of at most 64 KiB, every bound of every index the walk reads; the stored masks
one by one on their first use, all of them by ``verify``) with the grammar's header and
sections, and shapes the tables for the live path (``tables``) and the stored loop regions
(``loop_exits``: decoded on first use, rebuilt and compared by ``verify``).  Two more things
wait for their first use: each token's byte classes, read by ``advance`` only (bounded on its
first read, ``tables.TokenClassRows``), and the stored masks laid out in trie order
(``coverage``: the first set of them in one gather).  In a fresh process, "load + first mask"
of a Llama-3 grammar artifact (``bench/bench_load.py``) is mostly the check of the 274k-node
trie (``tables``); a format 4 file's first mask is its stored start mask (checked here, pinned
by each parser memo), so that gather, the parser's first configurations and the walk wait for
the first mask past the start (a format 2 or 3 file pays them in its first mask: ~2-5 ms with
Llama-3).  The index holds no per-sequence state: its matchers share
one parser memo (``matcher.SharedMemo``), and every matcher keeps its own position.

The attributes a DFA ``Index`` offers for tools (``vocab_size``, ``mask_words``,
``eos_token_ids``, ``special_token_ids``, ``header``, ``sections``, ``section``, ``verify``,
``check_fingerprint``, ``mask_form_counts``, ``mask_token_ids``) are offered here with the
same meaning; ``n_states`` counts lexer states.
"""

from __future__ import annotations

import copy
import warnings
from collections.abc import Sequence

import numpy as np

from indexc_runtime.container import Container, RawArtifact, open_raw
from indexc_runtime.errors import ArtifactError, FingerprintMismatch
from indexc_runtime.grammar.byte_walk import ByteWalk
from indexc_runtime.grammar.coverage import TrieOrderMasks
from indexc_runtime.grammar.loop_exits import LoopExits, StoredRegions
from indexc_runtime.grammar.errors import GrammarLimits
from indexc_runtime.grammar.header import parse_grammar_header
from indexc_runtime.grammar.horizon import TerminalLengths
from indexc_runtime.grammar.item_bounds import ItemBounds, follow_terminals
from indexc_runtime.grammar.item_masks import NO_LOWER, ItemMasks
from indexc_runtime.grammar.languages import LanguageKeys
from indexc_runtime.grammar.lexeme_paths import Decomposer, LexemePaths
from indexc_runtime.grammar.matcher import GrammarMatcher, ParserMemo
from indexc_runtime.grammar.path_keys import PathKeys
from indexc_runtime.grammar.one_byte_ends import longest_match_terminals
from indexc_runtime.grammar.stored_memo import StoredMemo
from indexc_runtime.grammar.tables import EarleyRules, LexerTables, TrieArrays
from indexc_runtime.grammar.undecided import UndecidedSets
from indexc_runtime.masks import MaskStore

SMALL_SECTION_BYTES = 64 << 10


def load_grammar_index(path_or_bytes, *, expected_fingerprint: str | None = None, verify: bool = False,
                       limits: GrammarLimits = GrammarLimits()) -> "GrammarIndex":
    """Open a grammar artifact (path, raw or ``.zst``, or bytes) and check it; see ``indexc_runtime.load``."""
    return grammar_index_from_raw(open_raw(path_or_bytes), expected_fingerprint=expected_fingerprint,
                                  verify=verify, limits=limits)


def grammar_index_from_raw(raw: RawArtifact, *, expected_fingerprint: str | None = None, verify: bool = False,
                           limits: GrammarLimits = GrammarLimits()) -> "GrammarIndex":
    """``load_grammar_index`` on an artifact already opened (``load`` opened it to read ``index_kind``)."""
    header = parse_grammar_header(raw.header, raw.source)
    container = Container.from_raw(raw, header)
    for info in header.sections.values():
        if verify or info.nbytes <= SMALL_SECTION_BYTES:
            container.verify_checksum(info.name)
    index = GrammarIndex(container, limits)
    if verify:
        index.verify()
    if expected_fingerprint is not None:
        index.check_fingerprint(expected_fingerprint)
    return index


class GrammarIndex:
    """A loaded grammar artifact: metadata, checked tables, a factory of matchers."""

    kind = "grammar"

    def __init__(self, container: Container, limits: GrammarLimits = GrammarLimits()):
        self._container = container
        header = container.header
        self.source: str = container.source
        self.vocab_size: int = header.vocab_size
        self.fingerprint: str = header.fingerprint
        self.eos_token_ids: tuple[int, ...] = header.eos_ids
        self.n_states: int = header.n_lexer_states
        self.n_classes: int = header.n_classes
        self.n_masks: int = header.n_masks
        self.start_state: int = 0
        self.mask_words: int = header.dims["mask_words"]
        self.format_version: int = header.format_version
        self.origin_merge: int | None = header.origin_merge  # ``languages.OriginMerger``'s threshold (format 9)
        self.terminal_names: tuple[str, ...] = header.terminal_names
        self.limits = limits
        self._lexer = LexerTables.from_container(container)
        self._rules = EarleyRules.from_container(container)
        self._trie = TrieArrays.from_container(container)
        self._masks = MaskStore.from_container(container)
        self._trie_order = TrieOrderMasks(self._masks, self._trie.sorted_tokens)  # shared: immutable once built
        self._stored_regions = StoredRegions.from_container(container, header.dims["n_nodes"])
        self._loop_exits = LoopExits(self._trie, 32 * self._masks.words, self._stored_regions)  # shared
        self._undecided = UndecidedSets.from_container(container, self._lexer.undecided_set, self._trie.sorted_tokens)
        self._terminal_lengths = TerminalLengths(self._lexer)  # shared: a terminal's length holds for every memo
        special_ids = container.array("special_ids")
        container.check_below("special_ids", special_ids, self.vocab_size)
        self.special_token_ids: np.ndarray = special_ids
        self._eos = frozenset(self.eos_token_ids)
        self._start_mask = self._stored_start_mask()
        self._stored_memo = StoredMemo.from_container(container, self._rules, self._lexer, self.n_masks)
        self._item_masks = ItemMasks.from_container(container, self._rules, self.n_states, self.n_masks,
                                                    self._undecided.n_sets)
        self._lexeme_paths = LexemePaths.from_container(container, self.n_states, self._rules.n_terminals,
                                                        self._undecided)
        self._path_keys = PathKeys.from_container(container, self._lexeme_paths)
        self.use_stored_memo = True  # False: new parser memos start empty (benchmarks' "without the warm-up")

    def _stored_start_mask(self) -> np.ndarray | None:
        """A version 4 file's start mask as an int32 row (a view), or None (the first mask is walked).

        Its checksum is checked at load (a small section); so is that it sets no bit past the
        vocabulary and no special token but an eos, which ``advance`` would refuse: a mask is
        only ever a subset of what ``advance`` accepts.  That it is *the* start mask is
        ``verify``'s check (one walk)."""
        if "start_mask" not in self._container.header.sections:
            return None
        row = self._container.array("start_mask").view(np.int32)
        bits = np.unpackbits(row.view(np.uint8), bitorder="little")
        refused = [t for t in self.special_token_ids.tolist() if t not in self._eos]  # no np.setdiff1d: it imports numpy.ma (~20 ms)
        if bits[self.vocab_size:].any() or bits[refused].any():
            raise ArtifactError("the start mask sets a bit past the vocabulary or a special token", source=self.source)
        return row

    def matcher(self, limits: GrammarLimits | None = None) -> GrammarMatcher:
        return GrammarMatcher(self, limits or self.limits)

    def byte_walk(self, limits: GrammarLimits | None = None) -> ByteWalk:
        """The parser as a byte automaton over a private memo, for tools (``indexc diff``)."""
        return ByteWalk(self, limits)

    @property
    def header(self) -> dict:
        return copy.deepcopy(self._container.header.raw)

    @property
    def sections(self):
        return tuple(self._container.header.sections.values())

    @property
    def nbytes(self) -> int:
        return self._container.nbytes

    @property
    def n_live_tokens(self) -> int:
        """Text tokens of the trie (any of them may cross a lexeme boundary)."""
        return int(self._trie.sorted_tokens.size)

    def check_fingerprint(self, fingerprint: str, *, allow_mismatch: bool = False) -> None:
        if fingerprint == self.fingerprint:
            return
        error = FingerprintMismatch(self.fingerprint, fingerprint, source=self.source)
        if not allow_mismatch:
            raise error
        warnings.warn(f"SERVING ANYWAY (allow_mismatch=True): {error}", RuntimeWarning, stacklevel=2)

    def verify(self, *, stored_mask_rows: Sequence[np.ndarray] | None = None,
               stored_item_bounds: Sequence[tuple[np.ndarray, np.ndarray]] | None = None,
               stored_lexeme_paths: dict | None = None, stored_path_keys: dict | None = None) -> None:
        """Check every section's checksum, every in-lexeme mask, the token class rows and every
        stored loop region (``load`` checked the other bounds; a mask is otherwise checked on its
        first use, see ``indexc_runtime.masks``, the class rows on ``advance``'s first read, see
        ``tables.TokenClassRows``, a region on its first use, see ``loop_exits``), the stored
        start mask and the stored parser memo.

        ``stored_mask_rows``: the compiler's self-check passes the rows its own warm-up walk gave
        the stored configurations (in their order), and each stored mask is compared with its row
        instead of being walked again (half the warm-up's compile time on MaskBench's largest
        memos, 1.1-1.6 s); the scans and transitions are re-derived either way.
        ``stored_item_bounds``: the same for the item bounds (format 11): the compiler's own
        (lower row, upper places) of each stored key, else each is computed again (``item_bounds``).
        ``stored_lexeme_paths``: the same for the lexeme paths (format 12): the compiler's own
        decomposition by state, else each state is decomposed again (``lexeme_paths``).
        ``stored_path_keys``: the compiler's path keys (format 13: key -> held groups), compared
        with the file's; without it every key's bits are decoded and bounded (a key's set cannot be
        made again from its digest: ``path_keys``)."""
        for name in self._container.header.sections:
            self._container.verify_checksum(name)
        self._masks.check_all(self._container)
        self._trie.classes.check_all()
        self._stored_regions.check_all(self._trie)
        self._undecided.check_all()
        self._check_lexing()
        self._check_lexeme_paths(stored_lexeme_paths)  # before the masks, which read them
        self._check_start_mask()
        self._check_stored_memo(stored_mask_rows)
        self._check_item_masks(stored_item_bounds)
        self._check_path_keys(stored_path_keys)

    def _check_path_keys(self, computed: dict | None = None) -> None:
        """Every stored path key's bits are bounded, and are the compiler's where it says."""
        keys = self._path_keys
        keys.check_all()
        if computed is None:
            return
        if len(computed) != len(keys) or any(
                not np.array_equal(keys.get(state, digest), held) for (state, digest), held in computed.items()):
            raise ArtifactError("the stored path keys are not the compiler's", source=self.source)

    def _check_lexing(self) -> None:
        """Under longest match, the header lists exactly the terminals whose ends one byte decides
        in the file's own lexer tables (``one_byte_ends``): a terminal listed wrongly would end
        where its regex does not say it may, or keep ends it may not have."""
        listed = self._container.header.longest_match
        if listed is not None and tuple(listed) != longest_match_terminals(self._lexer):
            raise ArtifactError("longest_match_terminals are not the terminals whose ends one byte decides in "
                                "the file's lexer", source=self.source)

    def _check_start_mask(self) -> None:
        """A stored start mask is the one a walk gives (a fresh memo, nothing pinned)."""
        if self._start_mask is None:
            return
        walked = ParserMemo(self, self.limits, pin_start=False)
        if not np.array_equal(walked.walker.mask(walked.configs.initial), self._start_mask):
            raise ArtifactError("the stored start mask differs from the grammar's", source=self.source)

    def _check_item_masks(self, computed: Sequence[tuple[np.ndarray, np.ndarray]] | None = None) -> None:
        """Each stored key's lower mask and upper set are the bounds its item gives."""
        items = self._item_masks
        if not len(items):
            return
        keys = items.stored_keys()
        unset = [number for number, key in enumerate(keys) if self._undecided.of(key[0]) < 0]
        if unset:
            raise ArtifactError(f"item key {unset[0]} names lexer state {keys[unset[0]][0]}, which has no "
                                "undecided set", source=self.source)
        if computed is None:
            bounds = ItemBounds(self)
            computed = [bounds.of(*key) for key in keys]
        if len(computed) != len(keys):
            raise ArtifactError("the stored item bounds are not the compiler's", source=self.source)
        for number, (key, (lower, upper)) in enumerate(zip(keys, computed)):
            stored = int(items.lower[number])
            stored_row = self._masks.row(stored) if stored != NO_LOWER else np.zeros_like(lower)
            if (not np.array_equal(stored_row.view(np.int32), lower.view(np.int32))
                    or not np.array_equal(self._undecided.members(int(items.upper[number]))[0], upper)):
                raise ArtifactError(f"item bounds of key {number} (lexer state {key[0]}, rule {key[1]}, dot {key[2]}) "
                                    "are not the grammar's", source=self.source)

    def _check_lexeme_paths(self, computed: dict | None = None) -> None:
        """Each decomposed state's paths, pairs, groups and token groups are the ones its
        decomposition gives again (``lexeme_paths.Decomposer``), or ``computed``'s (the writer's
        own, by state)."""
        paths = self._lexeme_paths
        if not len(paths):
            return
        paths.check_all()
        if computed is not None and set(computed) != paths.states:
            raise ArtifactError("the stored lexeme paths are not the compiler's", source=self.source)
        decomposer = Decomposer(self, follow_terminals(self._rules)) if computed is None else None
        for state in sorted(paths.states):
            again = computed[state] if decomposer is None else decomposer.decompose(state)
            stored = paths.of(state).arrays()
            if again is None or any(not np.array_equal(a, b) for a, b in zip(stored, again.arrays())):
                raise ArtifactError(f"the lexeme paths of lexer state {state} are not the grammar's", source=self.source)

    def _check_stored_memo(self, stored_mask_rows: Sequence[np.ndarray] | None = None) -> None:
        """The stored memo's scans, transitions and masks are the ones its contents give (each
        recomputed on a fresh memo that holds the contents alone: a memo starts matching the
        stored one only when a matcher advances on it, ``ParserMemo.use_stored``)."""
        if not self._stored_memo.n_configs:
            return
        if stored_mask_rows is not None and len(stored_mask_rows) != self._stored_memo.n_configs:
            raise ArtifactError("the stored parser memo does not hold the walk's configurations", source=self.source)
        fresh = ParserMemo(self, self.limits, pin_start=False, language_keys=False)
        problem = self._stored_memo.check_derived(fresh.sets, fresh.configs, fresh.walker.mask, self._masks.row,
                                                  stored_mask_rows,
                                                  LanguageKeys.for_version(fresh.configs, self.format_version))
        if problem is not None:
            raise ArtifactError(f"the stored parser memo is not the grammar's: {problem}", source=self.source)

    def mask_form_counts(self) -> dict[str, int]:
        return self._masks.form_counts()

    def mask_token_ids(self, mask_id: int) -> np.ndarray:
        """Sorted token ids of one stored in-lexeme mask."""
        if not 0 <= mask_id < self.n_masks:
            raise IndexError(f"mask {mask_id} is outside [0, {self.n_masks})")
        return self._masks.token_ids(mask_id)

    def section(self, name: str) -> np.ndarray:
        if name not in self._container.header.sections:
            raise KeyError(f"no section {name!r} in {self.source}")
        self._container.verify_checksum(name)
        return self._container.array(name)

    def __repr__(self) -> str:
        return (f"<indexc_runtime.GrammarIndex {self.source!r}: {len(self.terminal_names)} terminals, "
                f"{self.n_states} lexer states, vocab {self.vocab_size}>")

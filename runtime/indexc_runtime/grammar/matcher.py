"""``GrammarMatcher``: one sequence's position in a grammar, with the regex ``Matcher``'s API.

State model (the same as the DFA matcher's, with a parser configuration for a DFA state):
- the matcher is at a configuration (``configs``) and is running or *finished*;
- ``advance(t)`` accepts ``t`` iff ``fill_bitmask`` would set bit ``t``: an eos id iff the
  configuration accepts (it then finishes the matcher), a text token iff walking its byte
  classes through the configuration table leaves a thread alive (one table read per byte, the
  parser runs only for entries never asked before); otherwise ``TokenNotAllowed`` and nothing
  changes;
- ``rollback(n)`` restores the configuration of ``n`` tokens ago (configurations are immutable
  and interned, so history is one int per token);
- ``forced_tokens()`` follows, without moving, the chain of configurations whose mask holds
  exactly one token, stopping before an eos, at a configuration seen before, or after
  ``MAX_FORCED`` tokens.

The memo (Earley sets, configurations, masks) is *shared by the matchers of one index* (and
one ``GrammarLimits``): an Earley set's content is a pure function of its items and their
origins' sets, a configuration's of its threads, a mask's of its configuration, so what one
sequence computed answers every later one: a second request on the same document is served
from the memo (the first document of an index still pays its parser rows and walks: the
"cold" figures; a version 7 file's stored memo, ``stored_memo``, is matched by each memo from
its first step past the start, ``stored_match``, and serves what a compile-time walk already met).
``SharedMemo`` holds the current memo and one re-entrant lock that every
matcher of the index takes around the calls that may grow the memo (``fill_bitmask``,
``advance``, ``forced_tokens``, ...): matchers of one index used from several threads are
safe, and serialised there.  A matcher itself is not thread-safe.

Memory stays bounded by ``GrammarLimits``: when the memo a matcher uses holds half of
``max_configs`` or ``max_sets``, the matcher moves to a fresh memo (the index's current one
if another matcher already started it, else a new one it installs) by replaying its accepted
tokens (``_compact_if_large``); the old memo is dropped with its last matcher.  Only a single
step that needs more than the limits by itself raises.  A limit reached raises
``GrammarLimitExceeded`` and leaves the position as it was (nothing is interned past a limit).
"""

from __future__ import annotations

import operator
import threading
import weakref

import numpy as np

from indexc_runtime.errors import TokenNotAllowed
from indexc_runtime.grammar.configs import DEAD, Configs
from indexc_runtime.grammar.earley import EarleySets
from indexc_runtime.grammar.errors import GrammarLimitExceeded, GrammarLimits
from indexc_runtime.grammar.languages import LanguageKeys, OriginMerger, SetLanguages, scans_sets
from indexc_runtime.grammar.path_keys import PathRows
from indexc_runtime.grammar.stored_match import StoredMatch
from indexc_runtime.grammar.walker import MaskWalker

_INT32 = np.dtype(np.int32)
MAX_FORCED = 256


class ParserMemo:
    """One generation of an index's parser memo: its Earley sets, configurations and masks."""

    def __init__(self, index, limits: GrammarLimits, *, pin_start: bool = True, language_keys: bool = True):
        self.sets = EarleySets(index._rules, limits)
        self.configs = Configs(index._lexer, self.sets, index._rules.ignore, index.n_classes, limits)
        self.walker = MaskWalker(index._lexer, index._masks, index._trie, index._trie_order, index._loop_exits,
                                 index._undecided, index._terminal_lengths, self.configs, index.eos_token_ids, limits)
        if len(index._item_masks):  # a version 11 file's item bounds (``item_masks``)
            self.walker.use_item_masks(index._item_masks)
        if len(index._lexeme_paths):  # a version 12 file's decomposed states (``lexeme_paths``)
            self.walker.use_lexeme_paths(index._lexeme_paths)
        if pin_start and index._start_mask is not None:  # a version 4 file: the first mask is a lookup
            self.walker.pin(self.configs.initial, index._start_mask)
        set_languages = SetLanguages(self.sets)  # digests shared by the merger and the language keys
        if index.origin_merge is not None:  # a version 9+ file's stored memo was made merging (``languages``)
            self.configs.merger = OriginMerger(set_languages, self.configs.ignored, index.origin_merge)
        keyed = language_keys and index._stored_memo.n_languages  # the compiler found them worth storing (format 8)
        by_scan = scans_sets(index.format_version)
        # one digest memo by rest for the path keys and a version 13 file's language keys, made where read
        by_rest = SetLanguages(self.sets, by_rest=True) if len(index._path_keys) or (keyed and by_scan) else None
        if len(index._path_keys):  # a version 13 file's path keys (``path_keys``)
            self.walker.use_path_keys(PathRows(index._path_keys, index._lexeme_paths, self.configs, by_rest,
                                               index._lexer.state_terminal))
        if keyed:
            self.walker.use_languages(LanguageKeys(self.configs, by_rest if by_scan else set_languages, by_scan=by_scan))
        self._limits = limits
        self.stored_pending = index._stored_memo if index.use_stored_memo else None  # see use_stored
        self.stored_match: StoredMatch | None = None

    def use_stored(self) -> None:
        """Match this memo's sets and configurations against a version 7 file's stored memo from
        now on (``stored_match``): a configuration whose content is stored reads its stored mask.

        Called by a matcher's ``advance`` (and ``forced_tokens``) while ``stored_pending``, not
        when the memo is made: before its first ``advance`` a matcher is at the start, whose mask
        is the file's, so "load + first mask" does not pay the stored memo's hashing (once per
        loaded file, numpy).  Nothing is added to the memo, so no limit is at stake.  (A memo a
        matcher compacted into starts matching at its next ``advance``.)"""
        memo, self.stored_pending = self.stored_pending, None
        if memo is not None and memo.n_configs:
            self.stored_match = StoredMatch(memo.lookup, self.walker.stored_pinner())
            self.stored_match.attach(self.sets, self.configs)
            if memo.n_languages:
                self.walker.use_stored_languages(memo.language_table, memo.shapes)

    def is_large(self) -> bool:
        """Does it hold half of a limit (time to move to a fresh one)?"""
        limits = self._limits
        return len(self.configs) >= limits.max_configs // 2 or len(self.sets) >= limits.max_sets // 2


class SharedMemo:
    """The current memo of one (index, limits) and the lock its matchers take to use any memo."""

    def __init__(self, index, limits: GrammarLimits):
        self.lock = threading.RLock()
        self.current = ParserMemo(index, limits)
        self._limits = limits  # not the index: the registry must not keep it alive

    def renewed(self, index) -> ParserMemo:
        """Install a fresh memo as the current one (the lock held)."""
        self.current = ParserMemo(index, self._limits)
        return self.current


_SHARED: "weakref.WeakKeyDictionary[object, dict[GrammarLimits, SharedMemo]]" = weakref.WeakKeyDictionary()
_SHARED_LOCK = threading.Lock()


def shared_memo(index, limits: GrammarLimits) -> SharedMemo:
    """The memo every matcher of ``index`` with ``limits`` uses (created on the first matcher;
    dropped with the index, which it does not keep alive)."""
    with _SHARED_LOCK:
        by_limits = _SHARED.get(index)
        if by_limits is None:
            by_limits = _SHARED[index] = {}
        found = by_limits.get(limits)
        if found is None:
            found = by_limits[limits] = SharedMemo(index, limits)
        return found


class GrammarMatcher:
    """Per-sequence cursor over a ``GrammarIndex``."""

    def __init__(self, index, limits: GrammarLimits):
        self._index = index
        self._limits = limits
        self._shared = shared_memo(index, limits)
        with self._shared.lock:
            self._use(self._shared.current)
        self._config = self._configs.initial
        self._finished = False
        self._history: list[int] = []  # configuration before each accepted token
        self._tokens: list[int] = []  # the accepted tokens (to replay them into a fresh memo, see _compact_if_large)

    def _use(self, memo: ParserMemo) -> None:
        self._memo = memo
        self._sets, self._configs, self._walker = memo.sets, memo.configs, memo.walker

    @property
    def state(self) -> int:
        """The configuration id (an opaque number; renumbered when the memo is compacted)."""
        return self._config

    def is_finished(self) -> bool:
        return self._finished

    def is_accepting(self) -> bool:
        """May the sequence end here (is the text so far a sentence of the grammar)?"""
        return self._configs.accepting[self._config]

    def reset(self) -> None:
        """Back to the start, on the index's current memo (a next sequence reuses its rows and masks)."""
        with self._shared.lock:
            self._use(self._shared.current)
        self._config = self._configs.initial
        self._finished = False
        self._history.clear()
        self._tokens.clear()

    def fill_bitmask(self, out: np.ndarray, row: int = 0) -> None:
        """Write the allowed-token bitmask into ``out[row]`` (``out``: int32, shape ``(batch, W)``)."""
        words = self._index.mask_words
        if not (isinstance(out, np.ndarray) and out.dtype == _INT32 and out.ndim == 2 and out.shape[1] == words):
            raise ValueError(f"the bitmask must be an int32 numpy array of shape (batch, {words}); "
                             f"got {type(out).__name__} {getattr(out, 'dtype', '')} {getattr(out, 'shape', '')}")
        if self._finished:
            out[row] = 0
            return
        with self._shared.lock:
            self._compact_if_large()
            out[row] = self._walker.mask(self._config)

    def allowed_token_ids(self) -> np.ndarray:
        """Sorted int32 ids allowed next (empty once finished)."""
        if self._finished:
            return np.zeros(0, dtype=np.int32)
        with self._shared.lock:
            self._compact_if_large()
            return self._allowed(self._config).astype(np.int32)

    def advance(self, token_id: int) -> None:
        """Accept one token, or raise ``TokenNotAllowed`` and leave the matcher as it was."""
        token = operator.index(token_id)
        index = self._index
        if self._finished or not 0 <= token < index.vocab_size:
            raise self._refusal(token, "the matcher is finished" if self._finished else "outside the vocabulary")
        if token in index._eos:
            if not self.is_accepting():
                raise self._refusal(token, "end-of-sequence is allowed only where the text is a sentence")
            self._history.append(self._config)
            self._tokens.append(token)
            self._finished = True
            return
        with self._shared.lock:
            self._compact_if_large()
            if self._memo.stored_pending is not None:
                self._memo.use_stored()
            after = self._walk(self._config, token)
        if after == DEAD:
            raise self._refusal(token, "its bytes cannot continue the text in the grammar")
        self._history.append(self._config)
        self._tokens.append(token)
        self._config = after

    def _compact_if_large(self) -> None:
        """Move to a fresh memo when this one holds half its limit, replaying the accepted tokens
        (the lock held).

        A memo only grows: every text position adds sets and configurations.  Replaying the
        tokens into a fresh memo keeps what this position, its rollback history and its next
        masks need and drops the rest (one ``advance`` per accepted token, once in a long
        while), so a long document never reaches the limits.  The fresh memo is the index's
        current one if another matcher already moved there, so they share it again."""
        if not self._memo.is_large():
            return
        memo = self._shared.current
        if memo is self._memo or memo.is_large():
            memo = self._shared.renewed(self._index)
        finished, tokens = self._finished, self._tokens
        self._use(memo)
        self._config, self._history, self._tokens, self._finished = self._configs.initial, [], [], False
        for token in tokens:
            self._history.append(self._config)
            self._tokens.append(token)
            if token in self._index._eos:
                break
            self._config = self._walk(self._config, token)
        self._finished = finished

    def rollback(self, n: int) -> None:
        """Undo the last ``n`` accepted tokens (``ValueError`` if fewer were accepted)."""
        n = operator.index(n)
        if not 0 <= n <= len(self._history):
            raise ValueError(f"cannot roll back {n} tokens: {len(self._history)} accepted since the start")
        if n:
            self._config = self._history[-n]
            del self._history[-n:]
            del self._tokens[-n:]
            self._finished = False

    def forced_tokens(self) -> list[int]:
        """The tokens that are the only way on from here, in order (the position does not change)."""
        if self._finished:
            return []
        with self._shared.lock:
            self._memo.use_stored()
            return self._forced_chain()

    def _forced_chain(self) -> list[int]:
        config, chain, seen = self._config, [], {self._config}
        eos = self._index._eos
        while len(chain) < MAX_FORCED:
            allowed = self._allowed(config)
            if allowed.size != 1 or int(allowed[0]) in eos:
                break
            token = int(allowed[0])
            config = self._walk(config, token)
            chain.append(token)
            if config in seen:
                break
            seen.add(config)
        return chain

    def _allowed(self, config: int) -> np.ndarray:
        """The ids in ``config``'s mask, ascending (the lock held)."""
        bits = np.unpackbits(self._walker.mask(config).view(np.uint8), bitorder="little")
        return np.flatnonzero(bits[: self._index.vocab_size])

    def _walk(self, config: int, token: int) -> int:
        """The configuration after a text token's bytes (``DEAD`` if none survives; also for non-text ids)."""
        classes = self._index._trie.token_classes(token)
        if not classes:
            return DEAD
        configs = self._configs
        for byte_class in classes:
            config = configs.next(config, byte_class)
            if config == DEAD:
                return DEAD
        return config

    def _refusal(self, token: int, reason: str) -> TokenNotAllowed:
        if 0 <= token < self._index.vocab_size and token in set(self._index.special_token_ids.tolist()) \
                and token not in self._index._eos:
            reason = "special tokens are never allowed"
        return TokenNotAllowed(token, self._config, reason)

    def __repr__(self) -> str:
        status = "finished" if self._finished else ("accepting" if self.is_accepting() else "running")
        return f"<indexc_runtime.GrammarMatcher config={self._config} {status} tokens={len(self._history)}>"

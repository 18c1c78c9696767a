"""``Matcher``: one sequence's position in the constraint, and the masks it allows next.

State model.  A matcher is at a DFA state (``state``) and is either running or *finished*.
- ``advance(t)`` accepts ``t`` iff the current mask has bit ``t`` set (exactly the bit
  ``fill_bitmask`` writes); otherwise it raises ``TokenNotAllowed`` and changes nothing.
- A text token moves to the state its byte classes lead to (walked through the class table).
- An end-of-sequence id is in the mask exactly in accepting states; advancing on it does not
  move the DFA but *finishes* the matcher: ``is_finished()`` is True, the mask is empty (all
  zero words), ``forced_tokens()`` is ``[]``, every ``advance`` raises ``TokenNotAllowed``,
  ``is_accepting()`` stays True (the text ended where it may end).  ``rollback(1)`` undoes it.
  An eos id always ends the sequence, even in a vocabulary where it also stands for bytes.
- ``rollback(n)`` undoes the last ``n`` accepted tokens (eos included); the matcher keeps the
  states it passed through (one int per token) so this is O(n).
- ``forced_tokens()`` follows, without moving, the chain of states whose mask holds exactly
  one token, stopping before an eos and after going once around a cycle (a constraint like
  ``a+b`` over a vocabulary without ``b`` forces ``a`` forever).  Every token of that chain is
  the only token the model could pick, so it needs no back-off; over a real vocabulary it is
  rarely longer than zero (``o``, ``or`` and ``order`` all fit a forced ``order``).
- ``forced_bytes()`` / ``fast_forward_tokens()`` are the jump-forward of a server: the bytes
  the constraint forces, and the tokens for them that are safe to append (llguidance's back-off
  rule; see ``fast_forward``).
- ``validate_tokens(draft)`` counts how many tokens of a speculative draft would be accepted,
  without moving; with ``rollback`` it is what speculative decoding needs.
- Stop tokens: every id of ``stop_token_ids`` (the artifact's eos set, several ids for
  Llama-3's ``<|end_of_text|>`` and ``<|eot_id|>``) is in every accepting mask, and each one
  finishes the matcher in ``advance`` and ``validate_tokens``; none is in a forced chain.

Measured on this machine (Python 3.11, numpy 2.4, shared 2-core VM; Llama-3 artifacts of the
phone, URL, ``[\\w ]{1,60}`` and 128-character string regexes, walking each regex's example):
``fill_bitmask`` p50 1.0-1.2 us once the mask has been used (a dense 16 KB row copy, or a zeroed
row plus a scatter of at most 256 words), 1.3-2.1 us on a mask's first use after a fresh
``load`` (p99 3.0-5.0 us), ~3 us for a dense mask first read in a fresh process (its 16 KB come
from memory, not from a cache).  ``advance`` p50 1.3-1.6 us warm, 1.7-2.1 us on a fresh load
(p99 5-9 us): a bit test (one memoryview read for a dense mask, a ``bisect`` over the word
indices otherwise), the token's class span (two or three reads; with few live tokens a dict
read first, built by the first ``advance``: a bisection of the ids had cost ~0.5 us more, see
``tokens``), and the walk in plain Python ints over memoryviews.  A mask's first use makes its entry (checked
then: ~0.4 us; a sparse mask is materialised into a row, ~3-4 us in all, see ``masks``);
otherwise cold and warm differ only by what the CPU caches hold.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence

import numpy as np

from indexc_runtime import fast_forward
from indexc_runtime.errors import ArtifactError, TokenNotAllowed
from indexc_runtime.fast_forward import Tokenize

_INT32 = np.dtype(np.int32)


class Matcher:
    """Per-sequence cursor over an ``Index``; cheap to create (~1 us), not thread-safe."""

    __slots__ = ("_index", "_automaton", "_state", "_finished", "_history")

    def __init__(self, index):
        self._index = index
        self._automaton = index._automaton
        self._state: int = self._automaton.start_state
        self._finished = False
        self._history: list[int] = []

    @property
    def stop_token_ids(self) -> tuple[int, ...]:
        """The end-of-sequence ids: each one is allowed exactly in accepting states and finishes the matcher."""
        return self._index.eos_token_ids

    @property
    def num_tokens(self) -> int:
        """How many tokens were accepted since the start (what ``rollback`` can undo)."""
        return len(self._history)

    @property
    def state(self) -> int:
        """The DFA state (unchanged by an accepted eos: see ``is_finished``)."""
        return self._state

    def is_finished(self) -> bool:
        return self._finished

    def is_accepting(self) -> bool:
        """May the sequence end here (is eos allowed, or was it just accepted)?"""
        return bool(self._automaton.accepting[self._state])

    def reset(self) -> None:
        self._state = self._automaton.start_state
        self._finished = False
        self._history.clear()

    def fill_bitmask(self, out: np.ndarray, row: int = 0) -> None:
        """Write the allowed-token bitmask into ``out[row]`` (``out``: int32, shape ``(batch, W)``).

        For a bitmask as wide as a padded model vocabulary, use ``fill_bitmasks`` (which zeroes
        the padding words) or pass ``out[:, :W]``.
        """
        index = self._index
        if type(out) is not np.ndarray or out.dtype is not _INT32 or out.ndim != 2 or out.shape[1] != index.mask_words:
            if not _is_bitmask(out, index.mask_words):  # the slow path accepts subclasses and equal dtypes
                _reject_bitmask(out, index)
        if self._finished:
            out[row] = 0
        else:
            index._masks.fill(self._automaton.state_mask[self._state], out, row)

    def allowed_token_ids(self) -> np.ndarray:
        """Sorted int32 ids allowed next (empty once finished)."""
        if self._finished:
            return np.zeros(0, dtype=np.int32)
        return self._index._masks.token_ids(self._automaton.state_mask[self._state])

    def advance(self, token_id: int) -> None:
        """Accept one token, or raise ``TokenNotAllowed`` and leave the matcher as it was."""
        token = operator.index(token_id)
        state = self._state
        index = self._index
        if self._finished or not 0 <= token < index.vocab_size:
            raise self._refusal(token)
        if not index._masks.contains(self._automaton.state_mask[state], token):
            raise self._refusal(token)
        if token in index._eos:
            self._history.append(state)
            self._finished = True
            return
        self._state = self._next_state(state, token)
        self._history.append(state)

    def validate_tokens(self, tokens: Sequence[int]) -> int:
        """How many leading tokens of ``tokens`` ``advance`` would accept, one after the other (no state change).

        A speculative draft is checked in one call; accept that many, then ``rollback`` what
        the model rejects.  An eos counts (where the walk accepts) and ends the count there.
        """
        index, masks, state_mask = self._index, self._index._masks, self._automaton.state_mask
        state, finished = self._state, self._finished
        for count, token_id in enumerate(tokens):
            token = operator.index(token_id)
            if finished or not 0 <= token < index.vocab_size or not masks.contains(state_mask[state], token):
                return count
            if token in index._eos:
                finished = True
            else:
                state = self._next_state(state, token)
        return len(tokens)

    def forced_bytes(self) -> bytes:
        """The bytes every continuation starts with (empty where the text may end or branch); no state change."""
        if self._finished:
            return b""
        return fast_forward.forced_path(self._index, self._state).data

    def fast_forward_tokens(self, tokenize: Tokenize | None = None, max_tokens: int = fast_forward.BACK_OFF_TOKENS
                            ) -> list[int]:
        """Tokens a server may append at once for ``forced_bytes()``, last ambiguous ones backed off.

        ``tokenize``: the model's tokenizer as bytes -> ids (canonical tokens); without it the
        forced bytes are cut greedily into the longest allowed tokens.  See ``fast_forward``.
        """
        if self._finished:
            return []
        return fast_forward.fast_forward_tokens(self._index, self._state, tokenize, max_tokens)

    def rollback(self, n: int) -> None:
        """Undo the last ``n`` accepted tokens (``ValueError`` if fewer were accepted)."""
        n = operator.index(n)
        if not 0 <= n <= len(self._history):
            raise ValueError(f"cannot roll back {n} tokens: {len(self._history)} accepted since the start")
        if n:
            self._state = self._history[-n]
            del self._history[-n:]
            self._finished = False

    def forced_tokens(self) -> list[int]:
        """The tokens that are the only way on from here, in order (the state does not change)."""
        if self._finished:
            return []
        masks, eos, state_mask = self._index._masks, self._index._eos, self._automaton.state_mask
        state, chain, seen = self._state, [], {self._state}
        while True:
            token = masks.forced(state_mask[state])
            if token < 0 or token in eos:
                return chain
            state = self._next_state(state, token)
            chain.append(token)
            if state in seen:
                return chain
            seen.add(state)

    def _fill_row(self, out: np.ndarray, row: int) -> None:
        if self._finished:
            out[row] = 0
        else:
            self._index._masks.fill(self._automaton.state_mask[self._state], out, row)

    def _next_state(self, state: int, token: int) -> int:
        """Walk an allowed text token's byte classes (written out here: it is half of ``advance``).

        Stored values are ``1 + next state`` (0: dead).  The table is not scanned at load
        (see ``automaton``): a value past ``n_states`` is caught here instead, by the
        memoryview's own bounds check on the next read (IndexError) or by the check of the
        final state, so a bad table is an ``ArtifactError`` and never a state out of range.
        Likewise the token's span: its ends are bounded at load, its order checked here.
        """
        tokens = self._index._tokens
        if tokens.by_id:  # TokenClasses.span, written out for the two layouts of wide masks
            start, end = tokens.offsets[token], tokens.offsets[token + 1]
        elif tokens.row_of_id is not None:
            row = tokens.row_of_id[token]
            start, end = tokens.offsets[row], tokens.offsets[row + 1]
        else:
            row = (tokens.live_rows or tokens.live_row_map()).get(token)
            start, end = (0, 0) if row is None else (tokens.offsets[row], tokens.offsets[row + 1])
        if start >= end:  # offsets bounded by load, their order checked here: a span must not run backwards
            if start > end:
                raise ArtifactError(f"token {token}'s byte classes [{start}, {end}) run backwards: offsets must rise",
                                    source=self._index.source, section="token_class_offsets")
            raise self._inconsistent(state, token, "is not among the live tokens")
        automaton = self._automaton
        table, width, next_state = automaton.transitions, automaton.n_classes, state
        try:
            for byte_class in tokens.data[start:end]:
                next_state = table[next_state * width + byte_class] - 1
                if next_state < 0:
                    raise self._inconsistent(state, token, "has bytes that end the match")
        except IndexError:
            next_state = automaton.n_states
        if next_state >= automaton.n_states:
            raise ArtifactError(f"a transition leads past the last state {automaton.n_states - 1}",
                                source=self._index.source, section="class_transitions")
        return next_state

    def _refusal(self, token: int) -> TokenNotAllowed:
        """Why ``token`` cannot be accepted now (worked out only when it cannot)."""
        index = self._index
        if self._finished:
            reason = "the matcher is finished (end-of-sequence was accepted)"
        elif not 0 <= token < index.vocab_size:
            reason = f"outside the vocabulary [0, {index.vocab_size})"
        elif token in index._eos:
            reason = "end-of-sequence is allowed only in accepting states"
        elif token in index.special_token_ids:
            reason = "special tokens are never allowed"
        else:
            reason = "not in this state's mask"
        return TokenNotAllowed(token, self._state, reason)

    def _inconsistent(self, state: int, token: int, why: str) -> ArtifactError:
        return ArtifactError(f"the mask of state {state} allows token {token}, which {why}",
                             source=self._index.source, section="live_tokens")

    def __repr__(self) -> str:
        status = "finished" if self._finished else ("accepting" if self.is_accepting() else "running")
        return f"<indexc_runtime.Matcher state={self._state} {status} tokens={len(self._history)}>"


def _is_bitmask(out: object, words: int) -> bool:
    """int32 2-D array with ``words`` columns."""
    return isinstance(out, np.ndarray) and out.dtype == _INT32 and out.ndim == 2 and out.shape[1] == words


def _reject_bitmask(out: object, index) -> np.ndarray:
    got = f"{type(out).__name__} {getattr(out, 'dtype', '')} {getattr(out, 'shape', '')}"
    raise ValueError(f"the bitmask must be an int32 numpy array of shape (batch, {index.mask_words}) "
                     f"(ceil({index.vocab_size} / 32) words per row); got {got}")

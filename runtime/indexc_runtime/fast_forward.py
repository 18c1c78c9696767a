"""Jump-forward: the bytes a constraint forces next, and the tokens a server may append for them.

Where the constraint leaves one way on (``{"name_of_the_person":`` after ``{"``), a server can
append several tokens in one step instead of sampling them one by one.  Two questions:

1. **Which bytes are forced?**  ``forced_path`` walks the byte automaton from the matcher's
   state while the state is not accepting and exactly one byte leads on: one live byte class
   holding a single byte (bytes of one class act alike in every state, so a live class of two
   bytes is a choice).  It needs only the state table and the byte classes; every stored state
   can still reach acceptance (the compiler trims the DFA), so the walk cannot run into a dead
   end, and it stops at a repeated state (a forced cycle would never accept) all the same.
2. **Which tokens are safe to append?**  Tokenizing the forced bytes and appending every token
   can force a tokenization the model would never produce: forcing ``order`` where the
   constraint continues with ``Id`` or ``Name`` cuts Llama-3's single token ``orderId`` in two.
   llguidance's rule (its ``docs/fast_forward.md``), implemented here: tokenize the forced
   bytes; among the last ``max_tokens`` tokens (4, llguidance's figure: with at least 2 it saw
   no non-canonical forcing on MaskBench), find the first byte position ``i`` from which some
   allowed token starts and runs past the end of the forced bytes; drop every token that
   reaches beyond ``i``.

The artifact answers the second question without the tokens' bytes, which it does not store:
in a forced stretch only one byte is live at each position, so a token allowed at position
``i`` *is* the next bytes of the forced string as far as it reaches, and "some allowed token
runs past the end" is "the longest token of the mask at ``i`` is longer than ``n - i``".  A
token's length is the length of its byte-class row (``token_class_offsets``), and the masks
are the stored masks.  The same fact checks a caller's tokenization (each token must be in the
mask where it starts and end inside the forced bytes) and gives the fallback tokenization when
the caller has no tokenizer at hand: the longest allowed token at each position (greedy; BPE
tokenizers usually agree, but pass the model's tokenizer for canonical tokens).

Costs (Llama-3): the first jump-forward of an Index builds its tables (the byte of each
single-byte class; a token-length array of ``vocab_size`` int32, ~0.5 MB, ~0.3 ms); each
mask's longest token is computed once (a bitmask unpack, ~0.1-0.2 ms) and kept.  The forced
bytes cost ~3 us a byte (5,000 forced bytes: 16 ms).  The greedy fallback unpacks one mask per
token it picks (~0.7 ms a token: 1.5 s for those 5,000 bytes), so a server that jumps over
long literals should pass its tokenizer; with it, only the back-off positions are examined
(the doc's examples: 0.3-4 ms in all).

Not done: llguidance also lets ``tokenize`` see a few bytes before the forced ones (joint
tokenization of punctuation after spaces); here ``tokenize`` sees the forced bytes alone.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from indexc_runtime.errors import ArtifactError

BACK_OFF_TOKENS = 4  # llguidance's max_tokens: how many final tokens may be backed off
Tokenize = Callable[[bytes], Sequence[int]]  # the model's tokenizer, bytes -> token ids


@dataclass(frozen=True)
class ForcedPath:
    data: bytes  # the forced bytes
    states: tuple[int, ...]  # states[i]: the DFA state before byte i; states[len(data)]: after the last


class FastForwardTables:
    """Per-Index tables of the jump-forward, built on its first use (see the module note)."""

    def __init__(self, index):
        self._index = index
        automaton = index._automaton
        classes = np.asarray(automaton.byte_classes, dtype=np.intp)
        sizes = np.bincount(classes, minlength=automaton.n_classes)
        first_byte = np.full(automaton.n_classes, -1, dtype=np.intp)
        first_byte[classes[::-1]] = np.arange(255, -1, -1)
        self.byte_of_class: list[int] = np.where(sizes == 1, first_byte, -1).tolist()  # -1: several bytes
        self.token_lengths = index._tokens.lengths()  # byte length per id, 0: special or in no mask
        self._longest: dict[int, int] = {}

    def longest_token(self, state: int) -> int:
        """Byte length of the longest text token in the state's mask (0 if it has none)."""
        mask_id = self._index._automaton.state_mask[state]
        longest = self._longest.get(mask_id)
        if longest is None:
            ids = self._index._masks.token_ids(mask_id)
            longest = int(self.token_lengths[ids].max()) if ids.size else 0
            self._longest[mask_id] = longest
        return longest

    def allowed(self, state: int, token: int) -> bool:
        index = self._index
        return 0 <= token < index.vocab_size and index._masks.contains(index._automaton.state_mask[state], token)


def forced_path(index, state: int) -> ForcedPath:
    """The forced bytes from ``state`` and the states they pass through (see the module note)."""
    automaton = index._automaton
    byte_of_class = tables_of(index).byte_of_class
    table, width, n_states = automaton.transitions, automaton.n_classes, automaton.n_states
    data, states, seen = bytearray(), [state], {state}
    while not automaton.accepting[state]:
        row = table[state * width : (state + 1) * width]
        live = [byte_class for byte_class in range(width) if row[byte_class]]
        if len(live) != 1 or byte_of_class[live[0]] < 0:
            break
        following = row[live[0]] - 1
        if following >= n_states:
            raise ArtifactError(f"a transition leads past the last state {n_states - 1}",
                                source=index.source, section="class_transitions")
        if following in seen:
            break
        data.append(byte_of_class[live[0]])
        states.append(following)
        seen.add(following)
        state = following
    return ForcedPath(bytes(data), tuple(states))


def fast_forward_tokens(index, state: int, tokenize: Tokenize | None, max_tokens: int) -> list[int]:
    """Tokens for the forced bytes from ``state``, the last ambiguous ones backed off (llguidance's rule)."""
    if max_tokens < 0:
        raise ValueError(f"max_tokens must be >= 0, got {max_tokens}")
    path = forced_path(index, state)
    if not path.data:
        return []
    tables = tables_of(index)
    candidates = tokenize(path.data) if tokenize is not None else _greedy_tokens(tables, path)
    tokens, lengths = _fitting_prefix(tables, path, candidates)
    cut = _back_off_point(tables, path, sum(lengths[len(lengths) - max_tokens :]) if max_tokens else 0)
    covered = sum(lengths)
    while tokens and covered > cut:
        covered -= lengths.pop()
        tokens.pop()
    return tokens


def tables_of(index) -> FastForwardTables:
    if index._fast_forward is None:
        index._fast_forward = FastForwardTables(index)
    return index._fast_forward


def _fitting_prefix(tables: FastForwardTables, path: ForcedPath, candidates: Sequence[int]
                    ) -> tuple[list[int], list[int]]:
    """The leading candidates that spell the forced bytes: each allowed where it starts, ending inside them."""
    tokens: list[int] = []
    lengths: list[int] = []
    position, end = 0, len(path.data)
    for candidate in candidates:
        token = int(candidate)
        length = int(tables.token_lengths[token]) if 0 <= token < tables.token_lengths.size else 0
        if position == end or not length or position + length > end or not tables.allowed(path.states[position], token):
            break
        tokens.append(token)
        lengths.append(length)
        position += length
    return tokens, lengths


def _greedy_tokens(tables: FastForwardTables, path: ForcedPath) -> list[int]:
    """The longest allowed token that ends inside the forced bytes, from each position in turn."""
    index, tokens = tables._index, []
    position, end = 0, len(path.data)
    while position < end:
        ids = index._masks.token_ids(index._automaton.state_mask[path.states[position]])
        lengths = tables.token_lengths[ids]
        lengths[lengths > end - position] = 0
        best = int(np.argmax(lengths)) if ids.size else 0
        if not ids.size or not lengths[best]:
            break
        tokens.append(int(ids[best]))
        position += int(lengths[best])
    return tokens


def _back_off_point(tables: FastForwardTables, path: ForcedPath, tail_length: int) -> int:
    """The first position in the last ``tail_length`` bytes from which an allowed token runs past the end."""
    end = len(path.data)
    for position in range(max(end - tail_length, 0), end):
        if tables.longest_token(path.states[position]) > end - position:
            return position
    return end

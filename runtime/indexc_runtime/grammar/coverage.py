"""Which trie subtrees are already entirely allowed: the live walk's pruning test.

The walk must not enter a subtree whose tokens the precomputed masks already allow.  The
tokens of trie node ``p``'s subtree are one run ``[token_start[p], subtree_token_end[p])`` of
the trie's token order, so the test is "are all bits of that run set" in the allowed set
*laid out in trie order*.  Each stored mask is turned into that layout once per index, on
first use (``TrieOrderMasks``: one gather over the trie's tokens, ~1 ms for Llama-3, kept);
a configuration ORs its masks' trie-order rows and takes a cumulative popcount per 32-bit
word (``Coverage``: ~4,000 words), so counting the allowed tokens of any run is two lookups
and two popcounts, for a whole frontier at once (numpy) or for one node (Python ints).
This replaced a per-mask gather and cumulative sum over all 128k tokens (2-4 ms a mask on
this machine).

The first set of masks an index lays out is the exception (``TrieOrderMasks.union``): it is
laid out as one row, by a single gather of the OR of its masks in vocabulary order, and its masks' own rows are left to the later sets that need them.
That is the first walked mask of a fresh process (a format 4 file's start mask is read, not
walked: the second mask then).  Row by row, it paid one gather per mask (~0.3-0.5 ms each) and,
for a sparse one, the inverse of the trie's token order (~1-1.3 ms), which only pays once many
sparse masks are laid out (Llama-3: arithmetic's first mask has two dense masks and a sparse
one, comment_thread's two sparse ones).  The row is the same either way: unpacking, gathering
and packing commute with the OR.  It costs a serving index at most one gather more in its life.
"""

from __future__ import annotations

import numpy as np

from indexc_runtime.masks import MaskStore, set_bits


SPARSE_WORDS_RATIO = 16  # a mask with fewer than 1/16 of its words nonzero is laid out from its token ids
_BITS_BELOW = np.array([(1 << k) - 1 for k in range(32)], dtype=np.uint32)  # the bits of a word below bit k


class TrieOrderMasks:
    """Stored masks re-laid in the trie's token order, as uint32 bit rows (built on first use)."""

    def __init__(self, masks: MaskStore, sorted_tokens: np.ndarray):
        self._masks = masks
        self._sorted_tokens = sorted_tokens
        self._gather: np.ndarray | None = None  # sorted_tokens as intp, made on the second dense row
        self._laid_out = False  # a dense row was laid out already
        self.words = (sorted_tokens.size + 31) // 32 + 1  # one spare zero word: a run may end at the last token
        self._rows: dict[int, np.ndarray] = {}
        self._scratch = np.zeros((1, masks.words), dtype=np.int32)
        self._positions: np.ndarray | None = None
        self._first_set_laid = False

    def union(self, mask_ids: tuple[int, ...], vocabulary_row: np.ndarray | None = None) -> np.ndarray:
        """The OR of the masks' trie-order rows (a new array).  The index's first set is laid out
        from the OR of its masks in vocabulary order in one gather (``vocabulary_row``, int32
        words, when the caller has it already: the walker ORs them for the mask anyway), the
        others from the masks' kept rows (see the module note)."""
        if not self._first_set_laid:
            self._first_set_laid = True
            if not self._rows:
                if vocabulary_row is None:
                    vocabulary_row = self._vocabulary_union(mask_ids)
                return self._from_words(vocabulary_row)
        bits = np.zeros(self.words, dtype=np.uint32)
        for mask_id in mask_ids:
            bits |= self.row(mask_id)
        return bits

    def row(self, mask_id: int) -> np.ndarray:
        found = self._rows.get(mask_id)
        if found is None:
            self._masks.fill(mask_id, self._scratch, 0)
            words = self._scratch[0]
            nonzero = np.flatnonzero(words)
            if nonzero.size * SPARSE_WORDS_RATIO < words.size:
                found = self._from_token_ids(nonzero, words[nonzero])
            else:
                found = self._from_words(words)
            self._rows[mask_id] = found
        return found

    def _vocabulary_union(self, mask_ids: tuple[int, ...]) -> np.ndarray:
        """The OR of the masks in vocabulary order, int32 words (a fill each: a few us)."""
        union = np.zeros(self._masks.words, dtype=np.int32)
        for mask_id in mask_ids:
            self._masks.fill(mask_id, self._scratch, 0)
            union |= self._scratch[0]
        return union

    def _from_words(self, words: np.ndarray) -> np.ndarray:
        """The trie-order row of a vocabulary-order row of int32 words: unpack, gather, pack.

        From the second row on, the gather goes by an ``intp`` copy of the trie's token order:
        numpy's fancy indexing by the stored int32 array cost ~430 us for Llama-3's 128k tokens,
        by intp ~230 us.  The first row (the first mask of a fresh process) gathers by the
        stored order: the copy (~70 us warm, ~0.4 ms in a fresh process with its page faults)
        only pays from the second gather on, and many serving indexes lay out one row only."""
        order = self._gather
        if order is None and self._laid_out:
            order = self._gather = self._sorted_tokens.astype(np.intp)
        elif order is None:
            order, self._laid_out = self._sorted_tokens, True
        flags = np.unpackbits(words.view(np.uint8), bitorder="little")[order]
        found = np.zeros(self.words, dtype=np.uint32)
        packed = np.packbits(flags, bitorder="little")
        found.view(np.uint8)[: packed.size] = packed
        return found

    def _from_token_ids(self, word_index: np.ndarray, word_value: np.ndarray) -> np.ndarray:
        """A sparse mask's trie-order row from its few nonzero words, without a pass over the
        vocabulary (the usual row is an unpack, a 128k gather and a pack: ~100 us; the in-lexeme
        and boundary masks of literal keys hold a few dozen tokens)."""
        bits = np.unpackbits(word_value.astype("<u4").view(np.uint8).reshape(-1, 4), axis=1, bitorder="little")
        rows, columns = np.nonzero(bits)
        tokens = word_index[rows] * 32 + columns
        positions = self._position_of_token()[tokens]
        positions = positions[positions >= 0]  # special tokens are in no trie run
        found = np.zeros(self.words, dtype=np.uint32)
        set_bits(found, positions)
        return found

    def _position_of_token(self) -> np.ndarray:
        """Each token id's place in the trie's token order (-1: not in the trie), built once."""
        if self._positions is None:
            positions = np.full(32 * self._masks.words, -1, dtype=np.int32)
            positions[self._sorted_tokens] = np.arange(self._sorted_tokens.size, dtype=np.int32)
            self._positions = positions
        return self._positions


WIDE_UNDECIDED = 16_384  # undecided tokens from which ``of_masks`` (rows kept per mask and per set) costs less


class Coverage:
    """The tokens one configuration's precomputed masks decide, in trie order, with word prefix
    counts.  The walk does not enter a subtree whose tokens are all decided.

    Two ways to make one.  ``of_masks``: the tokens the masks allow (their trie-order rows
    OR-ed); every other token is left to the walk.  ``of_undecided`` (format 5): every token but
    the *open* ones, the tokens of the configuration's undecided sets (``undecided``) that the
    masks do not allow; the masks decide all others.  That one needs no trie-order row of the
    masks at all, only the places of the undecided tokens: the rows' first-use gathers (~0.15
    ms each with Llama-3) were a third of C's cold walk.  Past ``WIDE_UNDECIDED`` tokens (RFC-XML's
    text states: 122k, all splits), the masks' rows and the sets' rows, kept, cost less than
    the sets' token ids for each new configuration: there ``of_masks`` takes the set rows.
    """

    @classmethod
    def of_masks(cls, rows: TrieOrderMasks, mask_ids: tuple[int, ...], vocabulary_row: np.ndarray | None = None,
                 undecided_rows: tuple[np.ndarray, ...] | None = None) -> "Coverage":
        """``undecided_rows``: the undecided sets as trie-order rows (every token outside them is
        decided), or None (every token undecided)."""
        bits = rows.union(mask_ids, vocabulary_row)
        if undecided_rows is not None:
            undecided = np.zeros_like(bits)
            for row in undecided_rows:
                undecided |= row
            bits |= ~undecided
        return cls(bits)

    @classmethod
    def of_undecided(cls, words: int, members: list[tuple[np.ndarray, np.ndarray]],
                     vocabulary_row: np.ndarray) -> "Coverage":
        """``members``: (places, token ids) of each undecided set; ``vocabulary_row``: the OR of the
        configuration's precomputed masks (int32 words); ``words``: the row's length in trie order.
        A few open places are set one by one, more through one byte per token, which costs less
        than ``bitwise_or.at`` there.  (Wide sets go through ``of_masks``: see ``WIDE_UNDECIDED``.)"""
        places = np.concatenate([places for places, _ in members])
        tokens = np.concatenate([tokens for _, tokens in members])
        allowed = (vocabulary_row.view(np.uint32)[tokens >> 5] >> (tokens & 31).astype(np.uint32)) & 1
        open_places, open_tokens = places[allowed == 0], tokens[allowed == 0]
        if open_places.size * 32 < words:
            closed = np.zeros(words, dtype=np.uint32)
            set_bits(closed, open_places)
        else:
            flags = np.zeros(32 * words, dtype=np.uint8)
            flags[open_places] = 1
            closed = np.packbits(flags, bitorder="little").view(np.uint32)
        order = np.argsort(open_places, kind="stable")  # trie order, each token once (sets may share tokens)
        ordered = open_places[order]
        distinct = np.concatenate(([True], ordered[1:] != ordered[:-1])) if ordered.size else np.zeros(0, dtype=bool)
        return cls(~closed, wide=False, open_tokens=open_tokens[order][distinct].tolist())

    def __init__(self, bits: np.ndarray, *, wide: bool = True, open_tokens: list[int] | None = None):
        self.wide = wide  # False: only a few undecided tokens are open (``of_undecided``)
        self.open_tokens = open_tokens  # ``of_undecided``: the open tokens' ids in trie order, else None
        self.bits = bits
        self.word_prefix = np.zeros(bits.size + 1, dtype=np.int64)
        np.cumsum(np.bitwise_count(bits), out=self.word_prefix[1:])
        self.bits_py = memoryview(bits)
        self.prefix_py = memoryview(self.word_prefix)

    def open_runs(self, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        """True where the token run [lo, hi) holds a token not yet allowed (vectorised).

        Both ends go through one count (``_allowed_before`` of the two arrays side by side):
        12 numpy calls a walk level instead of 23, where a frontier has at most a few thousand
        pairs and a call costs more than its elements.  The positions are made ``intp`` by the
        concatenation: numpy's gathers by int32 indices (the trie's dtype) cost ~1.7x more, and
        this count makes three of them (the walk's 8 levels of a Llama-3 first mask: ~0.29 ->
        ~0.18 ms in a fresh process)."""
        before = self._allowed_before(np.concatenate((lo, hi), dtype=np.intp))
        return before[lo.size:] - before[: lo.size] != hi - lo

    def open_counts(self, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        """How many tokens of each run [lo, hi) are not decided yet (vectorised, as ``open_runs``)."""
        before = self._allowed_before(np.concatenate((lo, hi), dtype=np.intp))
        return (hi - lo) - (before[lo.size:] - before[: lo.size])

    def is_open(self, lo: int, hi: int) -> bool:
        """``open_runs`` for one run, in Python ints."""
        return self._before(hi) - self._before(lo) != hi - lo

    def _allowed_before(self, position: np.ndarray) -> np.ndarray:
        word = position >> 5
        return self.word_prefix[word] + np.bitwise_count(self.bits[word] & _BITS_BELOW[position & 31])

    def _before(self, position: int) -> int:
        word = position >> 5
        return self.prefix_py[word] + (self.bits_py[word] & ((1 << (position & 31)) - 1)).bit_count()

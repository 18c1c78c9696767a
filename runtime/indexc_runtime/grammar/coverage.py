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

A set of masks of which two or more have no kept row yet is the exception
(``TrieOrderMasks.union``): it is laid out as one row, by a single gather of the OR of its
masks in vocabulary order, and its masks' own rows are left to later sets that lack only one.
That is usually the first walked mask of a fresh process (a format 4 file's start mask is read,
not walked: the second mask then), and RFC-XML's text configurations, whose sets hold 3-18 masks,
most of them new (session 10: the cold walk's mask after ``<title>`` paid 6 rows, ~0.66 ms,
mask 54 18 rows, ~0.47 ms; one gather is ~0.15 ms).  Row by row, a dense mask costs a gather
(~0.1-0.15 ms in a fresh process) and a sparse one the inverse of the trie's token order
(~0.5 ms, once), which only pays once many sparse masks are laid out (Llama-3: arithmetic's
first mask has two dense masks and a sparse one, comment_thread's two sparse ones).  The row
is the same either way: unpacking, gathering and packing commute with the OR.  Over RFC-XML's
cold walk the gathers of a set's union cost about what the rows did (22 sets, ~3 ms).
"""

from __future__ import annotations

from bisect import bisect_left

import numpy as np

from indexc_runtime.masks import MaskStore, set_bits


SPARSE_WORDS_RATIO = 16  # a mask with fewer than 1/16 of its words nonzero is laid out from its token ids
_BITS_BELOW = np.array([(1 << k) - 1 for k in range(32)], dtype=np.uint32)  # the bits of a word below bit k


class TrieOrderMasks:
    """Stored masks re-laid in the trie's token order, as uint32 bit rows (built on first use)."""

    def __init__(self, masks: MaskStore, sorted_tokens: np.ndarray):
        self._masks = masks
        self._sorted_tokens = sorted_tokens
        self.places = int(sorted_tokens.size)  # the trie's tokens, one place each
        self.words = (sorted_tokens.size + 31) // 32 + 1  # one spare zero word: a run may end at the last token
        self._rows: dict[int, np.ndarray] = {}
        self._scratch = np.zeros((1, masks.words), dtype=np.int32)
        self._positions: np.ndarray | None = None

    def union(self, mask_ids: tuple[int, ...], vocabulary_row: np.ndarray | None = None) -> np.ndarray:
        """The OR of the masks' trie-order rows (a new array).  A set of which two masks or more
        have no kept row yet is laid out from the OR of its masks in vocabulary order in one
        gather (``vocabulary_row``, int32 words, when the caller has it already: the walker ORs
        them for the mask anyway), the others from the masks' kept rows (see the module note)."""
        if sum(mask_id not in self._rows for mask_id in mask_ids) > 1:
            if vocabulary_row is None:
                vocabulary_row = self._masks.union(mask_ids)
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

    def _from_words(self, words: np.ndarray) -> np.ndarray:
        """The trie-order row of a vocabulary-order row of int32 words: unpack, gather
        (``gather_in_trie_order``), pack."""
        flags = gather_in_trie_order(np.unpackbits(words.view(np.uint8), bitorder="little"), self._sorted_tokens)
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
            order = self._sorted_tokens
            positions = np.full(32 * self._masks.words, -1, dtype=np.int32)
            for start in range(0, order.size, GATHER_SLICE):  # (see gather_in_trie_order)
                stop = min(start + GATHER_SLICE, order.size)
                positions[order[start:stop]] = np.arange(start, stop, dtype=np.int32)
            self._positions = positions
        return self._positions


GATHER_SLICE = 8192  # int32 indices a slice: numpy's intp copy of them (64 KB) stays in the allocator's reused memory


def gather_in_trie_order(values: np.ndarray, sorted_tokens: np.ndarray) -> np.ndarray:
    """``values[sorted_tokens]`` (values by token id, the result in the trie's token order),
    slice by slice.  Numpy's fancy index by an int32 array converts it to a temporary ``intp``
    copy first: 1 MB for Llama-3's order, fresh pages each time (~0.25-0.3 ms a gather in a
    fresh process); a kept ``intp`` copy cost ~0.4 ms to make.  Slices of 8k indices cost
    ~0.13 ms a gather, with no copy kept; ``mode="clip"`` skips numpy's bounds check of each
    slice (warm: 115 -> 98 us a gather)."""
    out = np.empty(sorted_tokens.size, dtype=values.dtype)
    for start in range(0, sorted_tokens.size, GATHER_SLICE):  # (the load bounded the order: no check needed)
        np.take(values, sorted_tokens[start:start + GATHER_SLICE], out=out[start:start + GATHER_SLICE], mode="clip")
    return out


WIDE_UNDECIDED = 16_384  # undecided tokens from which ``of_masks`` (the masks' OR gathered, set rows) costs less


class Coverage:
    """The tokens one configuration's precomputed masks decide, in trie order, with word prefix
    counts.  The walk does not enter a subtree whose tokens are all decided.

    ``of_masks``: the tokens the masks allow (their trie-order rows OR-ed: kept rows, or one
    gather of the OR); every other token is left to the walk, or, given the configuration's
    undecided sets as rows (format 5; stored by a format 6 file for its wide sets), every token
    outside them is decided too.  Below ``WIDE_UNDECIDED`` undecided tokens a configuration's
    coverage is an ``OpenPlaces`` instead (its open places, from the sets' places, no trie-order
    row of the masks: the rows' first-use gathers, ~0.15 ms each with Llama-3, were a third of
    C's cold walk); past it (RFC-XML's text states: 122k, all splits), the masks' rows and the
    sets' rows cost less than the sets' token ids for each new configuration.  A wide coverage
    that leaves few tokens open anyway is handed to the walker as an ``OpenPlaces``
    (``narrowed``: RFC-XML's text, 122k undecided tokens, ~400 of them open).
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
        return cls(bits, rows.places)

    wide = True  # many tokens may be open (``OpenPlaces``: a few)
    places_py = None  # (``OpenPlaces``: the open places, which the walk's tail tests instead of the bits)

    def __init__(self, bits: np.ndarray, places_total: int):
        self.places_total = places_total  # the trie's tokens (``bits`` has a spare word past them)
        self.bits = bits
        self.word_prefix = np.zeros(bits.size + 1, dtype=np.int64)
        np.cumsum(np.bitwise_count(bits), out=self.word_prefix[1:])
        self.bits_py = memoryview(bits)
        self.prefix_py = memoryview(self.word_prefix)

    def narrowed(self, most: int) -> "Coverage | OpenPlaces":
        """The same coverage as ``OpenPlaces`` (its open places: the zero bits below the trie's
        token count) when it leaves at most ``most`` places open, else itself.

        A wide coverage may leave few tokens open: every token of RFC-XML's text is undecided
        (all splits of ``text+``), but its in-lexeme and boundary masks allow all of them but
        ~400.  Counting them is one prefix lookup; finding them reads only the words with a zero
        bit."""
        size = self.places_total
        if size - self._before(size) > most:
            return self
        words = self.bits[: (size + 31) // 32]
        partial = np.flatnonzero(words != 0xFFFFFFFF)
        at = np.flatnonzero(np.unpackbits(~words[partial].view(np.uint8), bitorder="little").view(bool))
        places = partial[at >> 5] * 32 + (at & 31)  # ascending: words in order, bits in order within each
        return OpenPlaces(places[places < size])

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


class OpenPlaces:
    """The coverage of a configuration whose undecided sets are small (format 5): the *open*
    places, the tokens of its undecided sets that its precomputed masks do not allow, sorted;
    every other token is decided.  A run's open count is two binary searches.

    It replaced a bit row of every place with its word prefix counts (``Coverage``), which cost
    ~45 us to make for arithmetic's 2,730-token set (the row's prefix count alone ~13 us) where
    the open places were 1-109: the mask itself, not the walk, was the cost of a fresh
    configuration.  Each set's places come with their tokens' word and bit (``UndecidedSets.probes``),
    so the masks' test is one gather and an ``&``."""

    wide = False

    @classmethod
    def of_undecided(cls, probes: list[tuple[np.ndarray, np.ndarray, np.ndarray]],
                     vocabulary_row: np.ndarray) -> "OpenPlaces":
        """``probes``: (places, token words, token bits) of each undecided set; ``vocabulary_row``:
        the OR of the configuration's precomputed masks (int32 words)."""
        row = vocabulary_row.view(np.uint32)
        parts = [places[(row[words] & bits) == 0] for places, words, bits in probes]
        if len(parts) == 1:
            return cls(parts[0])
        ordered = np.sort(np.concatenate(parts))  # (sets may share places)
        return cls(ordered[np.concatenate(([True], ordered[1:] != ordered[:-1]))] if ordered.size else ordered)

    def __init__(self, places: np.ndarray):
        self.places = places
        self.places_py = places.tolist()

    def __len__(self) -> int:
        return len(self.places_py)

    def open_runs(self, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        """True where the token run [lo, hi) holds an open place (vectorised)."""
        return self.open_counts(lo, hi) > 0

    def open_counts(self, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        """How many open places each run [lo, hi) holds (vectorised)."""
        return np.searchsorted(self.places, hi) - np.searchsorted(self.places, lo)

    def is_open(self, lo: int, hi: int) -> bool:
        """``open_runs`` for one run, in Python ints."""
        at = bisect_left(self.places_py, lo)
        return at < len(self.places_py) and self.places_py[at] < hi

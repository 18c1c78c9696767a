"""Byte-class sequences of the live tokens: what ``advance`` walks through the state table.

Stored as CSR: ``token_class_offsets`` (one row per token, plus one) into ``token_class_data``
(one byte class per byte).  The rows are numbered one of three ways (header key
``token_class_rows``, chosen by the writer as the smallest):

- ``"token_id"``: row ``t`` is token ``t``; an empty row means "not live".  Used when at least
  half the vocabulary is live (most regexes over text: 114k of Llama-3's 128k ids for a URL),
  where ``vocab_size + 1`` offsets are no larger than a sorted id list plus its offsets.  A
  lookup is two memoryview reads (~70 ns).
- ``"live_tokens"``: row ``k`` is token ``live_tokens[k]`` (sorted).  A lookup is one dict
  read when at most ``LIVE_DICT_MAX`` ids are live (the dict is built by the first lookup:
  ~80 us for the 1,348 ids of a phone regex, then ~0.1 us a lookup where a ``bisect`` over a
  memoryview of the ids took ~0.6 us, a fifth of an ``advance``), else that ``bisect`` (~1 us
  for 60k ids), plus two reads.  Always the case in version-1 files.
- ``"shared"`` (version 3): row ``token_row_of_id[t]``; tokens with the same class sequence
  share a row and row 0 is empty (not live).  Under a regex with few classes most live tokens
  share their sequence with others (a URL regex: 114k live tokens, 38.5k distinct sequences;
  bounded strings: 124k and 2.8k), so two bytes per id plus the distinct rows undercut 4-byte
  offsets plus every token's classes (URL: 1.26 -> 0.72 MB).  A lookup is three reads.

Nothing is cached per token (the walk iterates a memoryview slice of ``token_class_data``);
the one thing built after load is the small ``live_tokens`` layout's id -> row dict.

Checks (at load, vectorised: 10-80 us for Llama-3 artifacts in a fresh process, most of it a
``max`` over the 128k offsets, viewed unsigned, and one over ~0.8 MB of classes): ids
strictly increasing inside ``[0, vocab_size)``, offsets from 0 to the data length and every
one inside ``[0, data length]``, classes below ``n_classes``, shared row numbers below the row
count.  The *order* of the offsets is checked where a span is read: ``Matcher._next_state``
refuses a span that runs backwards (its ``start == end`` test, which it made anyway, became
``start >= end``: nothing added to ``advance``), ``lengths`` refuses a negative length, and
``check_order`` (``Index.verify``) scans them all.  Bounded offsets out of order can only make
a walk read classes of the wrong token, inside the data, like any crafted class data behind
valid checksums.  The scan at load (a comparison of 128k offsets, then ``any``) cost 100-170
us of a fresh process's load, most of it the 128 KB temporary and numpy's first comparison.
"""

from __future__ import annotations

from bisect import bisect_left

import numpy as np

from indexc_runtime.container import Container, largest
from indexc_runtime.errors import ArtifactError
from indexc_runtime.format import TOKEN_ROWS_BY_ID, TOKEN_ROWS_SHARED

_UINT32 = np.dtype("<u4")
LIVE_DICT_MAX = 4_096  # live ids looked up through a dict (built on the first lookup) up to this many


class TokenClasses:
    """token id -> its span of ``data`` (the byte classes of its bytes); an empty span: not live."""

    def __init__(self, container: Container, offsets: np.ndarray, row_of_id: np.ndarray | None):
        """The views of checked sections (``from_container`` checks them)."""
        self.source = container.source
        self.vocab_size = container.header.vocab_size
        self.by_id = container.header.token_rows == TOKEN_ROWS_BY_ID
        self.row_of_id = None if row_of_id is None else container.items("token_row_of_id")
        self._row_of_id_array = row_of_id
        self.live = container.items("live_tokens")
        self.offsets = container.items("token_class_offsets")
        self.data = container.items("token_class_data")
        self._offset_array = offsets
        self.live_rows: dict[int, int] | _BisectRows | None = None  # live_tokens layout: built by ``live_row_map``

    @classmethod
    def from_container(cls, container: Container) -> "TokenClasses":
        header = container.header
        live = container.array("live_tokens")
        offsets = container.array("token_class_offsets")
        data = container.array("token_class_data")
        container.check_below("live_tokens", live, header.vocab_size)
        if live.size > 1 and not np.all(live[1:] > live[:-1]):
            raise container.error("token ids must increase strictly", "live_tokens")
        check_class_rows(container, offsets, data, header.n_classes)
        row_of_id = None
        if header.token_rows == TOKEN_ROWS_SHARED:
            row_of_id = container.array("token_row_of_id")
            container.check_below("token_row_of_id", row_of_id, offsets.size - 1)
        return cls(container, offsets, row_of_id)

    def check_order(self) -> None:
        """Offsets never falling (``Index.verify``; a walk checks the span it reads instead)."""
        check_class_order(self.source, self._offset_array)

    def live_count(self) -> int:
        """How many tokens appear in some mask (for reports; counts non-empty rows when rows are ids)."""
        return int(np.count_nonzero(self.lengths())) if self.by_id or self.row_of_id is not None else len(self.live)

    def lengths(self) -> np.ndarray:
        """Byte length of every token id (int32; 0 for tokens in no mask)."""
        row_lengths = np.diff(self._offset_array).astype(np.int32)
        if row_lengths.size and int(row_lengths.min()) < 0:
            raise _unordered(self.source, len(self.data))
        if self.by_id:
            return row_lengths
        if self.row_of_id is not None:
            return row_lengths[self._row_of_id_array]
        lengths = np.zeros(self.vocab_size, dtype=np.int32)
        lengths[np.asarray(self.live)] = row_lengths
        return lengths

    def span(self, token: int) -> tuple[int, int]:
        """(start, end) of the token's classes in ``data``; start == end for a token in no mask."""
        row = token
        if self.row_of_id is not None:
            row = self.row_of_id[token]
        elif not self.by_id:
            row = (self.live_rows or self.live_row_map()).get(token)
            if row is None:
                return 0, 0
        return self.offsets[row], self.offsets[row + 1]

    def live_row_map(self) -> "dict[int, int] | _BisectRows":
        """The ``live_tokens`` layout's id -> row lookup (``get``), made on first use: a dict for
        up to ``LIVE_DICT_MAX`` ids, a bisection of the ids above (a dict of 60k ids would cost a
        first ``advance`` ~5 ms)."""
        if self.live_rows is None:
            live = self.live
            self.live_rows = dict(zip(live.tolist(), range(len(live)))) if len(live) <= LIVE_DICT_MAX \
                else _BisectRows(live)
        return self.live_rows


class _BisectRows:
    """``get(token)`` -> row of a sorted id list, or None: a bisection of a memoryview."""

    __slots__ = ("_ids",)

    def __init__(self, ids: memoryview):
        self._ids = ids

    def get(self, token: int) -> int | None:
        row = bisect_left(self._ids, token)
        return row if row < len(self._ids) and self._ids[row] == token else None

    def __len__(self) -> int:
        return len(self._ids)


def check_class_rows(container: Container, offsets: np.ndarray, data: np.ndarray, n_classes: int) -> None:
    """The bounds of CSR class rows (``token_class_offsets`` into ``token_class_data``; the DFA
    and grammar runtimes both): offsets from 0 to the data's length and none past it (one
    ``max``, viewed unsigned: a negative offset is huge), classes below ``n_classes``.  Their
    order is checked by the walk that reads a span, and in full by ``verify``."""
    if int(offsets[0]) != 0 or int(offsets[-1]) != data.size or largest(offsets.view(_UINT32)) > data.size:
        raise _unordered(container.source, data.size)
    container.check_below("token_class_data", data, n_classes)


def check_class_order(source: str, offsets: np.ndarray) -> None:
    """Class row offsets never falling (``verify`` of either runtime; the bounds checked first)."""
    if np.any(offsets[1:] < offsets[:-1]):
        raise _unordered(source, int(offsets[-1]))


def _unordered(source: str, n_data: int) -> ArtifactError:
    return ArtifactError(f"offsets must rise from 0 to {n_data} (the class data's length)", source=source,
                         section="token_class_offsets")

"""How the live tokens' class sequences are laid out in the file: three layouts, the smallest wins.

``advance`` needs, for an allowed token, the byte classes of its bytes (``masks.token_sequences``
computes them per live token).  The file can number those rows three ways
(``indexc_runtime.format.TOKEN_ROWS_*``; the runtime's ``tokens`` module reads them):

- ``live_tokens``: a sorted id list and one row per live token: ``8 n_live + data`` bytes.
  Best when few tokens are live (a date regex: 333 of Llama-3's 128k).
- ``token_id``: one row per id, empty when not live: ``4 V + data``.  The fastest lookup.
- ``shared``: a row number per id (``uint16`` when there are < 65,536 distinct sequences) and
  one row per *distinct* sequence, row 0 empty: ``2 V + 4 rows + distinct data``.  Under a
  regex with few byte classes most live tokens share their sequence (measured on Llama-3: a
  URL regex 114k live tokens / 38.5k sequences, 1.26 -> 0.72 MB; bounded strings 124k / 2.8k,
  1.32 -> 0.32 MB; an email regex 28k / 194); with 83k distinct sequences (a 58-class
  extraction regex) the row numbers need 4 bytes and ``token_id`` stays smaller.

Sizes are computed exactly before choosing; ties go to ``token_id`` (fastest), then
``live_tokens``.  Distinct sequences are found by ``arrays.ragged_unique`` (hash, then an exact
comparison), or from the mask stage's group numbers, in first-appearance order, so the output
is a pure function of the table.  Finding them is the dear part (a JSON Schema's 124k live
tokens: ~30 ms of the write), and most JSON Schemas end up with ``token_id`` (1.32 MB against
1.40-1.49 MB shared), so a floor under the shared size, from a coarser numbering the mask stage
has for free, skips the search when even the floor loses (JME_41, o13149, calculate_area).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from indexc.arrays import expand_runs, groups_by_first_appearance, offsets_of, ragged_unique
from indexc_runtime.format import TOKEN_ROWS_BY_ID, TOKEN_ROWS_LIVE, TOKEN_ROWS_SHARED

U16_ROWS = 1 << 16  # row numbers fit uint16 below this many rows (row 0 included)
LAYOUTS = (TOKEN_ROWS_BY_ID, TOKEN_ROWS_LIVE, TOKEN_ROWS_SHARED)


@dataclass(frozen=True)
class TokenRows:
    layout: str  # one of format.TOKEN_ROWS_*
    live_tokens: np.ndarray  # int64: sorted ids (live_tokens layout), else empty
    offsets: np.ndarray  # (rows + 1,): int64, or int32 for the token_id layout
    data: np.ndarray  # uint8
    row_of_id: np.ndarray  # uint16/int32 (V,) for the shared layout, else empty


def token_rows(live: np.ndarray, offsets: np.ndarray, data: np.ndarray, vocab_size: int,
               layout: str | None = None, *, groups: Callable[[], np.ndarray] | None = None,
               coarse_groups: Callable[[], np.ndarray] | None = None) -> TokenRows:
    """The smallest layout of the CSR (``offsets``, ``data``) rows of the sorted ``live`` ids
    (or ``layout``, when given: tests and benchmarks pin one).

    ``groups`` (optional: gives one number per live token): equal values mean equal rows, as
    the mask stage knows from its tries; then the distinct rows are found without hashing them (a URL
    regex over Llama-3: ~85 ms of hashing and checking 750 KB of classes saved).
    ``coarse_groups`` (optional: one number per live token, equal for equal rows, -1 when
    unknown): when the shared layout's floor computed from it (``shared_size_floor``) cannot
    beat the other two, the distinct rows are never looked for: the layout is the same, and a
    typical JSON Schema's write saves the ~30 ms of numbering and grouping 124k rows.
    """
    live = np.asarray(live, dtype=np.int64)
    lengths = np.diff(offsets)
    sizes = {
        TOKEN_ROWS_BY_ID: 4 * (vocab_size + 1) + data.size,
        TOKEN_ROWS_LIVE: 4 * live.size + 4 * (live.size + 1) + data.size,
    }
    shared_can_win = layout is None and min(sizes.values()) > 2 * vocab_size and (
        coarse_groups is None or shared_size_floor(coarse_groups(), lengths, vocab_size) < min(sizes.values()))
    if layout == TOKEN_ROWS_SHARED or shared_can_win:
        first, row_of_live = ragged_unique(offsets, data) if groups is None else first_appearance(groups())
        row_bytes = 2 if first.size + 1 < U16_ROWS else 4
        sizes[TOKEN_ROWS_SHARED] = row_bytes * vocab_size + 4 * (first.size + 2) + int(lengths[first].sum())
    if layout is None:  # the shared layout costs at least 2 bytes per id: sized only when it can win
        layout = min(sizes, key=lambda name: (sizes[name], list(sizes).index(name)))
    elif layout not in LAYOUTS:
        raise ValueError(f"token row layout must be one of {list(LAYOUTS)}, not {layout!r}")
    if layout == TOKEN_ROWS_LIVE:
        return TokenRows(layout, live, offsets, data, _empty_rows())
    if layout == TOKEN_ROWS_BY_ID:
        return TokenRows(layout, np.zeros(0, np.int64), _offsets_by_id(live, lengths, vocab_size, data.size), data,
                         _empty_rows())
    row_of_id = np.zeros(vocab_size, dtype=np.uint16 if row_bytes == 2 else np.int32)
    row_of_id[live] = row_of_live + 1
    row_lengths = np.concatenate(([0], lengths[first]))
    _, positions = expand_runs(offsets[first], lengths[first])
    return TokenRows(layout, np.zeros(0, np.int64), offsets_of(row_lengths), data[positions], row_of_id)


def first_appearance(numbers: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``arrays.groups_by_first_appearance`` for small non-negative numbers (the mask stage's
    group numbers are trie node ids), with no sort: each number's first index is a
    ``minimum.at`` into a table the size of the largest number, and the first indices, flagged
    in order, rank the groups (124k live tokens of a JSON Schema: ~10 -> ~2 ms)."""
    numbers = np.asarray(numbers)
    n = numbers.size
    if not n or numbers.dtype.kind not in "iu" or int(numbers.min()) < 0 or int(numbers.max()) > 8 * n + 65_536:
        return groups_by_first_appearance(numbers)
    first_index = np.full(int(numbers.max()) + 1, n, dtype=np.int64)
    np.minimum.at(first_index, numbers, np.arange(n))
    is_first = np.zeros(n + 1, dtype=bool)  # slot n: the numbers no element has
    is_first[first_index] = True
    rank = np.cumsum(is_first[:n]) - 1
    return np.flatnonzero(is_first[:n]), rank[first_index[numbers]]


def shared_size_floor(coarse: np.ndarray, lengths: np.ndarray, vocab_size: int) -> int:
    """A size the shared layout cannot be under, from a coarse numbering of the rows (equal rows
    have equal numbers; -1: unknown, left out): each number stands for at least one distinct
    row, at least as long as its shortest member, so fewer rows and bytes than the exact count.

    The numbers no row has keep a fill longer than any row, counted and subtracted from one sum
    (selecting the used numbers' minima took ~1.2 of a JSON Schema's 2 ms here; now ~0.6 in all)."""
    known = coarse >= 0
    if not known.all():
        coarse, lengths = coarse[known], lengths[known]
    if not coarse.size:
        return 2 * vocab_size
    longer = int(lengths.max()) + 1  # longer than any row: the fill of the numbers no row has
    shortest = np.full(int(coarse.max()) + 1, longer, dtype=np.int64)
    np.minimum.at(shortest, coarse, lengths)
    unused = int(np.count_nonzero(shortest == longer))
    rows = shortest.size - unused
    row_bytes = 2 if rows + 1 < U16_ROWS else 4
    return row_bytes * vocab_size + 4 * (rows + 2) + int(shortest.sum()) - unused * longer


def _offsets_by_id(live: np.ndarray, lengths: np.ndarray, vocab_size: int, total: int) -> np.ndarray:
    """The ``token_id`` layout's row offsets (one row per id, empty unless live), summed in place
    in the file's int32 when ``total`` bytes fit it, so the writer neither range-checks nor
    converts 128k offsets (~1.5 -> ~0.8 ms); int64 otherwise, which the writer then refuses."""
    offsets = np.zeros(vocab_size + 1, dtype=np.int32 if total < 1 << 31 else np.int64)
    offsets[live + 1] = lengths
    np.cumsum(offsets, out=offsets)
    return offsets


def _empty_rows() -> np.ndarray:
    return np.zeros(0, dtype=np.uint16)

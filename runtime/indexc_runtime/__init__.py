"""indexc_runtime: serve token masks from an indexc artifact (numpy, msgpack, zstandard only).

Design note.  The compiler did all the work ahead of time; serving is reading.  An artifact is
memory-mapped, its msgpack header and section table are checked, and nothing else happens at
load: the tables a matcher needs are checked (checksum and bounds, vectorised) and turned into
Python-friendly form on first use, once per ``Index``, so a load stays well under a
millisecond whatever the vocabulary size and a matcher can never index out of bounds.  Each
mask is stored in its cheapest form and written into the caller's int32 bitmask (the
llguidance / xgrammar layout) with one or two numpy calls.  This package never imports the
compiler (``indexc``): a server installs numpy, msgpack and zstandard, nothing more.

    from indexc_runtime import load, fill_bitmasks
    index = load("phone.idx", expected_fingerprint=tokenizer_fingerprint)
    matcher = index.matcher()
    bitmask = np.zeros((batch, index.mask_words), dtype=np.int32)
    matcher.fill_bitmask(bitmask, row=0); matcher.advance(token_id)

Code map, in reading order:

    errors.py     ArtifactError, FingerprintMismatch, TokenNotAllowed
    format.py     the file format as data (magic, limits, section table), shared with the writer
    source.py     path / bytes / .zst -> one aligned read-only buffer (mmap where possible)
    header.py     the msgpack header checked key by key; section shapes bound to header values
    container.py  prefix, header, section layout; zero-copy section views and CRC-32 checks
    automaton.py  state tables (class transitions, accepting, state -> mask) for the walk
    masks.py      the three mask forms: fill a bitmask row, test one token, list ids
    tokens.py     byte-class sequences of live tokens (what advance walks)
    index.py      load() and Index: metadata, lazily built tables, fingerprint check
    matcher.py    Matcher (fill_bitmask, advance, rollback, forced_tokens...) and fill_bitmasks
"""

from indexc_runtime.errors import ArtifactError, FingerprintMismatch, TokenNotAllowed
from indexc_runtime.format import FORMAT_VERSION
from indexc_runtime.index import FingerprintMismatchWarning, Index, load
from indexc_runtime.matcher import Matcher, fill_bitmasks

__all__ = [
    "FORMAT_VERSION",
    "ArtifactError",
    "FingerprintMismatch",
    "FingerprintMismatchWarning",
    "Index",
    "Matcher",
    "TokenNotAllowed",
    "fill_bitmasks",
    "load",
]

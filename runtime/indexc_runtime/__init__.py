"""indexc_runtime: serve token masks from an indexc artifact (numpy, msgpack, zstandard only).

Design note.  The compiler did all the work ahead of time; serving is reading.  An artifact is
memory-mapped once and ``load`` checks what every lookup relies on: the header and layout,
the CRC-32 of the small sections, one vectorised bound per index-carrying section; what a
single lookup reads is checked where it is read (the state table's next state, a token's
class span, a mask's form and row on the mask's first use), so ``load`` + ``matcher()`` + the
first fill take 0.6-0.9 ms in a fresh process (Llama-3 artifacts of 0.1-9.8 MB, busy 2-core
machine; ``index.py`` has the breakdown).  The tables become zero-copy memoryviews and numpy
views, and the pages serving will read are mapped in; no lookup can go out of bounds, and a
bad value is an ``ArtifactError`` at load or where it is read.  A mask's first fill builds its
entry (~4 us), later fills ~1-2 us, ``advance`` ~1.5-2 us.  Checksums of the big sections are
for ``verify``: they catch damage, they are not needed for safety.  Each mask is stored in
its cheapest form and written into the caller's int32 bitmask (the llguidance / xgrammar
layout) with one or two numpy calls.  This package never imports the compiler (``indexc``):
a server installs numpy, msgpack and zstandard, nothing more.

    from indexc_runtime import apply_bitmask, fill_bitmasks, load
    index = load("phone.idx", expected_fingerprint=tokenizer_fingerprint)
    matchers = [index.matcher() for _ in range(batch)]      # one per sequence
    bitmask = np.zeros((batch, index.mask_words), dtype=np.int32)
    fill_bitmasks(matchers, bitmask)                         # every row in one call
    apply_bitmask(logits, bitmask)                           # numpy or torch, in place
    matchers[i].advance(sampled_token)                       # or fast_forward_tokens(), rollback(n)...

Code map, in reading order:

    errors.py     ArtifactError, FingerprintMismatch, TokenNotAllowed
    format.py     the file format as data (magic, limits, section table), shared with the writer
    source.py     path / bytes / .zst -> one aligned read-only buffer (mmap where possible)
    header.py     the msgpack header checked key by key; section shapes bound to header values
    container.py  open_raw (map, prefix, msgpack: once, whatever the kind), section layout;
                  zero-copy section views and CRC-32 checks
    automaton.py  state tables (class transitions, accepting, state -> mask) for the walk
    masks.py      the three mask forms: fill a bitmask row, test one token, list ids
    tokens.py     byte-class sequences of live tokens (what advance walks)
    index.py      load(), load_bytes() and Index: metadata, the checked tables, fingerprint check, verify
    matcher.py    Matcher (fill_bitmask, advance, rollback, validate_tokens, forced_tokens...)
    fast_forward.py  jump-forward: forced bytes, and the tokens safe to append (llguidance's back-off)
    batch.py      fill_bitmasks: one call for a batch of matchers (mixed artifacts, other matcher kinds)
    logits.py     apply_bitmask: -inf for disallowed (and padding) ids, numpy or torch, in place
    adapters/     optional: a transformers LogitsProcessor, vLLM-style processor and backend
    grammar/      the grammar live path: Earley parser over lexemes + live token-trie walk
                  (load() returns its GrammarIndex for grammar artifacts; same matcher API)
"""

from indexc_runtime.errors import ArtifactError, FingerprintMismatch, TokenNotAllowed
from indexc_runtime.format import FORMAT_VERSION
from indexc_runtime.batch import fill_bitmasks
from indexc_runtime.index import FingerprintMismatchWarning, Index, load, load_bytes
from indexc_runtime.logits import apply_bitmask
from indexc_runtime.matcher import Matcher

__all__ = [
    "FORMAT_VERSION",
    "ArtifactError",
    "FingerprintMismatch",
    "FingerprintMismatchWarning",
    "Index",
    "Matcher",
    "TokenNotAllowed",
    "apply_bitmask",
    "fill_bitmasks",
    "load",
    "load_bytes",
]

"""indexc_runtime: serve token masks from an indexc artifact (numpy, msgpack, zstandard only).

Design note.  The compiler did all the work ahead of time; serving is reading.  An artifact is
memory-mapped and everything that is done once per artifact is done by ``load`` (0.2-0.5 ms
for 0.3-6 MB Llama-3 artifacts): the header and layout are checked, every index-carrying
section is bounded with vectorised checks (the state table excepted: it is bounded where it is
read), the tables become zero-copy memoryviews and numpy views, and the pages serving will
read are mapped in.  Nothing is built on first use, so the first matcher, fill and advance of
an Index cost what later ones cost (fill ~1-2 us, advance ~1.5-2 us), and no lookup can go
out of bounds.  Checksums of the big sections are for ``verify``: they catch damage, they are
not needed for safety.  Each mask is stored in its cheapest form and written into the
caller's int32 bitmask (the llguidance / xgrammar layout) with one or two numpy calls.  This
package never imports the compiler (``indexc``): a server installs numpy, msgpack and
zstandard, nothing more.

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
    container.py  prefix, header, section layout; zero-copy section views and CRC-32 checks
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

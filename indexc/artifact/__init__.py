"""Where the file is written: a MaskTable -> one self-describing, checksummed artifact.

Design note.  The artifact is data, never code (no pickle): a msgpack header (what it was
built from and with, the section table with offsets and CRC-32s) followed by raw
little-endian arrays, each at a 64-byte aligned offset, so the runtime can memory-map the file
and view every section with ``np.frombuffer`` without copying.  The layout is defined once, in
``indexc_runtime.format``, which both this writer and the runtime import; the prose
specification is ``docs/artifact-format.md``.  Identical inputs give byte-identical files (no
timestamps, sorted header maps), files are replaced atomically, and every file is read back by
the runtime with full verification before it replaces anything.  Format version 2 (this
writer) encodes three sections for the reader's speed on a freshly loaded file: the state
table as ``next + 1`` in the narrowest unsigned dtype, word indices as int64, and token class
rows by token id when at least half the vocabulary is live (``sections.py`` says why).

Code map, in reading order:

    mask_encoding.py  each unique mask as a dense bitset row, sparse words or complement words
    sections.py       MaskTable + vocabulary -> the named, typed section arrays
    header.py         the header's content in canonical form (sorted, plain data, no time)
    layout.py         header + sections -> prefix, aligned offsets, checksums, bytes
    atomic.py         temp file in the same directory + fsync + os.replace
    writer.py         write_artifact (the entry point), VocabInfo, ArtifactSummary
    grammar_writer.py a GrammarTable -> a grammar artifact (same container, its own sections)
    warm_memo.py      the grammar writer's warm-up walk (format 7): the runtime walks a sample text,
                      its parser memo and masks are stored
    item_masks.py     the item keys the warm-up texts meet and their bounds (format 11)
    lexeme_paths.py   the lexer states whose undecided tokens are grouped by lexeme path (format 12)
"""

from indexc.artifact.writer import ArtifactSummary, VocabInfo, write_artifact

__all__ = ["ArtifactSummary", "VocabInfo", "write_artifact"]

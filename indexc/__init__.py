"""indexc: an ahead-of-time compiler of constrained-decoding token-mask indexes.

Code map, in the order data flows (one way: each package imports only those above it):

1. ``indexc.vocab``      where the vocabulary is read: tokenizer.json / GGUF -> exact bytes per
                         token id, token kinds, eos ids, fingerprint.
2. ``indexc.trie``       the vocabulary as one flat DFS-ordered token trie (numpy arrays).
3. ``indexc.automaton``  where the DFA is built: regex -> normalised tokens -> regex tree ->
                         NFA -> character DFA -> UTF-8 byte automaton -> minimal live byte DFA.
4. ``indexc.masks``      where masks are computed: byte classes, token classes, the prefix-graph
                         (trie x DFA) traversal, deduplicated state-to-mask tables.
5. ``indexc.grammar``    Lark / GBNF -> grammar IR; lexeme masks and Earley tables for the live path.
6. ``indexc.jsonschema`` a JSON Schema -> an automaton tree (regular) or grammar IR (recursive).
7. ``indexc.artifact``   where the file is written: header + aligned sections, atomically.
8. ``indexc.pipeline``   the whole compile in one call per constraint kind.
9. ``indexc.build``      many compiles as one incremental build (joblib or Dask).
10. ``indexc.diff``      two artifacts (or two builds) compared mask by mask.
11. ``indexc.cli``       the ``indexc`` command line.

``indexc.errors`` (typed errors), ``indexc.arrays`` (numpy helpers), ``indexc.limits`` (the
explicit compile limits) and ``indexc.allocator`` (malloc thresholds for the processes indexc
owns: freed pages reused, not faulted back) sit below all of them.

The serving side is the separate package ``indexc_runtime`` (``runtime/``): it reads the
artifact with numpy, msgpack and zstandard only and never imports ``indexc``.
"""

__version__ = "0.1.0"

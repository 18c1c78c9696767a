"""Reference engines for tests and benchmarks: oracles that share no code with indexc.

Design note.  indexc's masks are checked against engines written by other people and against a
brute-force walk that uses none of indexc's automaton, minimisation or trie code.  Each helper
here says which semantics it implements and where it departs from DESIGN.md's exact masks, so a
test can compare like with like.  These modules are imported by ``tests/`` and ``bench/`` only;
``indexc`` and ``indexc_runtime`` never import them.

Code map (reading order):
- ``tokenizer_source``  -- a tokenizer.json as text: bundled name, path, or bytes (``.zst`` inflated).
- ``llguidance_oracle`` -- llguidance with ``no_forcing``: the exact-mask oracle, and what it
  does with EOS, special tokens, anchors and Unicode classes.
- ``outlines_oracle``   -- outlines-core 0.2.14: a speed and size anchor (not an oracle: it
  drops tokens), built from token bytes read through llguidance.
- ``brute_force``       -- every token of a small vocabulary walked through interegular's FSM
  over characters: an independent mask reference.
- ``grammar_oracle``    -- a plain byte-level Earley recogniser over the grammar IR (all-splits
  lexing): viable prefixes, whole texts and allowed tokens of small vocabularies, the
  reference of the grammar path.
"""

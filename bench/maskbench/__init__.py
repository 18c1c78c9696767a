"""MaskBench: compile real-world JSON Schemas, walk their valid and invalid instances through the masks.

Design note.  The protocol is MaskBench's (github.com/guidance-ai/jsonschemabench, ``maskbench/``):
for each file, compile the schema, then for each instance tokenize its JSON text with the
Llama-3 tokenizer and walk the tokens through the engine's masks; a valid instance must be
accepted to its end, an invalid one refused at some token or at its end.  A schema passes when it
compiles and all its instances behave.  Two choices differ from MaskBench's runner and are
deliberate: the end of a walk asks for EOS (so "accepted" means "may stop here", and an invalid
instance that is an unfinished valid document counts as refused), and llguidance runs with
``no_forcing`` (the exact masks of DESIGN.md; MaskBench turns fast-forward tokens off, which
has the same effect on which tokens a walk may take).

Every compile runs in a worker process with a deadline and an address-space cap, so that one
schema that hangs or explodes (outlines-core on bounded repetitions) costs its time limit and
nothing more.  Workers are long-lived (the tokenizer is loaded once per worker, 1-3 s) and are
replaced when they are killed or die.

The regression file ``expected_maskbench.json`` holds indexc's outcome per dev-set file
(``{}`` = passes), in the shape of llguidance's own file, which ``--compare-llguidance`` crosses
with ours.  ``select_sample`` chose the bundled sample ``tests/data/maskbench/`` that the CI test
``tests/maskbench/test_sample_protocol.py`` runs through ``protocol.run_file`` in process.

Code map (reading order):
- ``dataset``         a MaskBench file: schema, instances and their JSON text, family.
- ``schema_engines``  ``bench/engines``'s adapters extended with ``compile_schema`` (indexc,
                      llguidance no_forcing, outlines-core, xgrammar).
- ``protocol``        one file, one engine: compile, walk each instance, the ``FileOutcome``.
- ``worker``          the worker process: tokenizer once, files one at a time, JSON lines out.
- ``pool``            the parent side: workers, deadlines, kills, crashes.
- ``reasons``         compile error messages grouped by reason.
- ``report``          outcomes -> the figures and the markdown table.
- ``expected``        the per-file regression record, its diff, the crossing with llguidance.
- ``policy``          each valid instance indexc refused, explained by a walk that passes (keys
                      reordered by the artifact, or the grammar path's unbounded any-value).
- ``cli``             ``python -m bench.maskbench`` (``make bench-maskbench``).
- ``select_sample``   the script that picks the bundled sample.
"""

"""Benchmarks of indexc against the reference engines (bench time only, never imported by indexc).

Design note.  Each engine compiles each regex of ``data/regex_examples.json`` in a fresh
process, so that its peak memory is its own (the high-water RSS is reset after the tokenizer is
loaded and read after the compile) and no engine warms another's caches.  The same process then
walks the tokenizer's own tokenization of the regex's valid example, timing every mask and every
advance, and says whether the example was accepted.  Run from the repository root:

    python -m bench.bench_regex            # or: make bench (makes .venv-bench, with xgrammar)

Code map (reading order):
- ``engines/``        one module per engine with the same shape (load tokenizer, compile, walk).
- ``measure``         the child process: one engine, one regex -> one JSON line.
- ``bench_regex``     the driver: tokenizer and EOS, examples, one child per cell, the table.
- ``data/regex_examples.json``  the regexes and their valid examples.
"""

"""The whole compile, as one call per constraint kind: constraint + vocabulary -> table -> artifact.

This is the only package that knows every stage; each stage knows only the one before it
(vocabulary -> trie -> automaton -> masks -> artifact).  The command line, the build and the
bench call ``compile_<kind>`` and ``write``, and time the stages through
``CompileResult.timings``.

Code map, in reading order:

- ``result.py``      CompileOptions, CompileResult and ``write`` (shared by every kind)
- ``regex.py``       a regex: pattern -> byte DFA -> masks (the DFA path)
- ``json_schema.py`` a JSON Schema: regular ones through the regex path, recursive ones to the grammar path
- ``grammar.py``     a Lark or GBNF grammar: lexeme tables ahead of time, Earley parser live
- ``collector.py``   the cyclic garbage collector paused for the length of a compile (why: its note)
"""

from indexc.pipeline.regex import compile_regex
from indexc.pipeline.result import CompileOptions, CompileResult, write

__all__ = ["CompileOptions", "CompileResult", "compile_regex", "write"]

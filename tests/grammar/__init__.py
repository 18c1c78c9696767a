"""Tests of the grammar front ends (``indexc.grammar``: Lark and GBNF -> IR).

Design note.  Front ends are judged by the *language* they produce, through the independent
byte-level Earley oracle (``tests.reference.grammar_oracle``), not by the shape of the rules:
two IRs may differ (GBNF folded or not, a Lark expression as a terminal or as a rule) and must
accept the same texts.

Code map, in reading order:
- ``samples``                   the bundled grammars and a sample document (and a corruption) each
- ``test_sample_grammars``      every sample loads; documents accepted, corruptions rejected
- ``test_lark``, ``test_gbnf``  each construct of each syntax, by the language it gives
- ``test_language_properties``  random grammars: equivalent forms give equal languages
- ``test_errors_and_checks``    located errors; unreachable/unproductive warnings; syntax by extension
"""

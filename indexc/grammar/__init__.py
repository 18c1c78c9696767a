"""Where grammars are read: Lark and GBNF text -> the grammar IR the Earley path compiles.

Design note.  Every context-free constraint reaches the compiler as one IR (``ir.Grammar``):
terminals are named regexes (the lexemes, each later a byte DFA), rules are plain BNF, and
``ignore`` lists the terminals allowed between any two others.  The front ends share one
expression tree (``expression``) and one desugaring (``lowering``), so the two syntaxes differ
only in their parsers and in one policy:

- Lark has a lexer: literals, ``/regex/`` and capitalised definitions are the terminals, a
  terminal definition is expanded into a single regex, ``%ignore`` applies between terminals,
  and a lexeme ends by longest match where one byte of lookahead decides it, as Lark's own
  dynamic lexer ends it (``longest_match``; ``Grammar.lexing``).
- GBNF has none: it is a CFG over characters.  Its regular parts are folded into as few, as
  large terminals as possible (``gbnf_folding``), which keeps the language exactly and puts
  the work into precompiled lexeme masks; the Earley path must lex GBNF with the all-splits
  rule (a terminal may end wherever its DFA accepts).

Checks: an undefined name is an error at the reference (line and column); unreachable and
unproductive rules are warnings (``Grammar.warnings``) and are left out of the IR; a grammar
whose language is empty is an error.  After loading, every IR rule is reachable and
productive, every terminal's regex compiles and matches something.

Measured (``load_grammar_file``, best of 5, 2-core machine shared with other jobs; most of
the time is compiling each non-literal terminal once to report bad regexes with a position):

    grammar          rules  terminals  non-literal    ms      (GBNF unfolded: rules, terminals)
    arithmetic.gbnf     10          6            5    12       20    9
    c.gbnf              42         25           21    72       77   36
    chess.gbnf           1          1            1    17       29   14
    english.gbnf         1          1            1     2       12    4
    japanese.gbnf        1          1            1     3       14    5
    json.gbnf           18          8            8    55      149   24
    json_arr.gbnf       25         11           10    54      126   26
    list.gbnf            1          1            1     2        6    3
    vllm-sql.gbnf        1          1            1     5        9   10
    lark.lark           80         26           10    41
    rfc.lark           621        238            1    50

``simple_py.lark`` is refused: it needs llguidance's ``%llguidance {"indent": ...}`` extension
and the indentation terminals it defines.

Code map, in reading order:

- ``ir``               the contract: Terminal, Rule, Grammar, GrammarError
- ``source_position``  offsets -> line and column for errors and warnings
- ``expression``       the shared right-hand-side tree (Lexeme, Ref, Seq, Alt, Repeat)
- ``regex_text``       literals, classes and expressions written as indexc regexes
- ``lowering``         expressions -> BNF rules (helpers for groups and repetitions)
- ``checks``           undefined / unreachable names, unproductive rules, empty language
- ``lark_tokens``      Lark text -> tokens (newline and continuation rules)
- ``lark_parser``      tokens -> definitions and directives
- ``lark_common``      the ``%import common`` terminals
- ``lark``             Lark -> IR (terminal expansion, %ignore, checks)
- ``gbnf_parser``      GBNF text -> rule definitions
- ``gbnf_folding``     regular GBNF parts -> single terminals
- ``gbnf``             GBNF -> IR
- ``load``             ``load_grammar``: pick the front end by syntax or file extension
- (``indexc_runtime.grammar.first_follow``: FIRST and FOLLOW sets over numbered symbols, read
  by ``follow_split``, ``earley_tables`` and ``boundary_masks`` here and by the runtime's item bounds)
- ``follow_split``     a shared symbol copied per follow context (JSON Schema grammars'
                       whitespace and punctuation: narrower FOLLOW sets, same language)

Then the compile side of the Earley path, which reads the IR:

- ``lexemes``          every terminal as a byte DFA, side by side in one lexer automaton
- ``longest_match``    which terminals of a Lark file end by longest match (the others: all splits)
- ``lazy_ends``        a Lark terminal whose lazy quantifier decides its ``re.match`` end
                       (``".*?"``, an escaped run such as lark.lark's ``REGEXP``), written as the
                       greedy regex of those ends
- ``earley_tables``    the rules as flat arrays for the runtime's Earley parser
- ``numbered_states``  the worklist numbering the two subset constructions below share
- ``boundary_masks``   "the rest of lexeme t, ignored lexemes, then lexeme u" products, masked
                       ahead of time
- ``undecided_tokens`` per lexer state, the tokens those masks cannot decide (they may cross
                       two boundaries): the only ones the live walk looks at (format 5)
- ``grammar_table``    everything a grammar artifact holds, before encoding
- ``sentences``        random sentences of the grammar: the texts its compile-time warm-up walks
"""

from indexc.grammar.gbnf import parse_gbnf
from indexc.grammar.ir import Grammar, GrammarError, Rule, Terminal
from indexc.grammar.lark import parse_lark
from indexc.grammar.load import load_grammar, load_grammar_file, syntax_of

__all__ = [
    "Grammar",
    "GrammarError",
    "Rule",
    "Terminal",
    "load_grammar",
    "load_grammar_file",
    "parse_gbnf",
    "parse_lark",
    "syntax_of",
]

"""The grammar live path of the runtime: an Earley parser over lexemes and a live token-trie walk.

Design note.  A grammar artifact holds the lexer tables computed ahead of time (the
terminals' DFAs side by side and, per lexer state, the mask of tokens that stay inside the
lexeme), the Earley rules as flat arrays, and the token trie.  At serving time the matcher
keeps a *configuration*: the lexer threads (Earley origin, terminal, lexer state) alive after
the text so far.  A mask is the OR of the in-lexeme masks of those threads, plus the tokens
that cross a lexeme boundary, found by a numpy level-by-level walk of the trie over a table
of configuration transitions built lazily by the parser (seed 001's row reuse is the memo of
interned Earley sets and configurations).

Semantics (exact, "all splits"): a text token ``t`` is allowed iff the text so far followed by
``t``'s bytes is a prefix of some sentence of the grammar, where the language is the
context-free grammar with each terminal standing for its regular language and the ignored
terminals allowed (any number of times) before, between and after terminals, and where a
lexeme may end at *any* byte at which its regular language accepts (every way of cutting the
text into lexemes counts, as in GBNF's character-level meaning).  A file whose header says
``lexing = "longest_match"`` (format 10, a Lark file) ends each of its ``longest_match_terminals``
only where the next byte cannot extend it (``configs``).  An end-of-sequence id is allowed iff
the text so far is a sentence; other special tokens never.

Code map, in reading order:

    format.py   the grammar artifact's sections and header keys (shared with the writer)
    kind.py     is_grammar_header / is_grammar_artifact: the header says index_kind "grammar" (load's dispatch)
    header.py   the grammar header, checked; section shapes bound
    errors.py   GrammarLimits and GrammarLimitExceeded (explicit limits of the live path)
    tables.py   lexer, Earley and trie tables, checked at load
    earley.py   EarleySets: interned Earley sets, scan + closure, memoised; a closure by completion
                (per set and symbol), its part inside a prediction block per block (Predictions)
    first_follow.py FIRST and FOLLOW sets over numbered symbols (shared with the compiler)
    configs.py  Configs: lexer threads per position and their lazily built transition table
    one_byte_ends.py which terminals' ends one byte decides: the longest-match list a format 10
                header must hold (the compiler's decision, and ``verify``'s from the file's tables)
    undecided.py UndecidedSets: per lexer state, the tokens its precomputed masks cannot decide (format 5)
    unions.py   MaskUnions: the OR of a configuration's precomputed masks (part 1), memoised
    coverage.py TrieOrderMasks, Coverage: which trie subtrees are already decided (walk pruning)
    loop_exits.py LoopExits: where the walk starts for a configuration looping on a wide region
                (find_region, shared with the compiler; the regions it stored, format 3)
    horizon.py  TokenHorizon: Earley sets told apart only as far as one token reads (long strings' chunks)
    futures.py  future_key, FutureMasks: one mask for configurations with the same future
    languages.py SetLanguages, LanguageKeys: one key for configurations that accept the same texts,
                whatever their parser context (stored by the compiler, format 8); OriginMerger:
                one thread for threads whose origins have one language (format 9)
    item_masks.py ItemMasks: per key (lexer state, Earley item, its origin's wanted nonterminals) a
                lower mask and an upper set (format 11); thread_items, a thread's keys
    lexeme_paths.py LexemePaths: per lexer state, its undecided tokens grouped by the lexemes they
                read (format 12), decided by scanning the state's path trie from a thread's origin;
                Decomposer, the grouping (the compiler's and ``verify``'s)
    path_keys.py PathKeys, PathRows: a lexeme-path row by the language digest of the set its paths
                are scanned from (format 13: the warm-up's keys stored; the ones computed in a memo)
    runs.py     expand_runs, distinct: numpy idioms the trie walks share
    walker.py   MaskWalker: in-lexeme masks + the live trie walk -> a bitmask row
    item_bounds.py ItemBounds: a key's bounds, computed by this parser from a synthetic origin
                (LocalSets; the compiler's and ``verify``'s)
    stored_match.py StoredLookup, StoredMatch: a stored memo's sets and configurations by hash, and
                a live memo's new configurations looked up in it as they are made (the sets
                they name, on first need)
    stored_memo.py StoredMemo: a parser memo and masks computed ahead of time (format 7), read and
                checked; its configurations' masks served where a live one has their content
    matcher.py  GrammarMatcher: fill_bitmask, advance, rollback, forced_tokens, is_accepting;
                SharedMemo: the parser memo all matchers of one index share (one lock)
    byte_walk.py ByteWalk: the parser as a byte automaton over a private memo (``indexc diff``)
    index.py    load_grammar_index (grammar_index_from_raw: an artifact load() opened) and GrammarIndex
"""

# Plain imports: ``indexc_runtime`` imports the reader (``index``, hence every module here) at
# its own import, so the 17-30 ms the Earley modules cost are paid once per process, never by a
# ``load`` (they used to land in the first grammar artifact's load, behind lazy exports).
from indexc_runtime.grammar.errors import GrammarLimitExceeded, GrammarLimits
from indexc_runtime.grammar.format import GRAMMAR_INDEX_KIND
from indexc_runtime.grammar.index import GrammarIndex, load_grammar_index
from indexc_runtime.grammar.kind import is_grammar_artifact
from indexc_runtime.grammar.matcher import GrammarMatcher

__all__ = [
    "GRAMMAR_INDEX_KIND",
    "GrammarIndex",
    "GrammarLimitExceeded",
    "GrammarLimits",
    "GrammarMatcher",
    "is_grammar_artifact",
    "load_grammar_index",
]

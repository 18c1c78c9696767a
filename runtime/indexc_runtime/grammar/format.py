"""The grammar artifact's sections, as data: shared by the writer (``indexc.artifact``) and this reader.

Same container as a regex artifact (magic, msgpack header, 64-byte aligned checksummed
sections: ``indexc_runtime.format``), with ``index_kind = "grammar"`` so that a runtime that
only knows DFA artifacts refuses the file instead of serving the lexer as if it were the
constraint.  Three groups of sections (``docs/artifact-format.md``, section 9):

- the *lexer*: the terminals' DFAs side by side, over byte classes, each lexer state's
  in-lexeme mask, and its boundary masks (per following terminal), all masks in exactly the
  regex artifact's mask sections (so ``MaskStore`` reads them);
- the *Earley tables*: rules, nullable symbols, prediction closures (``indexc.grammar.earley_tables``);
- the *token trie* (DFS order, CSR children, token runs; ``docs/token-trie.md``) with each
  node's byte class, which the live walk reads, and every text token's class sequence by id,
  which ``advance`` reads.

Format version 3 adds a fourth group, the *loop regions* (``indexc_runtime.grammar.loop_exits``):
for each wide lexer self-loop set, the trie nodes and tokens of its region as packed bits
(``np.packbits(..., bitorder="little")``, one row per loop) and its exit nodes, so that a
load gives them instead of the first mask that needs one building it (7-20 ms for Llama-3).
Version 2 files (no loop sections) are still read; their regions are built on first use.

Format version 4 adds the *start mask*: the bitmask of the tokens allowed at the start of the
text (eos where the empty text is a sentence), computed by the compiler with this runtime
over the version 3 sections, so that a fresh process's first mask is a lookup instead of a
walk of the trie (arithmetic.gbnf: ~4.8 ms of its 8.2 ms load + first mask on a slow host).
``verify`` walks it again and compares.  Versions 2 and 3 are still read; their first mask
is walked.

Format version 5 adds, per lexer state, the set of its *undecided tokens*
(``undecided_*``; ``indexc.grammar.undecided_tokens``), as places in the trie's token order
(what the walk's coverage test reads, ``coverage.OpenPlaces``): the tokens that may finish the
state's lexeme, a whole next lexeme and start a third.  Every other token is decided by the
state's in-lexeme and boundary masks alone (the compiler builds a boundary mask for every
pair of terminals that may follow each other), so the live walk only enters the trie where an
undecided token is.  Versions 2-4 are still read; their walks decide every token.

Format version 6 stores what a fresh process built on first use from the version 5 sections
(session 10, RFC-XML's cold walk): an undecided set whose bit row in trie order is not larger
than its places (``n_trie_token_words`` 32-bit words against 4 bytes a place: RFC-XML's two
text sets of ~122k tokens, 16 KB instead of 488 KB each) is stored as that row
(``undecided_row``, ``undecided_rows``) and holds no places; and each loop region's tokens
are stored a second time by token id (``loop_region_token_ids``, the layout of a mask row),
which the walk ORs into a mask where it jumps to the loop's exits.  Building them cost
~0.2-0.3 ms (a set's row) and ~0.3-0.45 ms (a region's tokens by id: a scatter over the
trie's token order) of the first mask that needed them.  Versions 2-5 are still read.

Format version 7 stores a *parser memo computed ahead of time* (``memo_*``;
``indexc_runtime.grammar.stored_memo``): the Earley sets, scans, configurations and
transitions a warm-up walk built at the positions where it asked for a mask (a JSON Schema's
synthetic instance), and each such configuration's mask, appended to the mask sections (ids
from the in-lexeme and boundary masks' count up).  Each new parser memo looks up
the sets and configurations it makes among them (``stored_match``), so a request's positions
that a compile-time walk met find their masks instead of walking the trie.  A file
without a warm-up has empty memo sections.  Versions 2-6 are still read.

Format version 8 adds the stored configurations' *language keys* (``memo_language_*``;
``indexc_runtime.grammar.languages``): a digest of the texts that may follow a configuration,
with its mask id, so that a request's configuration met in another parser context than the
warm-up's (a statement of the first C function, the warm-up's in a later one) finds the mask
by its key.  The compiler stores them for Lark and GBNF grammars, not for JSON Schemas (no
gain measured there); a file with no keys computes none.  Version 7 files are still read.

Format version 9 adds no section: the header key ``origin_merge`` says that the parser that made
the file's stored memo merged the threads of a configuration whose origins have one language
(``indexc_runtime.grammar.languages.OriginMerger``), and from how many shared threads on; the
runtime merges alike, so that ``verify`` recomputes the same transitions.  A version 8 or older
file is walked without merging (its stored transitions were made so).

Format version 10 adds no section: ``lexing`` may be ``"longest_match"`` (a Lark file's rule,
``indexc.grammar.longest_match``), and then ``longest_match_terminals`` lists, strictly
increasing, the terminals whose lexemes end only where the next byte cannot extend them (the
others end wherever they accept, as under ``"all_splits"``).  The runtime steps its
configurations by that rule (``configs.Configs``); the boundary masks and undecided sets were
computed by it.  Older files are all splits.

Format version 11 adds the *item bounds* (``item_*``; ``indexc_runtime.grammar.item_masks``):
per key (lexer state, Earley item, the nonterminals its origin wants) a lower mask, appended to
the file's masks, and an upper set, appended to the undecided sets.  A thread whose items all
have keys walks only its undecided tokens inside their upper sets, the lower masks joining its
precomputed ones.  Version 8-10 files are still read (no keys).

Format version 12 adds the *lexeme paths* (``path_*``; ``indexc_runtime.grammar.lexeme_paths``):
per decomposed lexer state, its undecided tokens grouped by the lexemes they read (a trie of
terminal paths, the final threads' pairs, the groups of pairs and each group's tokens).  A thread of
such a state asks the parser about the paths instead of walking its undecided tokens.  Version
8-11 files are still read (none).

Format version 13 adds the *path keys* (``path_key_*``; ``indexc_runtime.grammar.path_keys``): per
key (a decomposed lexer state, the language digest of the set its paths are scanned from) the
state's token groups that hold there, as packed bits.  A thread whose key is stored reads its
lexeme-path row instead of scanning the paths.  The stored configurations' language keys read
each thread's scanned sets instead of its origin (``languages.LanguageKeys.for_version``).
Version 8-12 files are still read (no path keys; language keys by origin).

Header keys beyond the common ones: ``n_lexer_states``, ``n_classes``, ``n_masks``,
``n_terminals``, ``n_nonterminals``, ``n_rules``, ``terminal_names``, ``nonterminal_names``,
``lexing`` (``"all_splits"``, or ``"longest_match"`` from version 10), ``longest_match_terminals``
(version 10, under longest match), ``origin_merge`` (version 9).
"""

from __future__ import annotations

from indexc_runtime.format import STATE_DTYPES, SectionSpec

GRAMMAR_INDEX_KIND = "grammar"
GRAMMAR_FORMAT_VERSION = 13  # the version this package writes; it reads GRAMMAR_SECTIONS_BY_VERSION
LEXING_ALL_SPLITS = "all_splits"
LEXING_LONGEST_MATCH = "longest_match"  # version 10 (Lark files): ``longest_match_terminals`` end so

GRAMMAR_SECTIONS_V2: tuple[SectionSpec, ...] = (
    # lexer
    SectionSpec("byte_classes", ("u1",), (256,), "class id of each byte value"),
    SectionSpec("class_transitions", STATE_DTYPES, ("n_lexer_states", "n_classes"),
                "1 + next lexer state after a byte of class c; 0: the lexeme dies"),
    SectionSpec("accepting", ("u1",), ("n_lexer_states",), "1 where the state's lexeme may end"),
    SectionSpec("state_terminal", ("<i4",), ("n_lexer_states",), "terminal id of each lexer state"),
    SectionSpec("terminal_start", ("<i4",), ("n_terminals",), "start lexer state of each terminal"),
    SectionSpec("state_mask", ("<i4",), ("n_lexer_states",), "in-lexeme mask id of each lexer state"),
    SectionSpec("mask_form", ("u1",), ("n_masks",), "0 dense, 1 sparse, 2 complement"),
    SectionSpec("mask_dense_row", ("<i4",), ("n_masks",), "row of dense_masks for a dense mask, else -1"),
    SectionSpec("mask_word_offsets", ("<i8",), ("n_masks+1",), "mask m's word pairs"),
    SectionSpec("forced_token", ("<i4",), ("n_masks",), "the mask's only token, else -1"),
    SectionSpec("dense_masks", ("<u4",), ("n_dense", "mask_words"), "bitset rows"),
    SectionSpec("mask_word_index", ("<i8",), ("n_words",), "word indices, strictly increasing within a mask"),
    SectionSpec("mask_word_value", ("<u4",), ("n_words",), "the word at that index"),
    SectionSpec("pair_offsets", ("<i4",), ("n_lexer_states+1",),
                "boundary masks of lexer state q are pairs [offsets[q], offsets[q+1])"),
    SectionSpec("pair_terminal", ("<i4",), ("n_pairs",), "the terminal that follows, ascending within a state"),
    SectionSpec("pair_mask", ("<i4",), ("n_pairs",), "mask id of tokens finishing the state's lexeme and going on in it"),
    # Earley tables
    SectionSpec("rule_lhs", ("<i4",), ("n_rules",), "nonterminal id of each rule's left side"),
    SectionSpec("rule_rhs_offsets", ("<i4",), ("n_rules+1",), "rule r's symbols are rule_rhs[offsets[r]:offsets[r+1]]"),
    SectionSpec("rule_rhs", ("<i4",), ("n_rhs",), "symbol ids: terminal t is t, nonterminal a is n_terminals + a"),
    SectionSpec("symbol_nullable", ("u1",), ("n_symbols",), "1 where the symbol derives the empty string"),
    SectionSpec("prediction_offsets", ("<i4",), ("n_nonterminals+1",), "CSR of each nonterminal's prediction closure"),
    SectionSpec("prediction_rule", ("<i4",), ("n_predictions",), "rule of each predicted item"),
    SectionSpec("prediction_dot", ("<i4",), ("n_predictions",), "dot of each predicted item"),
    SectionSpec("ignore_terminals", ("<i4",), ("n_ignore",), "terminals allowed between any two terminals"),
    # token trie and token classes
    SectionSpec("trie_node_class", ("u1",), ("n_nodes",), "byte class of the edge into each node (root: 0)"),
    SectionSpec("trie_child_offsets", ("<i4",), ("n_nodes+1",), "children of p are trie_children[offsets[p]:offsets[p+1]]"),
    SectionSpec("trie_children", ("<i4",), ("n_edges",), "child node ids, in byte order"),
    SectionSpec("trie_token_start", ("<i4",), ("n_nodes",), "tokens ending at p: sorted_tokens[start[p]:end[p]]"),
    SectionSpec("trie_token_end", ("<i4",), ("n_nodes",), "end of the run of tokens ending at p"),
    SectionSpec("trie_subtree_token_end", ("<i4",), ("n_nodes",), "end of the run of tokens in p's subtree"),
    SectionSpec("trie_sorted_tokens", ("<i4",), ("n_trie_tokens",), "text token ids ordered by bytes"),
    SectionSpec("token_class_offsets", ("<i4",), ("vocab_size+1",), "token t's classes: data[offsets[t]:offsets[t+1]]"),
    SectionSpec("token_class_data", ("u1",), ("n_class_bytes",), "byte classes of every text token, by id"),
    SectionSpec("special_ids", ("<i4",), ("n_special",), "sorted ids of special (control) tokens"),
)
LOOP_REGION_SECTIONS: tuple[SectionSpec, ...] = (
    SectionSpec("loop_classes", ("u1",), ("n_loops", "n_classes"), "1 where class c is in loop k's set; rows distinct"),
    SectionSpec("loop_region_nodes", ("u1",), ("n_loops", "n_node_bytes"),
                "packed bits (little bit order): trie node p is in loop k's region; padding 0"),
    SectionSpec("loop_region_tokens", ("u1",), ("n_loops", "n_trie_token_bytes"),
                "packed bits: the token at trie order position i ends in loop k's region; padding 0"),
    SectionSpec("loop_exit_offsets", ("<i4",), ("n_loops+1",), "loop k's exits are loop_exit_nodes[offsets[k]:offsets[k+1]]"),
    SectionSpec("loop_exit_nodes", ("<i4",), ("n_exits",), "exit node ids, ascending within a loop"),
)
START_MASK_SECTIONS: tuple[SectionSpec, ...] = (
    SectionSpec("start_mask", ("<u4",), ("mask_words",),
                "bitset of the tokens allowed at the start of the text (eos: the empty text is a sentence)"),
)
UNDECIDED_SECTIONS: tuple[SectionSpec, ...] = (
    SectionSpec("undecided_set", ("<i4",), ("n_lexer_states",),
                "1 + the set of tokens the state's precomputed masks cannot decide; 0: every token"),
    SectionSpec("undecided_offsets", ("<i8",), ("n_undecided_sets+1",),
                "set k is undecided_positions[offsets[k]:offsets[k+1]]"),
    SectionSpec("undecided_positions", ("<i4",), ("n_undecided_positions",),
                "places in the trie's token order (trie_sorted_tokens), ascending within a set"),
)
STORED_FIRST_USE_SECTIONS: tuple[SectionSpec, ...] = (
    SectionSpec("undecided_row", ("<i4",), ("n_undecided_sets",),
                "row of undecided_rows holding set k (its places then empty), or -1: set k is its places"),
    SectionSpec("undecided_rows", ("<u4",), ("n_undecided_rows", "n_trie_token_words"),
                "bitset rows in the trie's token order: bit i of word w is place 32*w+i; padding 0"),
    SectionSpec("loop_region_token_ids", ("<u4",), ("n_loops", "mask_words"),
                "bitset rows by token id (a mask row's layout): token t ends in loop k's region; padding 0"),
)
STORED_MEMO_SECTIONS: tuple[SectionSpec, ...] = (
    SectionSpec("memo_set_item_offsets", ("<i4",), ("n_memo_sets+1",), "set s's items: memo_set_items[offsets[s]:offsets[s+1]]"),
    SectionSpec("memo_set_items", ("<i4",), ("n_memo_items", 3), "rule, dot, origin set (an earlier set): incomplete items"),
    SectionSpec("memo_set_leo_offsets", ("<i4",), ("n_memo_sets+1",), "set s's Leo entries: memo_set_leo[offsets[s]:offsets[s+1]]"),
    SectionSpec("memo_set_leo", ("<i4",), ("n_memo_leo", 4), "symbol, top set (earlier), top symbol, passed S' -> start . (0/1)"),
    SectionSpec("memo_set_wanted_offsets", ("<i4",), ("n_memo_sets+1",), "set s's predicted nonterminals (CSR)"),
    SectionSpec("memo_set_wanted", ("<i4",), ("n_memo_wanted",), "nonterminal ids"),
    SectionSpec("memo_set_accepting", ("u1",), ("n_memo_sets",), "1 where the set holds S' -> start ."),
    SectionSpec("memo_scans", ("<i4",), ("n_memo_scans", 3), "set, terminal, the set after (-1: not expected there)"),
    SectionSpec("memo_config_thread_offsets", ("<i4",), ("n_memo_configs+1",), "configuration c's threads (CSR)"),
    SectionSpec("memo_config_threads", ("<i4",), ("n_memo_threads", 3), "origin set, terminal, lexer state of that terminal"),
    SectionSpec("memo_config_accepting", ("u1",), ("n_memo_configs",), "1 where eos is allowed"),
    SectionSpec("memo_transitions", ("<i4",), ("n_memo_transitions", 3), "configuration, byte class, the configuration after"),
    SectionSpec("memo_config_mask", ("<i4",), ("n_memo_configs",), "mask id of the configuration's whole mask"),
)
LANGUAGE_KEY_SECTIONS: tuple[SectionSpec, ...] = (
    SectionSpec("memo_language_keys", ("u1",), ("n_memo_languages", 16),
                "language keys (``languages``) of stored configurations, distinct"),
    SectionSpec("memo_language_mask", ("<i4",), ("n_memo_languages",), "mask id of each key's configurations"),
)
ITEM_MASK_SECTIONS: tuple[SectionSpec, ...] = (
    SectionSpec("item_key", ("<i4",), ("n_item_keys", 4), "lexer state, rule, dot, wanted set (``item_masks``): distinct"),
    SectionSpec("item_wanted_offsets", ("<i4",), ("n_item_wanted+1",), "wanted set w's nonterminals (CSR)"),
    SectionSpec("item_wanted", ("<i4",), ("n_item_wanted_ids",), "nonterminal ids, strictly increasing within a set"),
    SectionSpec("item_lower_mask", ("<i4",), ("n_item_keys",),
                "mask id of the state's undecided tokens the key's item allows in any context; -1: none"),
    SectionSpec("item_upper_set", ("<i4",), ("n_item_keys",),
                "undecided set id of the state's undecided tokens the key's item may allow"),
)
GRAMMAR_SECTIONS_V3: tuple[SectionSpec, ...] = GRAMMAR_SECTIONS_V2 + LOOP_REGION_SECTIONS
GRAMMAR_SECTIONS_V4: tuple[SectionSpec, ...] = GRAMMAR_SECTIONS_V3 + START_MASK_SECTIONS
GRAMMAR_SECTIONS_V5: tuple[SectionSpec, ...] = GRAMMAR_SECTIONS_V3 + UNDECIDED_SECTIONS + START_MASK_SECTIONS
GRAMMAR_SECTIONS_V6: tuple[SectionSpec, ...] = GRAMMAR_SECTIONS_V5 + STORED_FIRST_USE_SECTIONS
GRAMMAR_SECTIONS_V7: tuple[SectionSpec, ...] = GRAMMAR_SECTIONS_V6 + STORED_MEMO_SECTIONS
GRAMMAR_SECTIONS_V8: tuple[SectionSpec, ...] = GRAMMAR_SECTIONS_V7 + LANGUAGE_KEY_SECTIONS
LEXEME_PATH_SECTIONS: tuple[SectionSpec, ...] = (
    SectionSpec("path_states", ("<i4",), ("n_path_states",), "decomposed lexer states, strictly increasing"),
    SectionSpec("path_node_offsets", ("<i4",), ("n_path_states+1",), "state k's path nodes (CSR over path_nodes)"),
    SectionSpec("path_nodes", ("<i4",), ("n_path_nodes", 2),
                "parent (index local to the state, earlier; the root first: -1), terminal read from it (root: -1)"),
    SectionSpec("path_pair_offsets", ("<i4",), ("n_path_nodes+1",), "node j's pairs (CSR over path_pair_terminal)"),
    SectionSpec("path_pair_terminal", ("<i4",), ("n_path_pairs",), "the terminal of a thread alive after the node's path"),
    SectionSpec("path_group_offsets", ("<i4",), ("n_path_states+1",), "state k's token groups (CSR)"),
    SectionSpec("path_group_pair_offsets", ("<i4",), ("n_path_groups+1",), "group i's pairs (CSR over path_group_pairs)"),
    SectionSpec("path_group_pairs", ("<i4",), ("n_path_group_pairs",), "pair indices local to the group's state"),
    SectionSpec("path_group_token_offsets", ("<i4",), ("n_path_groups+1",), "group i's tokens (CSR over path_group_tokens)"),
    SectionSpec("path_group_tokens", ("<i4",), ("n_path_tokens",),
                "token ids, ascending within a group: the state's undecided tokens whose pairs are the group's"),
)
PATH_KEY_SECTIONS: tuple[SectionSpec, ...] = (
    SectionSpec("path_key_state", ("<i4",), ("n_path_keys",), "decomposed lexer state of each key; keys sorted by state, digest"),
    SectionSpec("path_key_digest", ("u1",), ("n_path_keys", 16),
                "language digest (``languages``) of the set the state's paths are scanned from"),
    SectionSpec("path_key_held_offsets", ("<i8",), ("n_path_keys+1",), "key k's bytes of path_key_held (CSR)"),
    SectionSpec("path_key_held", ("u1",), ("n_path_key_bytes",),
                "packed bits (little bit order), one per group of the key's state: 1 where the group holds; padding 0"),
)
GRAMMAR_SECTIONS_V11: tuple[SectionSpec, ...] = GRAMMAR_SECTIONS_V8 + ITEM_MASK_SECTIONS
GRAMMAR_SECTIONS_V12: tuple[SectionSpec, ...] = GRAMMAR_SECTIONS_V11 + LEXEME_PATH_SECTIONS
GRAMMAR_SECTIONS: tuple[SectionSpec, ...] = GRAMMAR_SECTIONS_V12 + PATH_KEY_SECTIONS
GRAMMAR_SECTIONS_BY_VERSION = {2: GRAMMAR_SECTIONS_V2, 3: GRAMMAR_SECTIONS_V3, 4: GRAMMAR_SECTIONS_V4,
                               5: GRAMMAR_SECTIONS_V5, 6: GRAMMAR_SECTIONS_V6, 7: GRAMMAR_SECTIONS_V7,
                               8: GRAMMAR_SECTIONS_V8, 9: GRAMMAR_SECTIONS_V8, 10: GRAMMAR_SECTIONS_V8,
                               11: GRAMMAR_SECTIONS_V11, 12: GRAMMAR_SECTIONS_V12, 13: GRAMMAR_SECTIONS}
GRAMMAR_SECTION_NAMES = tuple(spec.name for spec in GRAMMAR_SECTIONS)

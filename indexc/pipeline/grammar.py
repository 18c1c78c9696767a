"""A grammar constraint: Grammar IR -> lexer tables ahead of time + Earley tables (the live path).

Steps, each timed into ``CompileResult.timings``:
1. ``earley_tables.trimmed``: unproductive and unreachable rules out (warnings), empty language refused;
2. ``lexemes.build_lexer``: each terminal's minimal byte DFA, side by side;
3. ``lexemes.in_lexeme_masks``: the regex mask machinery over the lexer automaton;
4. ``earley_tables.build_tables``: rules as flat arrays;
5. ``boundary_masks``: "the rest of t, then u" products for wide u, masked by the same machinery;
6. ``grammar_table.build_grammar_table``: masks merged, the trie's walk arrays, every token's
   class sequence.

``compile_grammar`` reads Lark or GBNF text through the front end (``indexc.grammar.load_grammar``);
``compile_grammar_ir`` takes an IR built elsewhere (recursive JSON Schemas, tests).

The warm-up (format 7): the writer walks texts with the runtime and stores the parser memo and
masks of the positions it met (``indexc.artifact.warm_memo``): a JSON Schema's synthetic
instance, ``--warm-up FILE``, and for a Lark or GBNF grammar ``DEFAULT_WARM_UP_SAMPLES`` tokens of
sentences sampled from the grammar (``indexc.grammar.sentences``; ``--warm-up-samples``).
"""

from __future__ import annotations

import hashlib
import itertools
import time
from collections.abc import Iterable
from dataclasses import replace

import numpy as np

from indexc.automaton.byte_dfa import ByteDFA
from indexc.grammar.boundary_masks import MIN_WIDE_TOKENS, build_products, follow_pairs, text_enders
from indexc.grammar.earley_tables import build_tables, trimmed
from indexc.grammar.grammar_table import build_grammar_table
from indexc.grammar.ir import Grammar
from indexc.grammar.lexemes import TerminalDFAs, build_lexer, in_lexeme_masks
from indexc.grammar.longest_match import ends_by_longest_match, never_ending
from indexc.grammar.sentences import SentenceSampler
from indexc.grammar.undecided_tokens import undecided_masks, undecided_terminals
from indexc.limits import DEFAULT_WARM_UP_SAMPLES
from indexc.masks.compute import masks_of_states
from indexc.pipeline.collector import collector_paused
from indexc.pipeline.result import CompileOptions, CompileResult, elapsed_ms
from indexc.trie import TokenTrie
from indexc.vocab.model import Vocabulary
from indexc_runtime.grammar.format import LEXING_LONGEST_MATCH

MAX_SAMPLED_SENTENCES = 1024  # a grammar whose sentences are mostly empty still stops


@collector_paused()
def compile_grammar_ir(
    grammar: Grammar,
    vocab: Vocabulary,
    trie: TokenTrie,
    options: CompileOptions = CompileOptions(),
    *,
    source: str,
    min_wide_tokens: int | None = None,
    dfas: TerminalDFAs | None = None,
    warm_up: str | None = None,
    sampled_warm_up: int = 0,
    language_keys: bool = False,
) -> CompileResult:
    """IR -> ``GrammarTable`` (in ``CompileResult.table``); ``source`` is the text recorded in the header.

    ``warm_up``: a typical document, cut into tokens here (``warm_up_tokens``) and walked by the
    writer, whose parser memo and masks the artifact stores (format 7, ``indexc.artifact.warm_memo``):
    a JSON Schema's synthetic instance, or ``indexc compile --warm-up FILE``.  ``sampled_warm_up``:
    how many tokens of sampled sentences the writer walks after it (0: none).  ``language_keys``:
    the writer stores the walk's configurations' language keys too (format 8; a Lark or GBNF
    grammar's, not a JSON Schema's, where no gain was measured: ``indexc_runtime.grammar.languages``).

    ``min_wide_tokens``: lexemes whose start mask holds at least this many tokens get boundary
    masks (``boundary_masks``; 0 builds them for every pair, which tests use on small
    vocabularies).  None: every pair after the terminals that get undecided sets
    (``undecided_terminals``: every terminal of a lexer of at most ``MAX_UNDECIDED_STATES``
    states, else the smallest up to that many states), pairs into wide lexemes only
    (``MIN_WIDE_TOKENS``) after the others.  Given explicitly, the pairs follow it alone and
    the same terminals get sets where their pairs are complete.  ``dfas``: terminal DFAs the caller has
    already compiled (``lexemes.build_lexer``).
    """
    t0 = time.perf_counter()
    grammar.validate()
    rules, terminal_names, warnings = trimmed(grammar)
    terminals = [grammar.terminals[name] for name in terminal_names]
    lexer = build_lexer(terminals, max_states=options.max_states, source=grammar.source, dfas=dfas)
    longest = ends_by_longest_match(lexer) if grammar.lexing == LEXING_LONGEST_MATCH else None
    t1 = time.perf_counter()
    stage_timings: dict[str, float] = {}
    masks = in_lexeme_masks(lexer, trie, vocab, options.masks, timings=stage_timings)
    t2 = time.perf_counter()
    earley = build_tables(grammar, rules, terminal_names, lexer.nullable, warnings)
    follow = follow_pairs(earley)
    if longest is not None:
        warnings += [f"terminal {terminal_names[t]} never ends (longest match): every byte that may follow it extends "
                     "it, and it cannot end the text; masks there allow tokens that lead to no sentence"
                     for t in never_ending(lexer, longest, follow, text_enders(earley))]
    t3 = time.perf_counter()
    chosen = undecided_terminals(lexer)
    if min_wide_tokens is None:  # the command line's: every pair after the chosen terminals
        min_wide_tokens, every_follower = MIN_WIDE_TOKENS, chosen
    else:
        every_follower = None
    products, product_masks = _boundary_masks(lexer, masks, earley, follow, trie, vocab, options, min_wide_tokens,
                                              every_follower, longest)
    t4 = time.perf_counter()
    undecided = undecided_masks(lexer, follow, products.complete & chosen, masks.byte_classes,
                                masks.n_classes, trie, vocab, options.masks, longest,
                                frozenset(earley.ignore.tolist()))
    t5 = time.perf_counter()
    table = replace(build_grammar_table(lexer, masks, earley, trie, vocab, products, product_masks, undecided),
                    language_keys=language_keys, longest_match=longest)
    if warm_up is not None or sampled_warm_up:  # the sampler only where it is asked for (a schema gives 0)
        sentences = (SentenceSampler(grammar.start, rules, lexer, grammar.ignore, longest=longest).sentences()
                     if sampled_warm_up else ())
        table = replace(table, warm_up_tokens=warm_up_tokens(vocab, warm_up, sentences, sampled_warm_up),
                        warm_up_given=int(bool(warm_up)))
    t6 = time.perf_counter()
    constraint = {
        "kind": "grammar",
        "source": source,
        "sha256": hashlib.sha256(source.encode("utf-8")).hexdigest(),
        "path": "earley",
        "lexing": grammar.lexing,
        "warnings": [*grammar.warnings, *warnings],
    }
    timings = {"lexer_ms": elapsed_ms(t0, t1), "masks_ms": elapsed_ms(t1, t2), "earley_ms": elapsed_ms(t2, t3),
               "boundary_masks_ms": elapsed_ms(t3, t4), "undecided_ms": elapsed_ms(t4, t5),
               "tables_ms": elapsed_ms(t5, t6)}
    return CompileResult(table, constraint, options, timings, stage_timings)


def _boundary_masks(lexer, masks, earley, follow, trie, vocab, options, min_wide_tokens: int,
                    every_follower: np.ndarray | None, longest: np.ndarray | None):
    """The (t, u) product automata for wide ``u`` and after the ``every_follower`` terminals, and
    the masks of the pairs' start states: (products, (distinct masks, mask id per pair)), or
    (products, None) when there is no pair.
    Only the start states are walked from (a few hundred of the products' thousands of states)."""
    sizes = np.array([m.size for m in masks.masks], dtype=np.int64)[masks.state_mask[lexer.starts]]
    products = build_products(lexer, earley, follow, masks.byte_classes, masks.n_classes, sizes >= min_wide_tokens,
                              every_follower, longest)
    if not products.pair_state.size:
        return products, None
    silent = ByteDFA(products.transitions, np.zeros(products.transitions.shape[0], dtype=bool))
    return products, masks_of_states(silent, trie, vocab, products.pair_state, options.masks)


@collector_paused()
def compile_grammar(
    text: str,
    vocab: Vocabulary,
    trie: TokenTrie,
    options: CompileOptions = CompileOptions(),
    *,
    syntax: str | None = None,
    source: str = "<grammar>",
    warm_up: str | None = None,
    sampled_warm_up: int = DEFAULT_WARM_UP_SAMPLES,
) -> CompileResult:
    """Lark or GBNF text (``syntax``: ``"lark"``, ``"gbnf"`` or None to tell from ``source``) -> CompileResult
    (``warm_up``, ``sampled_warm_up``: see ``compile_grammar_ir``)."""
    from indexc.grammar import load_grammar  # the front ends' entry point

    grammar = load_grammar(text, syntax=syntax, source=source)
    return compile_grammar_ir(grammar, vocab, trie, options, source=text, warm_up=warm_up,
                              sampled_warm_up=sampled_warm_up, language_keys=True)


def warm_up_tokens(vocab: Vocabulary, text: str | None, sentences: Iterable[bytes] = (),
                   sampled: int = 0) -> np.ndarray:
    """The warm-up's token ids, each text ended by ``TEXT_END``: ``text``, then ``sentences`` up
    to ``sampled`` tokens more (the one that crosses it cut there; at most
    ``MAX_SAMPLED_SENTENCES`` drawn), ``MAX_WARM_UP_TOKENS`` in all.  Longest match: the
    compiler has no BPE merges, and a configuration depends on the text, not on its cut."""
    from indexc.artifact.warm_memo import MAX_WARM_UP_TOKENS, TEXT_END
    from indexc.vocab.greedy_tokens import greedy_token_ids

    end = np.array([TEXT_END], dtype=np.int32)
    out: list[np.ndarray] = []
    room = MAX_WARM_UP_TOKENS
    if text is not None:
        ids = greedy_token_ids(vocab, text.encode("utf-8"), limit=room)
        out += [ids, end] if ids.size else []
        room -= ids.size
    room = min(room, sampled)
    for sentence in itertools.islice(sentences, MAX_SAMPLED_SENTENCES):
        if room <= 0:
            break
        ids = greedy_token_ids(vocab, sentence, limit=room)
        out += [ids, end] if ids.size else []
        room -= ids.size
    return np.concatenate(out) if out else np.zeros(0, dtype=np.int32)

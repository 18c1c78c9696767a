"""The mask stage's driver: byte DFA + token trie -> MaskTable.

Order of work, each step its own module:
1. ``alphabet``: byte classes of the DFA (and the dead classes);
2. ``class_trie``: the token trie over classes, dead subtrees pruned;
3. ``traverse``: the level-by-level frontier walk, in chunks of origin states, in worker
   processes (joblib) when the estimated work is big enough to pay for them (a loky worker
   pool costs ~0.3-1 s to start, more than a whole small compile);
4. ``dedupe``: each state's mask (text tokens, plus the eos ids where it accepts) stored once;
5. ``token_sequences``: class sequences of the live tokens, for ``advance``.
"""

from __future__ import annotations

import os
import time

import numpy as np

from indexc.automaton.byte_dfa import ByteDFA
from indexc.masks.alphabet import ByteAlphabet, byte_alphabet
from indexc.masks.class_trie import ClassTrie, build_class_trie
from indexc.masks.dedupe import MaskInterner
from indexc.masks.options import MaskOptions
from indexc.masks.table import MaskTable
from indexc.masks.token_sequences import class_sequences
from indexc.masks.traverse import hit_sets_by_origin, tokens_of_nodes
from indexc.trie import TokenTrie
from indexc.vocab.model import Vocabulary

MAX_FRONTIER_PAIRS = 4_000_000  # per chunk: bounds the walk's memory to ~100 MB


def compute_mask_table(
    dfa: ByteDFA,
    trie: TokenTrie,
    vocab: Vocabulary,
    options: MaskOptions = MaskOptions(),
    *,
    timings: dict | None = None,
) -> MaskTable:
    """Every state's allowed tokens under the exact semantics of DESIGN.md.

    ``timings``, when given, receives the time of each step; it is kept out of the table so
    that identical inputs give byte-identical artifacts.
    """
    timings = {} if timings is None else timings
    t0 = time.perf_counter()
    alphabet = byte_alphabet(dfa, merge=options.byte_classes)
    walk_alphabet = alphabet if options.token_classes else byte_alphabet(dfa, merge=False)
    class_trie = build_class_trie(
        trie, walk_alphabet.class_of_byte, walk_alphabet.dead_class, prune_dead=options.dead_byte_pruning
    )
    timings["class_trie_ms"] = _ms_since(t0)

    t1 = time.perf_counter()
    per_state = _walk_all_states(class_trie, walk_alphabet, dfa.n_states, options)
    timings["walk_ms"] = _ms_since(t1)

    t2 = time.perf_counter()
    interner = MaskInterner()
    state_mask = np.array(
        [interner.add(hits, bool(dfa.accepting[state])) for state, hits in enumerate(per_state)], dtype=np.int32
    )
    masks = _expand_masks(class_trie, interner, vocab)
    live = _live_tokens(class_trie, interner, vocab.size)
    offsets, data = class_sequences(vocab, live, alphabet.class_of_byte)
    timings["tables_ms"] = _ms_since(t2)

    stats = {
        "states": dfa.n_states,
        "classes": alphabet.n_classes,
        "class_trie_nodes": class_trie.n_nodes,
        "pruned_tokens": class_trie.pruned_tokens,
        "unique_masks": len(masks),
        "live_tokens": int(live.size),
    }
    return MaskTable(
        byte_classes=alphabet.class_of_byte,
        class_transitions=alphabet.class_transitions,
        accepting=dfa.accepting.astype(bool),
        state_mask=state_mask,
        masks=masks,
        live_tokens=live.astype(np.int32),
        token_class_offsets=offsets,
        token_class_data=data,
        stats=stats,
    )


def _walk_all_states(
    class_trie: ClassTrie, alphabet: ByteAlphabet, n_states: int, options: MaskOptions
) -> list[np.ndarray]:
    """Hit set of every state, walking chunks of origins (in parallel when big)."""
    per_chunk = max(1, min(options.states_per_chunk, MAX_FRONTIER_PAIRS // max(1, class_trie.n_nodes)))
    chunks = [np.arange(lo, min(lo + per_chunk, n_states)) for lo in range(0, n_states, per_chunk)]
    jobs = options.jobs if options.jobs > 0 else (os.cpu_count() or 1)
    estimated_pairs = n_states * class_trie.n_nodes
    transitions = alphabet.class_transitions
    if jobs > 1 and len(chunks) > 1 and estimated_pairs >= options.parallel_min_pairs:
        from joblib import Parallel, delayed

        results = Parallel(n_jobs=min(jobs, len(chunks)))(
            delayed(hit_sets_by_origin)(class_trie, transitions, chunk) for chunk in chunks
        )
    else:
        results = [hit_sets_by_origin(class_trie, transitions, chunk) for chunk in chunks]
    return [tokens for chunk_result in results for tokens in chunk_result]


def _expand_masks(class_trie: ClassTrie, interner: MaskInterner, vocab: Vocabulary) -> tuple[np.ndarray, ...]:
    """Sorted token ids of each distinct mask: a scatter into one reused flag row, no sort."""
    eos = np.array(sorted(set(vocab.eos_ids)), dtype=np.int64)
    flags = np.zeros(vocab.size, dtype=bool)
    masks = []
    for hits, accepting in zip(interner.hit_sets, interner.accepting):
        tokens = tokens_of_nodes(class_trie, hits)
        flags[tokens] = True
        if accepting:
            flags[eos] = True
        ids = np.flatnonzero(flags).astype(np.int32)
        flags[ids] = False
        masks.append(ids)
    return tuple(masks)


def _live_tokens(class_trie: ClassTrie, interner: MaskInterner, vocab_size: int) -> np.ndarray:
    """Sorted ids of the text tokens in at least one mask (the ones ``advance`` can take)."""
    if not len(interner):
        return np.zeros(0, np.int32)
    nodes = np.unique(np.concatenate(interner.hit_sets))
    flags = np.zeros(vocab_size, dtype=bool)
    flags[tokens_of_nodes(class_trie, nodes)] = True
    return np.flatnonzero(flags).astype(np.int32)


def _ms_since(start: float) -> float:
    return round((time.perf_counter() - start) * 1000.0, 3)

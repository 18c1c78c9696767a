"""``warm_memo``: walk a warm-up text with the runtime and keep its parser memo (format 7).

The grammar writer plans the file's sections in memory (the version 6 ones and the lexeme
paths, format 12, with no stored memo or item bounds yet), loads them with ``indexc_runtime``
and walks the warm-up tokens (``GrammarTable.warm_up_tokens``: a JSON Schema's synthetic
instance, ``indexc.jsonschema.synthetic_instance``; a grammar's sampled sentences,
``indexc.grammar.sentences``; ``--warm-up FILE``; each text from the start) as a request
would: at each position the mask, then the token if the mask holds it.  What it keeps
(``StoredMemo.export``): every configuration at which it asked for a mask that a token may cross
(``_walk``), in first-seen order, that mask (distinct rows appended to the file's masks, encoded
as the in-lexeme ones are), the Earley sets those configurations need and the scans and
transitions between them.  Why these and not the whole memo, with figures:
``indexc_runtime.grammar.stored_memo``.

Limits: at most ``MAX_WARM_UP_TOKENS`` tokens in all (the pipeline cuts the texts to them, the
given text first, ``indexc.pipeline.grammar.warm_up_tokens``); a text's walk stops at the first
token its mask refuses (the synthetic instance does not honour every keyword); the whole walk
at a runtime limit (``GrammarLimitExceeded``) and before its memo holds half the limits (where
a matcher moves to a fresh memo); the sampled texts once the parser has made
``MAX_SAMPLED_WARM_UP_STEPS`` steps, and one of them past ``MAX_SAMPLED_TEXT_STEPS`` (the given
text is walked whole; ``stats.warm_up.steps`` says how many were made); what was walked up to
there is kept.
Then, for a grammar with a heavy lexer state, the given texts' item keys and their bounds
(format 11, ``indexc.artifact.item_masks``); and for a grammar (language keys), the lexeme-path rows
of every text's threads at every byte, keyed by language (format 13, ``indexc.artifact.path_keys``).
The walk is deterministic, so the same inputs give the same file.  Its cost is compile time:
16-2,266 ms a file on the 34 grammar-path files of every 4th MaskBench file (session 19),
reported by the compile (``warm_up_ms``, inside ``write_ms``); the header's stats say what was
walked and stored (``warm_up``: tokens given and walked, configurations, sets, masks; no time,
so that the same inputs give the same bytes).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, replace

import numpy as np

from indexc.artifact.item_masks import ItemSections, has_heavy_states, item_mask_sections, keys_of_config
from indexc.artifact.layout import plan_container
from indexc.artifact.mask_encoding import EncodedMasks, encode_masks, token_ids_of_row
from indexc.artifact.path_keys import MAX_PATH_KEY_PASS_STEPS, PathKeySections, keyed_path_rows, path_key_sections
from indexc_runtime.grammar.configs import DEAD
from indexc_runtime.grammar.errors import GrammarLimitExceeded
from indexc_runtime.grammar.format import GRAMMAR_FORMAT_VERSION, GRAMMAR_SECTIONS
from indexc_runtime.grammar.item_masks import ItemMasks
from indexc_runtime.grammar.languages import KEY_BYTES, LanguageKeys
from indexc_runtime.grammar.path_keys import empty_arrays as no_path_keys
from indexc_runtime.grammar.stored_memo import StoredMemo

MAX_WARM_UP_TOKENS = 2048
# Parser steps (``Configs.steps``) after which the sampled texts are walked no further (the given
# text is walked whole).  A bundled grammar's 2,048 sampled tokens cost 2k-15k steps (JSON 2.3k,
# arithmetic 2.4k, C 7.4k, RFC-XML 14.4k); lark.lark's, 123k (3.5 s of its compile: each of
# its masks meets new configurations for the tokens that end a name and start another).
MAX_SAMPLED_WARM_UP_STEPS = 20_480
MAX_SAMPLED_TEXT_STEPS = 2_048  # and one sampled text after this many: the next text's start is worth more
MAX_KEY_PASS_STEPS = 40_960  # parser steps of the item keys' pass over the texts (``_item_keys``)
TEXT_END = -1  # in the warm-up tokens: one text ends, the next is walked from the start


@dataclass(frozen=True)
class WarmUp:
    """What a warm-up gives the writer."""

    memo: StoredMemo
    stats: dict  # the header's ``stats.warm_up``
    ms: float
    rows: list[np.ndarray]  # the walk's row of each stored configuration (the writer's self-check)
    items: ItemSections  # the item bounds (format 11); ``items.masks``: the file's masks, the memo's and the bounds' appended
    paths: PathKeySections  # the path keys (format 13)


def warm_memo(fields: dict, arrays: dict[str, np.ndarray], masks: EncodedMasks, tokens: np.ndarray | None, *,
              language_keys: bool = False, given_texts: int = 0, item_keys: bool = False) -> WarmUp:
    """A walk of ``tokens`` over the version 6 ``arrays``; an empty memo and the masks unchanged
    when there are no tokens.  ``language_keys``: the memo also holds the stored configurations'
    language keys (``_languages``); ``given_texts``: how many of the first texts were given (walked
    whole; the sampled ones after them stop at ``MAX_SAMPLED_WARM_UP_STEPS``); ``item_keys``: then,
    for a grammar with heavy states (``has_heavy_states``), the item bounds of the keys the given
    texts meet (``indexc.artifact.item_masks``, the most met first), their masks after the memo's.
    Not the sampled texts': a sampled Lark file is no document's shape (rules of one item with
    deep expansions), and their keys, within a budget that keeps lark.lark's compile near 2 s,
    left its sample's p99 at 11-14 ms and its cold walk within noise (99 -> 69-84 ms) in the grammar
    bench, for +0.1-0.4 s of compile; a Lark file of another grammar as ``--warm-up`` took it to
    1.0-1.1 ms (the bench's ``lark-warm-up``; a JSON grammar in Lark syntax, no regex terminal:
    5.5 ms).  (Walking with the bounds made lark.lark's
    20,480 steps reach 1,828 of its 2,048 tokens instead of 520, but its sample's masks no faster,
    and the bounds must come first.)"""
    if tokens is None or not len(tokens):
        return WarmUp(StoredMemo.empty(), {}, 0.0, [], ItemSections.none(masks), PathKeySections.none())
    started = time.perf_counter()
    from indexc_runtime.grammar.matcher import shared_memo

    index = index_in_memory(fields, {**StoredMemo.empty().arrays(), **ItemMasks.empty().arrays(), **no_path_keys(),
                                     **arrays},
                            GRAMMAR_SECTIONS, GRAMMAR_FORMAT_VERSION)  # the lexeme paths read as the file's
    index.use_stored_memo = False
    index.origin_merge = fields.get("origin_merge")  # walked as the written file is read (format 9)
    memo = shared_memo(index, index.limits).current
    path_rows = keyed_path_rows(index, memo) if language_keys else None
    texts = _texts(tokens)
    rows, walked = _walk(index, memo, texts, given_texts)
    distinct: dict[bytes, int] = {}  # row bytes -> its place among the memo's masks
    mask_ids = [len(masks.form) + distinct.setdefault(row.tobytes(), len(distinct)) for row in rows.values()]
    stored = StoredMemo.export(memo.sets, memo.configs, list(rows), mask_ids)
    if language_keys:
        stored = replace(stored, **_languages(memo, list(rows), mask_ids))
    vocab_size = fields["vocab"]["size"]
    masks = masks.concatenated(encode_masks([token_ids_of_row(row, vocab_size) for row in distinct], vocab_size))
    stats = {"texts": len(texts), "tokens": sum(map(len, texts)), "walked": walked,
             "configurations": stored.n_configs, "sets": stored.n_sets,
             "masks": len(distinct),  # no time: the header stays byte-reproducible
             "steps": memo.configs.steps,
             **({"language_keys": stored.n_languages} if language_keys else {})}
    items = ItemSections.none(masks)
    if item_keys and given_texts and has_heavy_states(index):
        counts = _item_keys(index, memo, texts[:given_texts])
        items = item_mask_sections(index, sorted(counts, key=lambda key: -counts[key]), masks, arrays, vocab_size)
    paths = PathKeySections.none()
    if language_keys:  # a grammar's: the digests are the language keys'
        paths = path_key_sections(index, memo, (config for _, config in
                                                byte_positions(index, memo, texts, MAX_PATH_KEY_PASS_STEPS)),
                                  path_rows)
    return WarmUp(stored, stats, round((time.perf_counter() - started) * 1000, 3), list(rows.values()), items, paths)


def index_in_memory(fields: dict, arrays: dict[str, np.ndarray], specs, version: int):
    """The runtime's index of ``arrays``' sections of ``specs``, planned in memory as a version
    ``version`` file (the writer's start mask and this warm-up walk read the file being written so)."""
    from indexc_runtime.grammar.index import load_grammar_index

    plan = plan_container({**fields, "format_version": version}, {spec.name: arrays[spec.name] for spec in specs}, specs)
    return load_grammar_index(plan.to_bytes())


def _walk(index, memo, texts: list[list[int]], given_texts: int = 0) -> tuple[dict[int, np.ndarray], int]:
    """{configuration: its mask row} in first-seen order along the texts' tokens, and how many
    were taken.  Each text (``_texts``: a grammar's sampled sentences are several) is walked
    from the start by a new matcher on the same memo, up to the first token its mask refuses.

    A configuration whose mask is its precomputed masks' OR (no token may cross a lexeme
    boundary there: ``MaskWalker.part_one_only``) is left out: ~20 µs to compute (o39444's
    warm-up: 199 of its 976 masks, against ~214 µs a walked one), less than its storing costs.
    So is the start (the file's start mask, format 4).

    It stops before ``memo`` holds half its limits: the matcher would then move to a fresh memo
    (``GrammarMatcher._compact_if_large``), and the ids gathered so far would name another's; and
    in a sampled text (after the ``given_texts`` first) once the parser has made
    ``MAX_SAMPLED_WARM_UP_STEPS`` steps."""
    out = np.zeros((1, index.mask_words), dtype=np.int32)
    rows: dict[int, np.ndarray] = {}
    walked = 0
    try:
        for number, text in enumerate(texts):
            matcher = index.matcher()
            sampled, text_start = number >= given_texts, memo.configs.steps
            for token in text:
                if memo.is_large() or (sampled and memo.configs.steps > MAX_SAMPLED_WARM_UP_STEPS):
                    return rows, walked
                if sampled and memo.configs.steps - text_start > MAX_SAMPLED_TEXT_STEPS:
                    break
                cheap = memo.walker.part_one_only
                matcher.fill_bitmask(out)
                # a mask no token crosses is an OR of a few stored ones; the start's is stored already
                if memo.walker.part_one_only == cheap and matcher.state != memo.configs.initial:
                    rows.setdefault(matcher.state, out[0].copy())
                if not (int(out[0, token >> 5]) >> (token & 31)) & 1:
                    break
                matcher.advance(token)
                walked += 1
    except GrammarLimitExceeded:
        pass  # the memo holds what was made before the limit: kept
    return rows, walked


def _languages(memo, configs: list[int], mask_ids: list[int]) -> dict[str, np.ndarray]:
    """``language_keys`` and ``language_mask``: each stored configuration's language key
    (``indexc_runtime.grammar.languages``, over the walk's own memo; none past its budget) with
    its mask id, one entry a key, in key order.  Two configurations with one key and two masks
    would be a wrong key: an internal error (as the writer's self-check's), not a file."""
    keys = LanguageKeys.for_version(memo.configs, GRAMMAR_FORMAT_VERSION)
    table: dict[bytes, int] = {}
    for config, mask_id in zip(configs, mask_ids):
        key = keys.of(config)
        if key is not None and table.setdefault(key, mask_id) != mask_id:
            raise ValueError(f"internal error: language key {key.hex()} holds two masks: the key is not exact")
    ordered = sorted(table)
    return {"language_keys": np.frombuffer(b"".join(ordered), dtype=np.uint8).reshape(-1, KEY_BYTES),
            "language_mask": np.array([table[key] for key in ordered], dtype=np.int32)}


def byte_positions(index, memo, texts: list[list[int]], max_steps: int) -> Iterator[tuple[int, int]]:
    """``(text number, configuration)`` at every byte position of ``texts`` (each walked from the
    start, up to a byte the grammar refuses), on the warm-up walk's memo (the transitions it made
    are read again, not made).  Every position, not only the warm-up's token boundaries: a
    tokenizer may stop at any byte, and the warm-up's own tokens (longest match) rarely stop where
    a model's do (after ``:`` before `` expr``).  It stops after ``max_steps`` more parser steps
    or where the memo holds half its limits; a ``GrammarLimitExceeded`` of a step ends it."""
    configs = memo.configs
    last = configs.steps + max_steps
    try:
        for number, text in enumerate(texts):
            config = configs.initial
            for byte_class in (c for token in text for c in index._trie.token_classes(token)):
                if configs.steps > last or memo.is_large():
                    return
                yield number, config
                config = configs.next(config, byte_class)
                if config == DEAD:
                    break
    except GrammarLimitExceeded:
        return  # the positions met before the limit were given


def _item_keys(index, memo, texts: list[list[int]]) -> dict:
    """{item key: how many runs of positions met it} over every byte position of ``texts``
    (``byte_positions``, ``keys_of_config``).  No mask is computed: a few parser steps a new byte,
    at most ``MAX_KEY_PASS_STEPS``."""
    counts, known = {}, {}
    current, before = -1, frozenset()
    try:
        for number, config in byte_positions(index, memo, texts, MAX_KEY_PASS_STEPS):
            if number != current:
                current, before = number, frozenset()
            keys = known.get(config)
            if keys is None:
                keys = known[config] = frozenset(keys_of_config(index, memo, config))
            for key in keys - before:  # once per run: a string's every byte is one place to stop
                counts[key] = counts.get(key, 0) + 1
            before = keys
    except GrammarLimitExceeded:
        pass  # the keys met before the limit are kept
    return counts


def _texts(tokens: np.ndarray) -> list[list[int]]:
    """The texts of ``tokens``: split at ``TEXT_END`` (a last text need not end with one)."""
    texts, current = [], []
    for token in tokens.tolist():
        if token == TEXT_END:
            texts.append(current)
            current = []
        else:
            current.append(token)
    return [text for text in texts + [current] if text]

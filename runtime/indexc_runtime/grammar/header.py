"""Check a grammar artifact's msgpack header and bind its section shapes.

The common keys are checked as for a DFA artifact (format version, byte order, alignment,
vocabulary), with the same ``_Checker`` and section-entry checks (``indexc_runtime.header``),
then the grammar's counts, and every section of its version's table
(``GRAMMAR_SECTIONS_BY_VERSION``: 2 without the loop regions, 3 with them, 4 with the start mask,
5 with the undecided sets, 6 with the rows stored for first uses) against its spec:
dtype, rank, symbolic dimensions bound to the header's counts and to each other (and the
packed bit rows' widths to the node and token counts).  ``GrammarHeader``
has the attributes ``Container`` and ``MaskStore`` read (``sections``, ``dims``,
``vocab_size``), so both are reused as they are.
"""

from __future__ import annotations

from dataclasses import dataclass

from indexc_runtime.errors import ArtifactError
from indexc_runtime.format import ALIGNMENT, BYTE_ORDER, MAX_VOCAB_SIZE, mask_words
from indexc_runtime.grammar.format import (GRAMMAR_INDEX_KIND, GRAMMAR_SECTIONS_BY_VERSION, LEXING_ALL_SPLITS,
                                           LEXING_LONGEST_MATCH)
from indexc_runtime.header import SectionInfo, _Checker, _spec_table, parse_sections

_INT32_MAX = 2**31 - 1


@dataclass(frozen=True)
class GrammarHeader:
    raw: dict
    format_version: int
    vocab_size: int
    fingerprint: str
    eos_ids: tuple[int, ...]
    n_lexer_states: int
    n_classes: int
    n_masks: int
    n_terminals: int
    n_nonterminals: int
    n_rules: int
    terminal_names: tuple[str, ...]
    sections: dict[str, SectionInfo]  # in file order
    dims: dict[str, int]
    origin_merge: int | None = None  # version 9: ``OriginMerger``'s threshold; None: no merging
    # version 10: the terminals that end by longest match; None: all splits
    longest_match: tuple[int, ...] | None = None


def parse_grammar_header(raw: object, source: str) -> GrammarHeader:
    """Typed fields; ``ArtifactError`` naming the key for anything missing or out of range."""
    check = _Checker(source)
    top = check.mapping(raw, "header")
    version = check.integer(top, "format_version", 0, _INT32_MAX)
    specs = GRAMMAR_SECTIONS_BY_VERSION.get(version)
    if specs is None:
        raise ArtifactError(f"grammar format_version {version} is not supported (this runtime reads "
                            f"{', '.join(map(str, GRAMMAR_SECTIONS_BY_VERSION))})", source=source)
    if check.string(top, "index_kind") != GRAMMAR_INDEX_KIND:
        raise ArtifactError(f"index_kind {top['index_kind']!r} is not {GRAMMAR_INDEX_KIND!r}", source=source)
    if check.string(top, "byte_order") != BYTE_ORDER:
        raise ArtifactError(f"byte_order {top['byte_order']!r} is not {BYTE_ORDER!r}", source=source)
    if check.integer(top, "alignment", 1, 1 << 20) != ALIGNMENT:
        raise ArtifactError(f"alignment {top['alignment']} is not {ALIGNMENT}", source=source)
    lexing = _lexing(check, top)
    vocab = check.mapping(top.get("vocab"), "vocab")
    vocab_size = check.integer(vocab, "size", 1, MAX_VOCAB_SIZE, where="vocab.")
    fingerprint = check.string(vocab, "fingerprint", where="vocab.")
    eos_ids = check.integers(vocab, "eos_ids", 0, vocab_size - 1, where="vocab.")
    counts = {key: check.integer(top, key, 1, _INT32_MAX)
              for key in ("n_lexer_states", "n_masks", "n_terminals", "n_nonterminals", "n_rules")}
    n_classes = check.integer(top, "n_classes", 1, 256)
    names = top.get("terminal_names")
    if not isinstance(names, list) or len(names) != counts["n_terminals"] or not all(type(n) is str for n in names):
        raise check.fail("terminal_names must be a list of n_terminals strings")
    dims = {**counts, "n_classes": n_classes, "mask_words": mask_words(vocab_size), "vocab_size": vocab_size,
            "n_symbols": counts["n_terminals"] + counts["n_nonterminals"]}
    sections = parse_sections(top.get("sections"), specs, dims, check)
    _check_packed_widths(dims, source)
    origin_merge = check.integer(top, "origin_merge", 0, _INT32_MAX) if version >= 9 else None
    longest_match = (_longest_match_terminals(check, top, counts["n_terminals"])
                     if lexing == LEXING_LONGEST_MATCH else None)
    return GrammarHeader(top, version, vocab_size, fingerprint, eos_ids, counts["n_lexer_states"], n_classes,
                         counts["n_masks"], counts["n_terminals"], counts["n_nonterminals"], counts["n_rules"],
                         tuple(names), sections, dims, origin_merge, longest_match)


def _lexing(check: _Checker, top: dict) -> str:
    """The ``lexing`` rule.  The compiler writes ``"longest_match"`` from version 10 on; the
    writer's start mask is computed over version 3 sections of the same file, so the rule is
    read whatever the version (a file that names it is read by it)."""
    rules = (LEXING_ALL_SPLITS, LEXING_LONGEST_MATCH)
    lexing = check.string(top, "lexing", where="index_kind 'grammar' needs ")
    if lexing not in rules:
        raise check.fail(f"lexing {lexing!r:.40} is not supported (this runtime reads {', '.join(rules)})")
    return lexing


def _longest_match_terminals(check: _Checker, top: dict, n_terminals: int) -> tuple[int, ...]:
    """Under longest match, the ids of the terminals that end so, strictly increasing."""
    terminals = check.integers(top, "longest_match_terminals", 0, n_terminals - 1)
    if any(a >= b for a, b in zip(terminals, terminals[1:])):
        raise check.fail("longest_match_terminals must be strictly increasing")
    return tuple(terminals)




def _check_packed_widths(dims: dict[str, int], source: str) -> None:
    """A version 3 file's packed bit rows hold exactly one bit per trie node (per trie token), rounded
    up to bytes; a version 6 file's undecided rows one bit per trie token, rounded up to 32-bit words."""
    for packed, count, bits in (("n_node_bytes", "n_nodes", 8), ("n_trie_token_bytes", "n_trie_tokens", 8),
                                ("n_trie_token_words", "n_trie_tokens", 32)):
        if packed in dims and dims[packed] != -(-dims[count] // bits):
            expected = -(-dims[count] // bits)
            raise ArtifactError(f"{packed} is {dims[packed]}, expected ceil({count} / {bits}) = {expected}",
                                source=source)


for _specs in GRAMMAR_SECTIONS_BY_VERSION.values():  # at import, so that no load splits a symbol
    _spec_table(_specs)

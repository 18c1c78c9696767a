"""``diff_artifacts``: two artifacts -> every reachable state pair whose masks differ, with witnesses.

The steps: read both artifacts as the runtime serves them (``tables``, ``parser_tables``), map
their tokens into one space (``token_space``), walk the product of their automata
breadth-first (``product`` for two DFA artifacts, every reachable pair; ``bounded_product``
when a side is a grammar artifact, up to ``max_pairs`` pairs and along the given ``texts``),
then compare the two masks of every pair met.  Masks are stored deduplicated (a grammar
side's rows numbered by content), so the pairs are grouped by their (mask of A, mask of B)
combination and each combination is compared once; pairs are reported in breadth-first order,
so the first ones listed have the shortest witnesses (after the prefixes of given texts, which
come first).  The language check comes from the same walk: the first pair where exactly one
side accepts gives a shortest text that one artifact accepts and the other does not.

``limit`` caps what is *listed* (pairs, and tokens per pair and per side); the totals always
count everything.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from indexc.diff.bounded_product import DEFAULT_MAX_PAIRS, walk_bounded
from indexc.diff.product import ProductWalk, walk_product
from indexc.diff.progress import Progress
from indexc.diff.tables import ArtifactTables, read_tables
from indexc.diff.token_space import TokenSpace
from indexc.vocab.model import Vocabulary

DEFAULT_LIMIT = 10


@dataclass
class PairDiff:
    """One reachable pair of states whose masks differ."""

    witness: bytes  # a shortest text leading A to ``state_a`` and B to ``state_b``
    state_a: int | None  # None: A's automaton is dead after the witness
    state_b: int | None
    only_a: list[str]  # tokens A allows and B does not (labels, at most ``limit``)
    only_b: list[str]
    n_only_a: int
    n_only_b: int


@dataclass
class ArtifactDiff:
    path_a: str
    path_b: str
    fingerprint_a: str
    fingerprint_b: str
    same_vocabulary: bool
    reachable_pairs: int
    differing_pairs: int
    tokens_only_a: int  # summed over differing pairs
    tokens_only_b: int
    pairs: list[PairDiff] = field(default_factory=list)  # the first ``limit``, shortest witness first
    accepted_only_by: str | None = None  # "A" or "B": who accepts ``accepted_witness``
    accepted_witness: bytes | None = None
    vocab_only_a: list[str] = field(default_factory=list)  # tokens only A's vocabulary has (labels)
    vocab_only_b: list[str] = field(default_factory=list)
    n_vocab_only_a: int = 0
    n_vocab_only_b: int = 0
    constraint_a: dict = field(default_factory=dict)
    constraint_b: dict = field(default_factory=dict)
    complete: bool = True  # every reachable pair was compared (False: the bounded walk stopped at ``max_pairs``)
    max_pairs: int | None = None  # the bounded walk's bound (None: two DFA artifacts, walked to the end)

    @property
    def identical(self) -> bool:
        """Same masks in every reachable state, same language, same tokens on both sides."""
        return (not self.differing_pairs and self.accepted_witness is None
                and not self.n_vocab_only_a and not self.n_vocab_only_b)


def diff_artifacts(path_a: str, path_b: str, *, vocab_a: Vocabulary | None = None, vocab_b: Vocabulary | None = None,
                   limit: int = DEFAULT_LIMIT, max_pairs: int = DEFAULT_MAX_PAIRS,
                   texts: tuple[bytes, ...] = (), progress: Progress | None = None) -> ArtifactDiff:
    """Compare two artifacts (``DiffError`` when they cannot be compared).  ``max_pairs`` and
    ``texts`` apply when a side is a grammar artifact (``bounded_product``); two DFA artifacts
    are compared in every reachable pair, which covers every text.  ``progress(what, done,
    total)`` hears of a grammar side's slow parts: the pairs its search finds, its masks."""
    a, b = read_tables(path_a), read_tables(path_b)
    space = TokenSpace(a, b, vocab_a, vocab_b)
    report = ArtifactDiff(str(path_a), str(path_b), a.fingerprint, b.fingerprint, space.same_vocabulary,
                          0, 0, 0, 0, constraint_a=_constraint(a.header), constraint_b=_constraint(b.header))
    if isinstance(a, ArtifactTables) and isinstance(b, ArtifactTables):
        walk = walk_product(a, b)
    else:
        bounded = walk_bounded(a, b, max_pairs=max_pairs, texts=texts, progress=progress)
        walk, report.complete, report.max_pairs = bounded.walk, bounded.complete, bounded.max_pairs
    report.reachable_pairs = walk.size
    masks_a, masks_b = a.masks_of(walk.state_a, progress), b.masks_of(walk.state_b, progress)
    _compare_masks(report, walk, space, masks_a, masks_b, limit)
    _compare_languages(report, walk, a.accepting_of(walk.state_a), b.accepting_of(walk.state_b))
    report.n_vocab_only_a, report.n_vocab_only_b = int(space.only_a.size), int(space.only_b.size)
    report.vocab_only_a = [space.a.label(int(t)) for t in space.only_a[:limit]]
    report.vocab_only_b = [space.b.label(int(t)) for t in space.only_b[:limit]]
    return report


def _compare_masks(report: ArtifactDiff, walk: ProductWalk, space: TokenSpace, masks_a: np.ndarray,
                   masks_b: np.ndarray, limit: int) -> None:
    combos, combo_of_pair = np.unique(np.stack([masks_a, masks_b], axis=1), axis=0, return_inverse=True)
    differences = {}
    for number, (mask_a, mask_b) in enumerate(combos.tolist()):
        keys_a, keys_b = space.keys_a(mask_a), space.keys_b(mask_b)
        only_a = np.setdiff1d(keys_a, keys_b, assume_unique=True)
        only_b = np.setdiff1d(keys_b, keys_a, assume_unique=True)
        if only_a.size or only_b.size:
            differences[number] = (space.ids_a(only_a), space.ids_b(only_b))
    differing = np.flatnonzero(np.isin(combo_of_pair.ravel(), list(differences)))
    report.differing_pairs = int(differing.size)
    for pair in differing.tolist():
        ids_a, ids_b = differences[int(combo_of_pair.ravel()[pair])]
        report.tokens_only_a += int(ids_a.size)
        report.tokens_only_b += int(ids_b.size)
        if len(report.pairs) < limit:
            report.pairs.append(PairDiff(
                witness=walk.witness(pair),
                state_a=_state(walk.state_a[pair], space.a.tables.dead),
                state_b=_state(walk.state_b[pair], space.b.tables.dead),
                only_a=[space.a.label(int(t)) for t in ids_a[:limit]],
                only_b=[space.b.label(int(t)) for t in ids_b[:limit]],
                n_only_a=int(ids_a.size),
                n_only_b=int(ids_b.size),
            ))


def _compare_languages(report: ArtifactDiff, walk: ProductWalk, accepting_a: np.ndarray,
                       accepting_b: np.ndarray) -> None:
    mismatch = np.flatnonzero(accepting_a != accepting_b)
    if mismatch.size:
        first = int(mismatch[0])  # breadth-first order: a shortest such text (a given text's prefix comes first)
        report.accepted_witness = walk.witness(first)
        report.accepted_only_by = "A" if accepting_a[first] else "B"


def _state(state: int, dead: int) -> int | None:
    return None if int(state) == dead else int(state)


def _constraint(header: dict) -> dict:
    constraint = header.get("constraint") or {}
    return {key: constraint.get(key) for key in ("kind", "sha256", "path")}

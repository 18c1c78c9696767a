"""The header's content: what the artifact was built from and with, in canonical form.

Identical inputs must give byte-identical artifacts (so builds are reproducible and a diff of
two files means a real change): the header therefore holds no time, host or path, every map
is written with its keys sorted, tuples become lists and numpy scalars plain numbers.  Values
other than None, bool, int, float, str and lists / string-keyed maps of them are refused: a
header is data for any msgpack reader, never an encoded Python object.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

import numpy as np

from indexc import __version__
from indexc_runtime.format import ALIGNMENT, BYTE_ORDER, FORMAT_VERSION, INDEX_KIND


def common_fields(*, format_version: int, index_kind: str, vocab: dict, constraint: Mapping,
                  options: Mapping, stats: Mapping) -> dict:
    """The keys every artifact kind (regex DFA, grammar) starts its header with."""
    return {
        "format_version": format_version,
        "index_kind": index_kind,
        "compiler_version": __version__,
        "byte_order": BYTE_ORDER,
        "alignment": ALIGNMENT,
        "vocab": vocab,
        "constraint": checked_constraint(constraint),
        "options": canonical(options, "options"),
        "stats": canonical(stats, "stats"),
    }


def header_fields(*, vocab: dict, constraint: Mapping, options: Mapping, stats: Mapping,
                  n_states: int, n_classes: int, n_masks: int, token_class_rows: str) -> dict:
    """Every header key of a regex artifact except ``sections`` (the layout adds that one)."""
    return {
        **common_fields(format_version=FORMAT_VERSION, index_kind=INDEX_KIND, vocab=vocab, constraint=constraint,
                        options=options, stats=stats),
        "n_states": n_states,
        "n_classes": n_classes,
        "n_masks": n_masks,
        "start_state": 0,
        "token_class_rows": token_class_rows,
    }


def checked_constraint(constraint: Mapping) -> dict:
    """``kind`` and ``source`` required; ``sha256`` of the source's UTF-8 added or checked."""
    kind, source = constraint.get("kind"), constraint.get("source")
    if not isinstance(kind, str) or not isinstance(source, str):
        raise ValueError("constraint needs a string 'kind' (e.g. 'regex') and a string 'source'")
    digest = hashlib.sha256(source.encode("utf-8")).hexdigest()
    if constraint.get("sha256", digest) != digest:
        raise ValueError(f"constraint sha256 {constraint['sha256']!r} is not the hash of its source ({digest})")
    return canonical({**constraint, "sha256": digest}, "constraint")


def canonical(value: object, where: str) -> object:
    """``value`` with sorted maps, lists for tuples, Python numbers for numpy scalars."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value)
    if isinstance(value, Mapping):
        if not all(isinstance(key, str) for key in value):
            raise ValueError(f"{where}: map keys must be strings")
        return {key: canonical(value[key], f"{where}.{key}") for key in sorted(value)}
    if isinstance(value, (list, tuple)):
        return [canonical(item, f"{where}[{i}]") for i, item in enumerate(value)]
    raise ValueError(f"{where}: {type(value).__name__} cannot go into an artifact header")

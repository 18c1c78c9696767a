"""Which ids end a sequence: a set, because chat models stop on more than one token.

The rule, in order:
1. ``eos_ids`` given by the caller (``--eos``) replace everything below; each must be an id
   of the vocabulary.
2. Otherwise the set is the union of
   - the ids the file declares: a GGUF file's ``tokenizer.ggml.eos_token_id``,
     ``eot_token_id`` and ``eom_token_id``;
   - the tokenizer_config.json's ``eos_token``, looked up by its text (special tokens first,
     then any token);
   - every *special* token whose text is one of ``WELL_KNOWN_END_TOKENS``.  A chat model ends a
     turn with one token and its base model ends a document with another (Llama-3:
     ``<|end_of_text|>`` 128001 and ``<|eot_id|>`` 128009; Qwen2: ``<|endoftext|>`` 151643 and
     ``<|im_end|>`` 151645), and the config names only one of them.  Only special tokens count:
     a text token spelled ``</s>`` produces text.

Allowing an extra end token costs little (a mask allows it only in accepting states);
missing one makes a constrained model unable to stop the way it was trained to.  The set may
be empty (a synthetic vocabulary); then no mask allows ending.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from indexc.errors import VocabularyError
from indexc.vocab.model import TokenKind

WELL_KNOWN_END_TOKENS = (
    "<|eot_id|>",
    "<|end_of_text|>",
    "<|im_end|>",
    "<|endoftext|>",
    "</s>",
    "<|end|>",
    "<end_of_turn>",
    "<|eom_id|>",
)


def resolve_eos_ids(
    names: Sequence[str],
    kinds: np.ndarray,
    *,
    override: Iterable[int] | None,
    declared_ids: Iterable[int] = (),
    config_eos: str | None = None,
    source: str,
    config_source: str | None = None,
) -> set[int]:
    """The eos set of a vocabulary whose tokens are ``names``/``kinds`` (see the module rule)."""
    size = len(names)
    if override is not None:
        return {_checked_id(i, size, "eos", source) for i in override}
    eos = {_checked_id(i, size, "declared eos", source) for i in declared_ids}
    special_ids = np.flatnonzero(kinds == TokenKind.SPECIAL).tolist()
    special_by_name = {names[i]: i for i in reversed(special_ids)}
    if config_eos is not None:
        eos.add(_id_of_name(config_eos, names, special_by_name, config_source or source))
    eos.update(special_by_name[name] for name in WELL_KNOWN_END_TOKENS if name in special_by_name)
    return eos


def _checked_id(token_id: int, size: int, what: str, source: str) -> int:
    if not isinstance(token_id, (int, np.integer)) or not 0 <= token_id < size:
        raise VocabularyError(f"{what} id {token_id!r} is not a token id (the vocabulary has {size})",
                              source=source)
    return int(token_id)


def _id_of_name(name: str, names: Sequence[str], special_by_name: dict[str, int], source: str) -> int:
    if name in special_by_name:
        return special_by_name[name]
    try:
        return names.index(name)
    except ValueError:
        raise VocabularyError(f"eos_token {name!r} is not a token of the tokenizer", source=source) from None

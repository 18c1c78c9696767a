"""Which rules spell a HF tokenizer.json's tokens, decided from the file's content.

A file name says nothing reliable (``tokenizer.json`` is every family's name), so the family is
read from the pipeline the file describes:

- the model: ``model.type`` ("BPE", "Unigram", ...); the older serialization has no ``type``
  and is recognised by its shape, as ``tokenizers`` does (``vocab`` as ``[piece, score]``
  pairs plus ``unk_id``: Unigram; ``vocab`` object plus ``merges``: BPE);
- the spelling of spaces and bytes: a ``ByteLevel`` pre-tokenizer or decoder means the GPT-2
  byte map; ``Metaspace`` (pre-tokenizer or decoder), a normaliser that replaces ``" "`` with
  ``▁`` or prepends ``▁``, or a decoder that replaces ``▁`` means SentencePiece spelling;
- byte fallback: the model's ``byte_fallback`` flag or a ``ByteFallback`` decoder.

Families: ``byte-level-bpe`` (GPT-2, Llama-3, Qwen2), ``sentencepiece-bpe`` (Llama-2, Mistral)
and ``unigram`` (T5; always SentencePiece spelling).

Not supported, with the reason in the error: WordPiece and WordLevel (BERT-style tokenizers drop
spaces and mark word continuations with ``##``, so a token has no fixed bytes), BPE with a
continuing-subword prefix or end-of-word suffix (CLIP's ``</w>``: same problem), BPE that
spells text neither way (its spaces have no token), and byte-level Unigram.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from indexc.errors import VocabularyError

BYTE_LEVEL_BPE = "byte-level-bpe"
SENTENCEPIECE_BPE = "sentencepiece-bpe"
UNIGRAM = "unigram"

METASPACE = "\u2581"


@dataclass(frozen=True)
class HfFamily:
    name: str  # one of the family constants above
    model_type: str  # "BPE" or "Unigram"
    byte_fallback: bool  # `<0xNN>` pieces are raw bytes


def detect_family(doc: dict[str, Any], source: str) -> HfFamily:
    """The family of a parsed tokenizer.json (``doc``), or a VocabularyError saying why not."""
    model = doc.get("model")
    if not isinstance(model, dict):
        raise VocabularyError('not a HF tokenizer.json: no "model" object', source=source)
    model_type = _model_type(model, source)
    byte_level = _has_component(doc.get("pre_tokenizer"), {"ByteLevel"}) or _has_component(
        doc.get("decoder"), {"ByteLevel"}
    )
    metaspace = _uses_metaspace(doc)
    byte_fallback = bool(model.get("byte_fallback")) or _has_component(doc.get("decoder"), {"ByteFallback"})

    if model_type == "Unigram":
        if byte_level:
            raise VocabularyError("a byte-level Unigram tokenizer is not supported", source=source)
        return HfFamily(UNIGRAM, model_type, byte_fallback)
    if model.get("continuing_subword_prefix") or model.get("end_of_word_suffix"):
        raise VocabularyError(
            "BPE with a continuing-subword prefix or end-of-word suffix is not supported: "
            "its tokens have no fixed bytes",
            source=source,
        )
    if byte_level:
        return HfFamily(BYTE_LEVEL_BPE, model_type, False)
    if metaspace or byte_fallback:
        return HfFamily(SENTENCEPIECE_BPE, model_type, byte_fallback)
    raise VocabularyError(
        "BPE tokenizer with neither ByteLevel nor Metaspace spelling: spaces have no token, "
        "so tokens have no fixed bytes (not supported)",
        source=source,
    )


def _model_type(model: dict[str, Any], source: str) -> str:
    declared = model.get("type")
    if declared is None:
        vocab = model.get("vocab")
        if isinstance(vocab, list) and "unk_id" in model:
            return "Unigram"
        if isinstance(vocab, dict) and "merges" in model:
            return "BPE"
        raise VocabularyError('the model has no "type" and is neither BPE nor Unigram', source=source)
    if declared in ("BPE", "Unigram"):
        return declared
    if declared in ("WordPiece", "WordLevel"):
        raise VocabularyError(
            f"{declared} tokenizers are not supported: they drop spaces between tokens, "
            "so a token has no fixed bytes",
            source=source,
        )
    raise VocabularyError(f"unknown model type {declared!r}", source=source)


def _components(node: Any) -> list[dict[str, Any]]:
    """A pipeline stage flattened: a Sequence's members, else the node itself."""
    if not isinstance(node, dict):
        return []
    members = node.get("pretokenizers") or node.get("decoders") or node.get("normalizers")
    if node.get("type") == "Sequence" and isinstance(members, list):
        return [leaf for member in members for leaf in _components(member)]
    return [node]


def _has_component(node: Any, types: set[str]) -> bool:
    return any(part.get("type") in types for part in _components(node))


def _uses_metaspace(doc: dict[str, Any]) -> bool:
    if _has_component(doc.get("pre_tokenizer"), {"Metaspace"}):
        return True
    if _has_component(doc.get("decoder"), {"Metaspace"}):
        return True
    for part in _components(doc.get("normalizer")):
        if part.get("type") == "Prepend" and part.get("prepend") == METASPACE:
            return True
        if part.get("type") == "Replace" and part.get("content") == METASPACE:
            return True
    return any(
        part.get("type") == "Replace" and part.get("pattern") == {"String": METASPACE}
        for part in _components(doc.get("decoder"))
    )

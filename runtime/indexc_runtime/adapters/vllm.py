"""vLLM-shaped adapters: a per-request logits processor and a structured-output backend.

vLLM is not a dependency (nor installed in the tests): these classes follow the shapes its
documentation and source define, duck-typed, so that a vLLM deployment can register them and
the tests can drive them with plain tensors exactly as vLLM would.

``IndexcLogitsProcessor`` is the per-request processor of ``SamplingParams.logits_processors``
(vLLM's ``LogitsProcessor`` type alias: ``(output_token_ids: list[int], logits: Tensor) ->
Tensor``, called once per step with the tokens this request has generated so far and its
``(vocab,)`` logits row; vLLM picks the two-argument form from the signature).  The processor
keeps the tokens its matcher has consumed and, on each call, rolls back to the common prefix
with ``output_token_ids`` (a preempted and recomputed request, or a rejected speculative
draft) and advances on the rest, then masks the row in place.

``IndexcBackend`` / ``IndexcGrammar`` have the shape of vLLM's engine-level
``StructuredOutputBackend`` (``vllm_config``, ``tokenizer``, ``vocab_size``;
``compile_grammar(request_type, grammar_spec)``, ``allocate_token_bitmask(max_num_seqs)``,
``destroy()``) and request-level ``StructuredOutputGrammar`` (``accept_tokens(request_id,
tokens) -> bool``, ``validate_tokens(tokens) -> list[int]``, ``rollback(num_tokens)``,
``fill_bitmask(bitmask, idx)``, ``is_terminated()``, ``reset()``, ``find_jump_string()``).
indexc compiles ahead of time, so ``compile_grammar`` does not compile: it looks the
constraint up in an ``ArtifactCatalog`` (a folder of artifacts, keyed by the kind and the
sha256 of the source text each header records; a JSON Schema also by its canonical JSON) and
raises ``KeyError`` naming the missing constraint, which a deployment may catch to fall back
to another backend.  ``request_type`` is vLLM's ``StructuredOutputOptions`` member (``REGEX``,
``JSON``, ``GRAMMAR``) or its name; ``CHOICE``, ``JSON_OBJECT`` and structural tags are not
served (compile them as a regex, a schema or a grammar).

The bitmask vLLM allocates through the backend is ``(max_num_seqs, ceil(vocab_size / 32))``
int32 on the CPU, all ones, with ``vocab_size`` the model's (padded) vocabulary;
``fill_bitmask`` writes a row through a numpy view of it, padding words zeroed.  A terminated
request's row allows the artifact's stop ids only (what vLLM's llguidance backend does too),
so a row is never all -inf.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

import indexc_runtime
from indexc_runtime.batch import fill_bitmasks
from indexc_runtime.logits import allow_tokens, apply_bitmask

REQUEST_KINDS = {"REGEX": "regex", "JSON": "json_schema", "GRAMMAR": "grammar"}
ARTIFACT_SUFFIXES = (".idx", ".idx.zst")


class IndexcLogitsProcessor:
    """vLLM's per-request logits processor: ``processor(output_token_ids, logits) -> logits``."""

    def __init__(self, index):
        self._matcher = index.matcher()
        self._stops = index.eos_token_ids
        self._consumed: list[int] = []
        self._row = np.zeros((1, index.mask_words), dtype=np.int32)

    def __call__(self, output_token_ids: list[int], logits):
        """Catch up with ``output_token_ids`` (rolling back what differs), then mask ``logits`` in place."""
        self._sync(output_token_ids)
        fill_bitmasks([self._matcher], self._row)
        if self._matcher.is_finished():
            allow_tokens(self._row[0], self._stops)
        return apply_bitmask(logits, self._row[0])

    def _sync(self, tokens: Sequence[int]) -> None:
        common = 0
        for mine, theirs in zip(self._consumed, tokens):
            if mine != theirs:
                break
            common += 1
        if common < len(self._consumed):
            self._matcher.rollback(len(self._consumed) - common)
            del self._consumed[common:]
        for token in tokens[common:]:
            if self._matcher.is_finished():
                break
            self._matcher.advance(token)
            self._consumed.append(token)


@dataclass
class IndexcGrammar:
    """One request's constraint, in the shape of vLLM's ``StructuredOutputGrammar``."""

    index: object
    matcher: object = None

    def __post_init__(self):
        if self.matcher is None:
            self.matcher = self.index.matcher()

    def accept_tokens(self, request_id: str, tokens: list[int]) -> bool:
        """Advance on all of ``tokens``, or on none of them and return False."""
        if len(self.validate_tokens(tokens)) < len(tokens):
            return False
        for token in tokens:
            self.matcher.advance(token)
        return True

    def validate_tokens(self, tokens: list[int]) -> list[int]:
        """The longest prefix of ``tokens`` the constraint accepts (no state change)."""
        count = _acceptable_count(self.matcher, tokens)
        return list(tokens[:count])

    def rollback(self, num_tokens: int) -> None:
        self.matcher.rollback(num_tokens)

    def fill_bitmask(self, bitmask, idx: int) -> None:
        """Write the request's mask into row ``idx`` of vLLM's bitmask (a CPU int32 tensor, or a numpy array)."""
        rows = bitmask.numpy() if hasattr(bitmask, "numpy") else bitmask
        words = self.index.mask_words
        rows[idx, words:] = 0  # ids of the model's padded vocabulary
        row = rows[idx : idx + 1, :words]
        fill_bitmasks([self.matcher], row)
        if self.matcher.is_finished():
            allow_tokens(row[0], self.index.eos_token_ids)

    def is_terminated(self) -> bool:
        return self.matcher.is_finished()

    def reset(self) -> None:
        self.matcher.reset()

    def find_jump_string(self) -> str | None:
        """The text the constraint forces next (``None`` if none, or if it is not whole UTF-8)."""
        forced = getattr(self.matcher, "forced_bytes", None)
        data = forced() if forced is not None else b""
        try:
            return data.decode("utf-8") if data else None
        except UnicodeDecodeError:
            return None


class ArtifactCatalog:
    """Compiled artifacts found by the constraint they serve: (kind, sha256 of the source text) -> path."""

    def __init__(self, folder: str | os.PathLike, *, expected_fingerprint: str | None = None):
        self.folder = Path(folder)
        self.expected_fingerprint = expected_fingerprint
        self._paths: dict[tuple[str, str], Path] = {}
        self._loaded: dict[Path, object] = {}
        for path in sorted(self.folder.rglob("*")):
            if path.is_file() and path.name.endswith(ARTIFACT_SUFFIXES):
                self._add(path)

    def __len__(self) -> int:
        return len(set(self._paths.values()))

    def index_for(self, kind: str, source: str):
        """The loaded Index of the artifact compiled from ``source`` (``KeyError`` if there is none)."""
        path = self._paths.get((kind, _sha256(source)))
        if path is None and kind == "json_schema":
            path = self._paths.get((kind, _sha256(_canonical_json(source) or "")))
        if path is None:
            raise KeyError(f"no {kind} artifact in {self.folder} compiled from {source[:80]!r}: "
                           "compile it first (indexc compile / make compile)")
        if path not in self._loaded:
            self._loaded[path] = indexc_runtime.load(path, expected_fingerprint=self.expected_fingerprint)
        return self._loaded[path]

    def _add(self, path: Path) -> None:
        constraint = indexc_runtime.load(path).header.get("constraint") or {}
        kind, source = constraint.get("kind"), constraint.get("source")
        if not isinstance(kind, str) or not isinstance(source, str):
            return
        self._paths[(kind, _sha256(source))] = path
        canonical = _canonical_json(source) if kind == "json_schema" else None
        if canonical is not None:
            self._paths.setdefault((kind, _sha256(canonical)), path)


@dataclass
class IndexcBackend:
    """vLLM's ``StructuredOutputBackend`` shape, serving precompiled artifacts from a catalog."""

    vllm_config: object
    tokenizer: object
    vocab_size: int
    catalog: ArtifactCatalog = field(default=None)

    def __post_init__(self):
        if self.catalog is None:
            self.catalog = ArtifactCatalog(os.environ.get("INDEXC_ARTIFACTS", "artifacts"))

    def compile_grammar(self, request_type, grammar_spec: str) -> IndexcGrammar:
        name = getattr(request_type, "name", request_type)
        kind = REQUEST_KINDS.get(str(name).upper())
        if kind is None:
            raise ValueError(f"indexc serves {', '.join(REQUEST_KINDS)} requests, not {name}")
        index = self.catalog.index_for(kind, grammar_spec)
        if index.mask_words > _words(self.vocab_size):
            raise ValueError(f"the artifact's vocabulary ({index.vocab_size} ids) is larger than the model's "
                             f"({self.vocab_size})")
        return IndexcGrammar(index)

    def allocate_token_bitmask(self, max_num_seqs: int):
        import torch  # vLLM's own dependency; only a caller that has it asks for a tensor

        return torch.full((max_num_seqs, _words(self.vocab_size)), -1, dtype=torch.int32)

    def destroy(self) -> None:
        self.catalog = None


def _acceptable_count(matcher, tokens: Sequence[int]) -> int:
    """``matcher.validate_tokens`` where it exists; otherwise advance and roll back (same answer)."""
    validate = getattr(matcher, "validate_tokens", None)
    if validate is not None:
        return validate(tokens)
    count = 0
    try:
        for token in tokens:
            matcher.advance(token)
            count += 1
    except ValueError:
        pass
    matcher.rollback(count)
    return count


def _words(vocab_size: int) -> int:
    return (vocab_size + 31) // 32


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _canonical_json(text: str) -> str | None:
    try:
        return json.dumps(json.loads(text), sort_keys=True, separators=(",", ":"))
    except ValueError:
        return None

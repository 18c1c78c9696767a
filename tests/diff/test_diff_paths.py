"""One JSON Schema, both paths, Llama-3: the DFA artifact and the grammar artifact serve the same masks.

The example schemas (``schemas/``, what ``make compile`` builds) compiled with ``--mode dfa`` and
``--mode cfg`` are compared by ``indexc diff`` in every reachable state pair: a regular schema's
grammar has finitely many parser configurations, so the walk ends and covers every text.  The
one schema with "any JSON value" in it differs where the documented policy says it does: the
DFA path nests any value at most ``any_depth`` (3) levels deep, the grammar path has no bound
(``docs/json-schema-semantics.md``)."""

from __future__ import annotations

from pathlib import Path

import pytest

import indexc_runtime

from indexc.diff import diff_artifacts
from indexc.jsonschema.options import JsonSchemaOptions
from indexc.masks import MaskOptions
from indexc.pipeline import CompileOptions, write
from indexc.pipeline.json_schema import compile_json_schema
from indexc.trie.build import build_trie

SCHEMAS = Path(__file__).resolve().parents[2] / "schemas"


@pytest.fixture(scope="module")
def llama3(bundled_vocabulary):
    vocab = bundled_vocabulary("llama3")
    return vocab, build_trie(vocab)


def both_paths(name: str, llama3, tmp_path: Path) -> tuple[str, str]:
    vocab, trie = llama3
    text = (SCHEMAS / f"{name}.schema.json").read_text()
    paths = []
    for mode in ("dfa", "cfg"):
        result = compile_json_schema(text, vocab, trie, CompileOptions(MaskOptions(jobs=1)),
                                     schema_options=JsonSchemaOptions(mode=mode), source=name)
        paths.append(str(tmp_path / f"{name}.{mode}.idx"))
        write(result, vocab, paths[-1])
    return paths[0], paths[1]


@pytest.mark.parametrize("name", ["order", "person", "tool_call"])
def test_regular_schema_same_masks_on_both_paths(name, llama3, tmp_path):
    dfa, cfg = both_paths(name, llama3, tmp_path)
    report = diff_artifacts(dfa, cfg, max_pairs=50_000)
    # every DFA state is met (order: 610 pairs since session 25 glued whitespace into the
    # brackets and separators; 1,432 before, when a whitespace's place was a configuration)
    assert report.complete and report.reachable_pairs >= indexc_runtime.load(dfa).n_states
    assert report.identical, [(pair.witness, pair.only_a, pair.only_b) for pair in report.pairs]


def test_any_value_depth_is_the_one_difference(llama3, tmp_path):
    dfa, cfg = both_paths("event", llama3, tmp_path)
    vocab = llama3[0]
    report = diff_artifacts(dfa, cfg, vocab_a=vocab, vocab_b=vocab, max_pairs=5_000, limit=3)
    assert not report.identical and not report.complete
    assert report.tokens_only_a == 0 and report.tokens_only_b > 0  # the grammar path allows more, never less
    first = report.pairs[0]
    assert first.witness.endswith(b"[[") and all("[" in label for label in first.only_b)

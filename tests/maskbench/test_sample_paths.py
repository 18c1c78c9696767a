"""The bundled sample's regular schemas on both paths: same masks in every state (``indexc diff``).

Each sample file that the auto route sends to the DFA path is compiled once more with
``--mode cfg`` (the grammar path: lexer tables ahead of time, the Earley parser and the trie
walk at serving time), and the two artifacts are walked in lock-step by ``indexc diff``.  Two
independent routes to one language, Llama-3, every reachable state pair:

- a schema without "any JSON value" has a finite grammar-path automaton: the walk must end
  (``complete``) with no pair whose masks differ;
- a schema with one (``additionalProperties`` left open, ``{}``) differs by the documented
  policy only (``docs/json-schema-semantics.md``): the DFA path nests any value at most 3 levels
  deep, the grammar path without a bound.  So the grammar path never allows a token the DFA
  path refuses, and every pair that differs is already 3 levels deep.
"""

from __future__ import annotations

import pytest

from indexc.diff import diff_artifacts
from indexc.errors import IndexcError
from indexc.jsonschema.options import JsonSchemaOptions
from indexc.masks import MaskOptions
from indexc.pipeline import CompileOptions, write
from indexc.pipeline.json_schema import compile_json_schema
from tests.maskbench.conftest import sample_file, sample_names

ANY_DEPTH = JsonSchemaOptions().any_depth
REGULAR_MAX_PAIRS = 50_000  # the largest sample file's walk ends at 10,957 pairs
BOUNDED_MAX_PAIRS = 3_000


def nesting(text: bytes) -> int:
    """Brackets and braces open after ``text`` (a JSON prefix), outside strings."""
    depth, in_string, escaped = 0, False, False
    for byte in text:
        char = chr(byte)
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
    return depth


def test_nesting_counts_brackets_outside_strings():
    assert nesting(b'{"a":[[') == 3 and nesting(b'{"[\\"{":[1],') == 1 and nesting(b'["\\\\"') == 1


@pytest.mark.parametrize("name", sample_names())
def test_both_paths_serve_the_same_masks(name, indexc_setup, tmp_path):
    vocab, trie = indexc_setup.tokenizer
    text = sample_file(name).schema_text
    try:
        auto = compile_json_schema(text, vocab, trie, CompileOptions(MaskOptions(jobs=1)), source=name)
    except IndexcError:
        pytest.skip("refused by the compiler (its outcome is the sample protocol's to check)")
    if auto.constraint["path"] != "dfa":
        pytest.skip("not regular: the grammar path only")
    cfg = compile_json_schema(text, vocab, trie, CompileOptions(MaskOptions(jobs=1)),
                              schema_options=JsonSchemaOptions(mode="cfg"), source=name)
    write(auto, vocab, str(tmp_path / "dfa.idx"))
    write(cfg, vocab, str(tmp_path / "cfg.idx"))
    bounded_any_value = "any-value" in auto.constraint["reason"]
    report = diff_artifacts(str(tmp_path / "dfa.idx"), str(tmp_path / "cfg.idx"), limit=1_000,
                            max_pairs=BOUNDED_MAX_PAIRS if bounded_any_value else REGULAR_MAX_PAIRS)
    if not bounded_any_value:
        assert report.complete and report.identical, report.pairs[:1]
        return
    assert report.tokens_only_a == 0, report.pairs[:1]
    assert report.accepted_only_by in (None, "B")
    assert all(nesting(pair.witness) >= ANY_DEPTH for pair in report.pairs), report.pairs[:1]

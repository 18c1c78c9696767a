"""A one-character change to a JSON Schema is found with the right shortest witness."""

from __future__ import annotations

import json

import pytest

from indexc.diff import diff_artifacts
from indexc.masks import MaskOptions
from indexc.pipeline import CompileOptions, write
from indexc.trie.build import build_trie
from tests.diff.conftest import tiny_vocabulary

json_schema = pytest.importorskip("indexc.pipeline.json_schema")
TOKENS = [b'"', b"n", b"o", b"p", b"e", b"y", b"s", b"no", b"pe", b"<eos>"]


def compile_schema(path, schema: dict, vocab):
    result = json_schema.compile_json_schema(json.dumps(schema), vocab, build_trie(vocab),
                                             CompileOptions(MaskOptions(jobs=1)))
    write(result, vocab, str(path))
    return path


def test_enum_value_changed_by_one_word(tmp_path):
    vocab = tiny_vocabulary(TOKENS)
    a = compile_schema(tmp_path / "a.idx", {"enum": ["yes", "no"]}, vocab)
    b = compile_schema(tmp_path / "b.idx", {"enum": ["yes", "nope"]}, vocab)
    report = diff_artifacts(str(a), str(b), vocab_a=vocab, vocab_b=vocab)
    first = report.pairs[0]
    assert first.witness == b'"no'
    assert first.only_a == ["0 '\"'"] and first.only_b == ["3 'p'", "8 'pe'"]
    assert report.accepted_witness == b'"no"' and report.accepted_only_by == "A"

"""``compile_json_schema``: which path a schema takes, and what the header records about it."""

from __future__ import annotations

import dataclasses
import json

import pytest

from indexc.automaton import AutomatonLimits

from indexc.jsonschema import JsonSchemaError, JsonSchemaOptions
from indexc.masks import MaskOptions
from indexc.pipeline import CompileOptions
from indexc.pipeline.json_schema import compile_json_schema
from indexc.trie import build_trie

LIST = json.dumps({"$defs": {"l": {"type": "object", "properties": {"v": {"type": "integer"}, "next": {"$ref": "#/$defs/l"}},
                                   "required": ["v"], "additionalProperties": False}}, "$ref": "#/$defs/l"})
FLAT = json.dumps({"type": "object", "properties": {"v": {"type": "boolean"}}, "additionalProperties": False})


@pytest.fixture(scope="module")
def gpt2(bundled_vocabulary):
    vocab = bundled_vocabulary("gpt2")
    return vocab, build_trie(vocab)


def compile_schema(gpt2, text: str, **options):
    vocab, trie = gpt2
    return compile_json_schema(text, vocab, trie, CompileOptions(MaskOptions(jobs=1)),
                               schema_options=JsonSchemaOptions(**options), source="test.schema.json")


def test_regular_schema_takes_the_dfa_path(gpt2):
    result = compile_schema(gpt2, FLAT)
    assert result.constraint["kind"] == "json_schema"
    assert (result.constraint["path"], result.constraint["reason"]) == ("dfa", "regular")
    assert result.options.as_dict()["json_schema"]["mode"] == "auto"


def test_recursive_schema_takes_the_grammar_path(gpt2):
    result = compile_schema(gpt2, LIST)
    assert result.constraint["path"] == "cfg" and result.constraint["reason"].startswith("recursive")


def test_forced_modes(gpt2):
    assert compile_schema(gpt2, FLAT, mode="cfg").constraint["path"] == "cfg"
    with pytest.raises(JsonSchemaError, match="cannot take the DFA path"):
        compile_schema(gpt2, LIST, mode="dfa")


def test_a_dfa_over_the_auto_limit_goes_to_the_grammar_path(gpt2):
    big = json.dumps({"type": "array", "items": {"type": "string", "maxLength": 40}, "maxItems": 30})
    result = compile_schema(gpt2, big, dfa_max_states=500)
    assert result.constraint["path"] == "cfg" and "limit" in result.constraint["reason"]


# 300 words with one long common suffix: subset construction passes ~4,500 states (a trie of
# the words), the minimal DFA shares the suffix (~330 states).
SHARED_SUFFIX = json.dumps({"enum": [f"{a}{b}{c}-and-a-long-shared-suffix"
                                     for a in "abcdef" for b in "ghijk" for c in "lmnopqrstu"]})


def test_the_auto_limit_counts_the_minimal_dfa_not_its_construction(gpt2):
    schema = SHARED_SUFFIX
    result = compile_schema(gpt2, schema, dfa_max_states=1_000)
    assert result.constraint["path"] == "dfa"
    assert result.table.n_states < 1_000
    over = compile_schema(gpt2, schema, dfa_max_states=result.table.n_states - 1)
    assert over.constraint["path"] == "cfg" and f"{result.table.n_states:,} states" in over.constraint["reason"]


def test_the_construction_may_reach_four_times_max_states_before_minimisation(gpt2, monkeypatch):
    # --max-states bounds the DFA that is kept (a few dozen states); the subset construction of the
    # words' trie (over 6,000 subsets, 300 words' NFA under 9,600 states) may reach 4x that
    vocab, trie = gpt2
    options = CompileOptions(MaskOptions(jobs=1), 2_400)
    result = compile_json_schema(SHARED_SUFFIX, vocab, trie, options, source="test.schema.json")
    assert result.constraint["path"] == "dfa"
    scaled = AutomatonLimits.for_max_states.__func__
    monkeypatch.setattr(AutomatonLimits, "for_max_states",
                        classmethod(lambda cls, n: dataclasses.replace(scaled(cls, n), max_subset_states=n)))
    bounded = compile_json_schema(SHARED_SUFFIX, vocab, trie, options, source="test.schema.json")
    assert bounded.constraint["path"] == "cfg" and "before minimisation" in bounded.constraint["reason"]

"""``bench.maskbench.policy``: each refused valid instance explained by a walk that passes, or not at all.

The issue allows a valid instance to be refused only under the documented policy (key order, the
DFA path's any-value depth) and asks for each to be listed; the checker's reasons are what that
list is made of, so each reason is tested with an instance that needs it, and a refusal that no
policy explains must come out as ``unexplained``.
"""

from __future__ import annotations

import json

import pytest

from bench.maskbench.dataset import Instance, MaskBenchFile
from bench.maskbench.policy import (ANY_DEPTH, BOTH, KEY_ORDER, UNEXPLAINED, KeyOrderSearch, PolicyChecker,
                                    guessed_key_order, property_orders, refused_valid)

from .conftest import EOS_IDS, sample_file

TWO_KEYS = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {}},
            "required": ["a", "b"], "additionalProperties": False}
MERGED = {"allOf": [{"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]},
                    {"properties": {"y": {"type": "string"}}, "required": ["y"]}]}
DEEP = [[[[["deep"]]]]]


def mbfile(schema: dict, *instances: object) -> MaskBenchFile:
    tests = tuple(Instance(i, True, json.dumps(data)) for i, data in enumerate(instances))
    return MaskBenchFile("handmade.json", schema, tests, ())


@pytest.fixture(scope="module")
def checker(indexc_setup, encode) -> PolicyChecker:
    return PolicyChecker(indexc_setup.engine, indexc_setup.tokenizer, encode, EOS_IDS)


def test_each_reason_is_found_by_a_walk_that_passes(checker):
    handmade = mbfile(TWO_KEYS,
                      {"b": 1, "a": 2},  # keys out of order
                      {"a": 1, "b": DEEP},  # "any value" 5 deep on the DFA path
                      {"b": DEEP, "a": 1},  # both
                      {"a": "one", "b": 1})  # not valid at all: no policy explains it
    assert checker.reasons(handmade, [0, 1, 2, 3]) == {0: KEY_ORDER, 1: ANY_DEPTH, 2: BOTH, 3: UNEXPLAINED}


def test_the_order_comes_from_the_artifact_not_one_properties_object(checker):
    """allOf's parts merged: ``x`` then ``y``, which no single ``properties`` lists together."""
    assert checker.reasons(mbfile(MERGED, {"y": "s", "x": 1}), [0]) == {0: KEY_ORDER}


def test_the_bundled_sample_file_refused_by_the_depth_bound(checker):
    name = "Github_hard---o14390.json"  # test_sample_protocol's EXPECTED_FAILURES: the any-value depth bound
    refused = [i.index for i in sample_file(name).instances if i.valid]
    reasons = checker.reasons(sample_file(name), refused)
    assert ANY_DEPTH in reasons.values() and UNEXPLAINED not in reasons.values()


def test_key_order_search_spells_the_artifacts_order_or_nothing(indexc_setup, encode):
    engine = indexc_setup.engine
    compiled = engine.compile_schema(indexc_setup.tokenizer, json.dumps(MERGED), "merged.json")
    index = engine.loaded(compiled)
    assert KeyOrderSearch(index.matcher(), encode).spell({"y": "s", "x": 1}) == '{"x": 1, "y": "s"}'
    assert KeyOrderSearch(index.matcher(), encode).spell({"y": 2, "x": 1}) is None  # y must be a string
    matcher = index.matcher()
    assert KeyOrderSearch(matcher, encode).spell({"x": 1}) is None  # y is required
    # the failed search rolled its matcher back to the start: the same matcher spells a value from there
    assert KeyOrderSearch(matcher, encode).spell({"y": "s", "x": 1}) == '{"x": 1, "y": "s"}'
    assert matcher.is_accepting()


def test_the_search_tries_the_schemas_order_first():
    """The guess orders the tries only: the order of the ``properties`` object that lists most
    of the keys, unlisted keys after as written."""
    orders = property_orders({"properties": {"a": {}, "b": {"properties": {"y": {}, "x": {}, "z": {}}}}})
    assert orders == [["a", "b"], ["y", "x", "z"]]
    assert guessed_key_order(["x", "extra", "z", "y"], orders) == ["y", "x", "z", "extra"]
    assert guessed_key_order(["q"], []) == ["q"]


def test_refused_valid_reads_a_bench_json_output():
    run = {"files": {
        "b.json": {"indexc": {"instances": [{"index": 0, "valid": True, "accepted": False},
                                            {"index": 1, "valid": False, "accepted": False},
                                            {"index": 2, "valid": True, "accepted": True}]}},
        "a.json": {"llguidance": {"instances": [{"index": 0, "valid": True, "accepted": False}]}},
        "c.json": {"indexc": {"status": "compile_error"}},
    }}
    assert list(refused_valid(run)) == [("b.json", [0])]

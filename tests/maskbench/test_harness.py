"""The bench's own logic, checked without indexc: the protocol on llguidance, records, reasons."""

from __future__ import annotations

import json

from bench.maskbench.dataset import family_of, instance_text
from bench.maskbench.expected import changes, compare_with_llguidance, record_of
from bench.maskbench.protocol import COMPILE_ERROR, FAIL, PASS, FileOutcome, InstanceOutcome, run_file
from bench.maskbench.reasons import reason_of
from bench.maskbench.report import markdown_paths, percentiles, summarize

from .conftest import EOS_IDS, sample_file, sample_names

PREFIX_ITEMS = "Indexc---prefixItems.json"


def test_llguidance_passes_a_handwritten_sample_file(llguidance_setup, encode):
    outcome = run_file(llguidance_setup.engine, llguidance_setup.tokenizer, encode, sample_file(PREFIX_ITEMS), EOS_IDS)
    assert outcome.status == PASS, outcome.instances
    assert [i.accepted for i in outcome.instances] == [i.valid for i in sample_file(PREFIX_ITEMS).instances]
    assert len(outcome.mask_us) >= sum(i.tokens + 1 for i in outcome.instances if i.accepted)


def test_an_unfinished_document_is_refused_by_the_missing_eos(llguidance_setup, encode):
    """``1`` is a prefix of valid numbers (``10``..``199``): its token passes, EOS does not."""
    bounds = sample_file("Indexc---bounds.json")
    outcome = run_file(llguidance_setup.engine, llguidance_setup.tokenizer, encode, bounds, EOS_IDS)
    assert outcome.status == PASS
    prefix = next(i for i in outcome.instances if i.index == 2)
    assert not prefix.accepted and prefix.failure == "EOS not allowed at the end"


def test_instance_text_is_maskbench_serialisation():
    assert instance_text({"a": [1, "é"], "b": None}) == '{"a": [1, "é"], "b": null}'


def test_families():
    assert family_of("Github_easy---o13947.json") == "Github_easy"
    assert family_of("BFCL_parallel_multiple_106.json") == "BFCL_parallel_multiple"
    assert family_of("JME_3.json") == "JME"
    assert any(family_of(n) == "Indexc" for n in sample_names())


def test_records_and_changes():
    good = FileOutcome("a.json", "a", "indexc", PASS, compile_ms=1.0,
                       instances=[InstanceOutcome(0, True, True, 3), InstanceOutcome(1, False, False, 2, "token #1")])
    bad = FileOutcome("b.json", "b", "indexc", FAIL, compile_ms=1.0,
                      instances=[InstanceOutcome(0, True, False, 3, "EOS not allowed at the end"),
                                 InstanceOutcome(1, False, True, 2)])
    refused = FileOutcome("c.json", "c", "indexc", COMPILE_ERROR, "unsupported keyword 'not' at #/a")
    records = {o.file: record_of(o) for o in (good, bad, refused)}
    assert records["a.json"] == {}
    assert records["b.json"] == {"validation_error": "test #0: should accept but didn't (EOS not allowed at the end)",
                                 "invalidation_error": "test #1: should reject but didn't"}
    assert records["c.json"] == {"compile_error": "unsupported keyword 'not' at #/a"}
    assert changes(records, records) == []
    moved = changes({**records, "a.json": {"compile_error": "x"}}, records)
    assert [c.file for c in moved] == ["a.json"] and "compile_error: x -> pass" in moved[0].describe()
    crossing = compare_with_llguidance(records, {"a.json": {}, "b.json": {}, "c.json": {"json_error": "not"}})
    assert (crossing.both_pass, crossing.only_llguidance, crossing.neither) == (["a.json"], ["b.json"], ["c.json"])
    summary = summarize("indexc", [good, bad, refused])
    assert (summary.passing, summary.valid_rejected, summary.invalid_accepted, summary.compile_errors) == (1, 1, 1, 1)
    json.dumps(summary.as_dict())


def test_reasons_group_messages_that_differ_only_in_details():
    assert reason_of("Unknown format: url") == reason_of("Unknown format: path") == "unknown format"
    a = reason_of("s.json: at position 12: unsupported keyword 'not' at #/properties/a")
    b = reason_of("t.json: at position 90: unsupported keyword 'not' at #/definitions/b/items")
    assert a == b and "'not'" in a


def test_percentiles_are_nearest_rank():
    assert percentiles(range(1, 101), (50, 99, 100)) == {"p50": 50.0, "p99": 99.0, "p100": 100.0}
    assert percentiles([], (50,)) == {}


def test_by_path_splits_compile_and_mask_figures_per_path():
    dfa = FileOutcome("a.json", "a", "indexc", PASS, compile_ms=10.0, path="dfa", mask_us=[1.0, 2.0, 3.0])
    cfg = FileOutcome("b.json", "b", "indexc", PASS, compile_ms=900.0, path="cfg", mask_us=[50.0, 250.0, 4000.0])
    refused = FileOutcome("c.json", "c", "indexc", COMPILE_ERROR, "unsupported keyword 'not' at #/a")
    summary = summarize("indexc", [dfa, cfg, refused])
    assert list(summary.by_path) == ["cfg", "dfa"]
    assert summary.by_path["cfg"]["slow_masks"] == 2 and summary.by_path["dfa"]["slow_masks"] == 0
    assert summary.by_path["dfa"]["mask_us"]["p100"] == 3.0 and summary.by_path["cfg"]["compile_ms"]["p50"] == 900.0
    table = markdown_paths(summary)
    assert "| cfg | 1 | 900 / 900 | 3 | 250.0 / 4,000.0 / 4,000.0 | 2 |" in table
    assert markdown_paths(summarize("llguidance", [FileOutcome("a.json", "a", "llguidance", PASS, compile_ms=1.0)])) == ""

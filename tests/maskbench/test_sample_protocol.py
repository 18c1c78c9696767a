"""The MaskBench protocol on the bundled sample, with indexc: every file must pass.

Same code as ``make bench-maskbench`` (``bench.maskbench.protocol.run_file``), run in process:
compile the schema, walk every valid instance to an accepting end and refuse every invalid
one, through the artifact written to disk and read back by ``indexc_runtime``.  The sample
covers every family of the dev split and every keyword of issue 4 (``MANIFEST.tsv``; checked
below), so a keyword that regresses fails here by name.

``EXPECTED_FAILURES`` lists the files indexc is known not to pass, one short reason each; a
listed file that starts passing fails the test too, so the list only ever shrinks honestly.
"""

from __future__ import annotations

import pytest

from bench.maskbench.protocol import PASS, FileOutcome, run_file
from bench.maskbench.select_sample import FORMATS, KEYWORDS, TYPES, instance_tags, schema_tags

from .conftest import EOS_IDS, SAMPLE_DIR, sample_file, sample_names

EXPECTED_FAILURES: dict[str, str] = {
    "Github_hard---o14390.json":
        "DFA path's any-value depth bound (any_depth 3): key 'project1' matches no patternProperties "
        "pattern, so its value is 'any JSON value', and the valid instance nests 4 deep there",
}


@pytest.mark.parametrize("name", sample_names())
def test_sample_file_passes_the_protocol(name, indexc_setup, encode):
    outcome = run_file(indexc_setup.engine, indexc_setup.tokenizer, encode, sample_file(name), EOS_IDS)
    if name in EXPECTED_FAILURES:
        assert outcome.status != PASS, f"{name} passes now: remove it from EXPECTED_FAILURES"
    else:
        assert outcome.status == PASS, describe(outcome)


def test_expected_failures_are_in_the_sample():
    assert set(EXPECTED_FAILURES) <= set(sample_names())


DEV_FAMILIES = ("BFCL", "Github_easy", "Github_hard", "Github_medium", "Github_trivial", "Github_ultra",
                "Glaiveai2K", "Handwritten", "JME", "JsonSchemaStore", "Kubernetes", "MCPspec", "Snowplow",
                "Synthesized", "WashingtonPost")  # the 15 families of the dev split (../shared/DATA.md)


def test_sample_covers_every_family_and_keyword():
    tags: set[str] = set()
    families: set[str] = set()
    for name in sample_names():
        mbfile = sample_file(name)
        tags |= schema_tags(mbfile.schema) | instance_tags([i.text for i in mbfile.instances])
        families.add("BFCL" if mbfile.family.startswith("BFCL_") else mbfile.family)
    wanted = {f"kw:{k}" for k in KEYWORDS} | {f"type:{t}" for t in TYPES} | {f"format:{f}" for f in FORMATS}
    assert not wanted - tags, f"keywords missing from the sample: {sorted(wanted - tags)}"
    assert not set(DEV_FAMILIES) - families, f"families missing: {sorted(set(DEV_FAMILIES) - families)}"


def test_sample_has_instances_of_both_kinds():
    instances = [i for name in sample_names() for i in sample_file(name).instances]
    assert sum(i.valid for i in instances) >= 50 and sum(not i.valid for i in instances) >= 50
    assert (SAMPLE_DIR / "MANIFEST.tsv").read_text().startswith("# tags no file carries: none")


def describe(outcome: FileOutcome) -> str:
    """What went wrong, in one paragraph a reader can act on."""
    if outcome.status != "fail":
        return f"{outcome.file}: {outcome.status}: {outcome.reason}"
    wrong = [f"test #{i.index} ({'valid' if i.valid else 'invalid'}): "
             + (i.failure or "accepted") for i in outcome.instances if not i.behaved]
    return f"{outcome.file}: " + "; ".join(wrong)

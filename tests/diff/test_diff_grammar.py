"""Grammar artifacts in the diff: walked through their parsers, bounded where they are endless.

A regular language compiled on the grammar path has finitely many configurations, so its walk
ends and the comparison is exhaustive (and must agree with the DFA path's artifact of the same
language); a recursive grammar is compared up to ``max_pairs`` and along the given texts."""

from __future__ import annotations

import json

import pytest

from indexc.cli.main import main
from indexc.diff import diff_artifacts
from indexc.diff.bounded_product import DEFAULT_MAX_PAIRS, walk_bounded
from indexc.diff.tables import read_tables
from indexc.jsonschema.options import JsonSchemaOptions
from indexc.masks import MaskOptions
from indexc.pipeline import CompileOptions, write
from indexc.pipeline.grammar import compile_grammar
from indexc.pipeline.json_schema import compile_json_schema
from indexc.trie.build import build_trie
from tests.diff.conftest import compile_to, tiny_vocabulary

NUMBERS = 'start: "a" NUM\nNUM: /[0-9]+/\n'
BRACKETS = 'start: s\ns: "a" s "b" | "9"\n'
# the same language but one extra sentence, reached only past six levels of nesting
BRACKETS_DEEP_EXTRA = 'start: s\ns: "a" s "b" | "9" | "aaaaaa8bbbbbb"\n'


def grammar_to(path, text: str, vocab):
    write(compile_grammar(text, vocab, build_trie(vocab), syntax="lark"), vocab, str(path))
    return path


def schema_to(path, schema: dict, vocab, mode: str):
    result = compile_json_schema(json.dumps(schema), vocab, build_trie(vocab), CompileOptions(MaskOptions(jobs=1)),
                                 schema_options=JsonSchemaOptions(mode=mode))
    assert result.constraint["path"] == mode
    write(result, vocab, str(path))
    return path


def test_same_grammar_twice_is_identical_and_complete(tmp_path):
    vocab = tiny_vocabulary()
    a, b = grammar_to(tmp_path / "a.idx", NUMBERS, vocab), grammar_to(tmp_path / "b.idx", NUMBERS, vocab)
    report = diff_artifacts(str(a), str(b), vocab_a=vocab, vocab_b=vocab)
    assert report.identical and report.complete and report.reachable_pairs > 2


def test_grammar_change_found_with_shortest_witness(tmp_path):
    vocab = tiny_vocabulary()
    a = grammar_to(tmp_path / "a.idx", NUMBERS, vocab)
    b = grammar_to(tmp_path / "b.idx", NUMBERS.replace("0-9", "0-8"), vocab)
    report = diff_artifacts(str(a), str(b), vocab_a=vocab, vocab_b=vocab)
    assert not report.identical and report.complete
    start, after_a = report.pairs[:2]
    assert start.witness == b"" and start.only_a == ["7 'a9'"] and start.only_b == []
    assert after_a.witness == b"a" and after_a.only_a == ["5 '9'", "6 '89'"] and after_a.only_b == []
    assert report.accepted_witness == b"a9" and report.accepted_only_by == "A"


def test_grammar_against_the_dfa_of_its_language(tmp_path):
    """One language, two paths: a regex's DFA artifact and a grammar artifact serve the same masks."""
    vocab = tiny_vocabulary()
    dfa = compile_to(tmp_path / "dfa.idx", "a[0-9]+", vocab)
    grammar = grammar_to(tmp_path / "g.idx", NUMBERS, vocab)
    report = diff_artifacts(str(dfa), str(grammar), vocab_a=vocab, vocab_b=vocab)
    assert report.identical and report.complete
    shorter = compile_to(tmp_path / "short.idx", "a[0-9]{1,2}", vocab)
    report = diff_artifacts(str(shorter), str(grammar), vocab_a=vocab, vocab_b=vocab)
    assert report.accepted_witness == b"a000" and report.accepted_only_by == "B"
    assert report.pairs[0].witness == b"a0" and report.pairs[0].only_b == ["6 '89'"]  # A: one more digit at most


def test_json_schema_dfa_and_cfg_paths_agree(tmp_path):
    vocab = tiny_vocabulary([b'"', b"n", b"o", b"y", b"e", b"s", b"no", b"[", b"]", b",", b" ", b"<eos>"])
    schema = {"type": "array", "items": {"enum": ["yes", "no"]}, "maxItems": 3}
    dfa = schema_to(tmp_path / "dfa.idx", schema, vocab, "dfa")
    cfg = schema_to(tmp_path / "cfg.idx", schema, vocab, "cfg")
    report = diff_artifacts(str(dfa), str(cfg), vocab_a=vocab, vocab_b=vocab, max_pairs=20_000)
    assert report.identical and report.complete, report.pairs[:1]
    changed = schema_to(tmp_path / "changed.idx", {**schema, "maxItems": 2}, vocab, "cfg")
    report = diff_artifacts(str(cfg), str(changed), vocab_a=vocab, vocab_b=vocab, max_pairs=20_000)
    assert report.accepted_only_by == "A" and report.accepted_witness.count(b",") == 2


def test_recursive_grammar_is_bounded_and_texts_reach_deeper(tmp_path):
    vocab = tiny_vocabulary()
    a = grammar_to(tmp_path / "a.idx", BRACKETS, vocab)
    b = grammar_to(tmp_path / "b.idx", BRACKETS_DEEP_EXTRA, vocab)
    same = diff_artifacts(str(a), str(a), vocab_a=vocab, vocab_b=vocab, max_pairs=8)
    assert same.identical and not same.complete and same.reachable_pairs == 9
    shallow = diff_artifacts(str(a), str(b), vocab_a=vocab, vocab_b=vocab, max_pairs=3)
    assert shallow.identical and not shallow.complete  # the difference is past what 3 pairs reach
    deep = diff_artifacts(str(a), str(b), vocab_a=vocab, vocab_b=vocab, max_pairs=3, texts=(b"aaaaaa8bbbbbb",))
    assert not deep.identical
    assert deep.pairs[0].witness == b"aaaaaa" and deep.pairs[0].only_b == ["4 '8'"]
    assert deep.accepted_witness == b"aaaaaa8bbbbbb" and deep.accepted_only_by == "B"


def test_walk_order_and_witnesses(tmp_path):
    """The start first, then a text's prefixes (their own witnesses), then the search's pairs."""
    vocab = tiny_vocabulary()
    a = read_tables(str(grammar_to(tmp_path / "a.idx", BRACKETS, vocab)))
    bounded = walk_bounded(a, a, max_pairs=4, texts=(b"aa9b",))
    walk = bounded.walk
    assert [walk.witness(i) for i in range(5)] == [b"", b"a", b"aa", b"aa9", b"aa9b"]
    assert walk.size == 5 + 4 and not bounded.complete
    assert all(len(walk.witness(i)) <= 5 for i in range(walk.size))


def test_command_line(tmp_path, capsys):
    vocab = tiny_vocabulary()
    a = grammar_to(tmp_path / "a.idx", BRACKETS, vocab)
    b = grammar_to(tmp_path / "b.idx", BRACKETS_DEEP_EXTRA, vocab)
    assert main(["diff", str(a), str(a), "--max-pairs", "5"]) == 0
    out = capsys.readouterr().out
    assert "identical masks in the 6 state pairs compared" in out and "bounded: the search stopped after 5" in out
    (tmp_path / "doc.txt").write_bytes(b"aaaaaa8bbbbbb")
    assert main(["diff", str(a), str(b), "--max-pairs", "5", "--text", str(tmp_path / "doc.txt"), "--json"]) == 1
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert report["complete"] is False and report["max_pairs"] == 5 and report["pairs"][0]["witness"] == "aaaaaa"
    assert main(["diff", str(a), str(b), "--text", str(tmp_path / "missing.txt")]) == 2
    assert "missing.txt" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["diff", "--help"])
    assert f"default {DEFAULT_MAX_PAIRS:,}" in capsys.readouterr().out


def test_parser_limit_is_a_diff_error(tmp_path):
    from indexc.diff import DiffError
    from indexc_runtime.grammar import GrammarLimits

    vocab = tiny_vocabulary()
    tables = read_tables(str(grammar_to(tmp_path / "a.idx", BRACKETS, vocab)))
    tables.walk = tables.index.byte_walk(GrammarLimits(max_configs=4))
    with pytest.raises(DiffError, match=r"a\.idx: its parser reached a limit .*max_configs=4.*--max-pairs"):
        walk_bounded(tables, tables, max_pairs=100)


def test_build_report_says_a_grammar_comparison_was_bounded(tmp_path):
    from indexc.diff import BuildDiff
    from indexc.diff.builds import ChangedArtifact
    from indexc.diff.report import build_text

    vocab = tiny_vocabulary()
    a, b = grammar_to(tmp_path / "a.idx", BRACKETS, vocab), grammar_to(tmp_path / "b.idx", NUMBERS, vocab)
    bounded = diff_artifacts(str(a), str(a), max_pairs=4)
    complete = diff_artifacts(str(b), str(b))
    report = BuildDiff("old", "new", changed=[ChangedArtifact("x/brackets.idx", bounded),
                                                ChangedArtifact("x/numbers.idx", complete)])
    assert report.identical
    lines = build_text(report).splitlines()
    assert "~ x/brackets.idx: file changed, masks identical in the 5 state pairs compared (bounded)" in lines
    assert "~ x/numbers.idx: file changed, masks identical" in lines


def test_grammar_across_vocabularies_compared_by_bytes(tmp_path):
    from tests.diff.conftest import TOKENS

    full, smaller = tiny_vocabulary(), tiny_vocabulary([t for t in TOKENS if t != b"89"])
    a = grammar_to(tmp_path / "a.idx", NUMBERS, full)
    b = compile_to(tmp_path / "b.idx", "a[0-9]+", smaller)  # and a DFA on the other side
    report = diff_artifacts(str(a), str(b), vocab_a=full, vocab_b=smaller)
    assert not report.same_vocabulary and report.complete
    assert report.vocab_only_a == ["6 '89'"] and report.n_vocab_only_b == 0
    assert report.differing_pairs == 0 and report.accepted_witness is None


def test_progress_is_told_of_pairs_and_masks(tmp_path, capsys):
    from indexc.cli import diff_cmd
    from indexc.diff.progress import PROGRESS_EVERY

    vocab = tiny_vocabulary()
    a = grammar_to(tmp_path / "a.idx", BRACKETS, vocab)
    heard = []
    report = diff_artifacts(str(a), str(a), max_pairs=3 * PROGRESS_EVERY, progress=lambda *told: heard.append(told))
    pairs = [done for what, done, total in heard if what == "pairs"]
    masks = [(done, total) for what, done, total in heard if what == "masks"]
    assert pairs == [PROGRESS_EVERY, 2 * PROGRESS_EVERY, 3 * PROGRESS_EVERY]
    assert masks and all(total == report.reachable_pairs for _, total in masks)  # once per side
    assert main(["diff", str(a), str(a), "-q"]) == 0 and capsys.readouterr().out == ""
    status = diff_cmd.StatusLine(enabled=True)
    status("masks", 256, 2_001)
    status("masks", 512, 2_001)  # within a tenth of a second: not redrawn
    status.close()
    assert capsys.readouterr().err == "\rindexc diff: masks 256/2,001   \n"
    silent = diff_cmd.StatusLine(enabled=False)
    silent("pairs", 256, 2_000)
    silent.close()
    assert capsys.readouterr().err == ""

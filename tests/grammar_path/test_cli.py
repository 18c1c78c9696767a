"""``indexc compile --grammar`` and ``indexc check`` on a grammar artifact (GPT-2 vocabulary)."""

from __future__ import annotations

import pytest

from indexc.cli.main import main
from tests.conftest import bundled_tokenizer_file

GRAMMAR = 'root ::= "[" num ("," ws num)* "]"\nnum ::= [0-9]+\nws ::= [ ]*\n'


def test_compile_then_check_accepts_and_rejects(tmp_path, capsys):
    tokenizer = str(bundled_tokenizer_file("gpt2"))
    grammar_file = tmp_path / "list.gbnf"
    grammar_file.write_text(GRAMMAR)
    out = tmp_path / "list.idx"
    assert main(["compile", "--tokenizer", tokenizer, "--grammar", str(grammar_file), "-o", str(out), "-q"]) == 0
    assert main(["check", str(out), "--tokenizer", tokenizer, "--text", "[1, 22,333]", "-q"]) == 0
    assert main(["check", str(out), "--tokenizer", tokenizer, "--text", "[1, 22", "-q"]) == 1
    assert main(["check", str(out), "--tokenizer", tokenizer, "--text", "[1;2]", "-q"]) == 1


def test_a_bad_grammar_exits_2_and_writes_nothing(tmp_path, capsys):
    tokenizer = str(bundled_tokenizer_file("gpt2"))
    grammar_file = tmp_path / "bad.gbnf"
    grammar_file.write_text('root ::= missing "x"\n')
    out = tmp_path / "bad.idx"
    assert main(["compile", "--tokenizer", tokenizer, "--grammar", str(grammar_file), "-o", str(out)]) == 2
    assert "missing" in capsys.readouterr().err
    assert not out.exists()


def test_warm_up_stores_the_walk_of_a_sample_document(tmp_path, capsys):
    import indexc_runtime

    tokenizer = str(bundled_tokenizer_file("gpt2"))
    grammar_file, sample = tmp_path / "list.gbnf", tmp_path / "sample.txt"
    grammar_file.write_text(GRAMMAR)
    sample.write_text("[1, 22, 333,4]")
    plain, warm = tmp_path / "plain.idx", tmp_path / "warm.idx"
    assert main(["compile", "--tokenizer", tokenizer, "--grammar", str(grammar_file), "-o", str(plain), "-q",
                 "--warm-up-samples", "0"]) == 0
    assert main(["compile", "--tokenizer", tokenizer, "--grammar", str(grammar_file), "--warm-up", str(sample),
                 "-o", str(warm), "-q", "--warm-up-samples", "0"]) == 0
    assert indexc_runtime.load(plain).section("memo_config_mask").size == 0
    index = indexc_runtime.load(warm, verify=True)
    stats = index.header["stats"]["warm_up"]
    assert stats["walked"] == stats["tokens"] > 3 and index.section("memo_config_mask").size == stats["configurations"]
    assert stats["texts"] == 1
    assert main(["check", str(warm), "--tokenizer", tokenizer, "--text", "[1, 22,333]", "-q"]) == 0
    capsys.readouterr()
    assert main(["inspect", str(warm)]) == 0
    assert f"memo        {stats['configurations']:,} configurations" in capsys.readouterr().out


def test_warm_up_is_ignored_with_a_warning_on_the_dfa_path_and_a_missing_file_exits_2(tmp_path, capsys):
    tokenizer = str(bundled_tokenizer_file("gpt2"))
    sample, out = tmp_path / "sample.txt", tmp_path / "r.idx"
    sample.write_text("aaa")
    assert main(["compile", "--tokenizer", tokenizer, "--regex", "a+", "--warm-up", str(sample), "-o", str(out), "-q"]) == 0
    assert "--warm-up" in capsys.readouterr().err and out.exists()
    out.unlink()
    assert main(["compile", "--tokenizer", tokenizer, "--regex", "a+", "--warm-up", str(tmp_path / "none.txt"),
                 "-o", str(out), "-q"]) == 2
    assert "warm-up file" in capsys.readouterr().err and not out.exists()


def test_a_warm_up_compile_gives_the_same_bytes_in_any_process(tmp_path):
    """The stored memo is part of the artifact: two processes with other hash seeds write it alike."""
    import os
    import subprocess
    import sys

    tokenizer = str(bundled_tokenizer_file("gpt2"))
    grammar_file, sample = tmp_path / "list.gbnf", tmp_path / "sample.txt"
    grammar_file.write_text(GRAMMAR)
    sample.write_text("[1, 22, 333,4, 5]")
    written = []
    for seed in ("1", "2"):
        out = tmp_path / f"warm{seed}.idx"
        subprocess.run([sys.executable, "-m", "indexc", "compile", "--tokenizer", tokenizer, "--grammar",
                        str(grammar_file), "--warm-up", str(sample), "-o", str(out), "-q"],
                       check=True, env={**os.environ, "PYTHONHASHSEED": seed})
        written.append(out.read_bytes())
    assert written[0] == written[1]


def test_a_grammar_is_warmed_up_by_sampled_sentences_unless_told_not_to(tmp_path, capsys):
    """By default the compile walks ``DEFAULT_WARM_UP_SAMPLES`` tokens of sentences sampled from
    the grammar (every one in its language: all of them are walked to the end), after
    ``--warm-up``'s text; a negative count is a usage error."""
    import indexc_runtime
    from indexc.limits import DEFAULT_WARM_UP_SAMPLES

    tokenizer = str(bundled_tokenizer_file("gpt2"))
    grammar_file, sample, out = tmp_path / "list.gbnf", tmp_path / "sample.txt", tmp_path / "g.idx"
    grammar_file.write_text(GRAMMAR)
    sample.write_text("[1, 22, 333,4]")
    assert main(["compile", "--tokenizer", tokenizer, "--grammar", str(grammar_file), "-o", str(out), "-q"]) == 0
    stats = indexc_runtime.load(out, verify=True).header["stats"]["warm_up"]
    assert stats["texts"] > 1 and stats["walked"] == stats["tokens"] == DEFAULT_WARM_UP_SAMPLES
    assert main(["compile", "--tokenizer", tokenizer, "--grammar", str(grammar_file), "--warm-up", str(sample),
                 "--warm-up-samples", "40", "-o", str(out), "-q"]) == 0
    stats = indexc_runtime.load(out, verify=True).header["stats"]["warm_up"]
    assert stats["texts"] > 1 and stats["walked"] == stats["tokens"] > 40
    with pytest.raises(SystemExit) as exited:
        main(["compile", "--tokenizer", tokenizer, "--grammar", str(grammar_file), "--warm-up-samples", "-1",
              "-o", str(out)])
    assert exited.value.code == 2 and "--warm-up-samples" in capsys.readouterr().err


def test_a_grammars_warnings_are_printed_unless_quiet_and_kept_in_the_json_report(tmp_path, capsys):
    """An unreachable rule (with its line and column) and, under longest match, a terminal that
    never ends: on stderr, named by the file; in ``--json``'s report; nothing with ``-q``."""
    import json

    tokenizer = str(bundled_tokenizer_file("gpt2"))
    grammar_file, out = tmp_path / "warned.lark", tmp_path / "warned.idx"
    grammar_file.write_text('start: A B\nA: /a+/\nB: "a"\nunused: "b"\n')
    base = ["compile", "--tokenizer", tokenizer, "--grammar", str(grammar_file), "-o", str(out), "--warm-up-samples", "0"]
    assert main(base) == 0
    err = capsys.readouterr().err
    assert f"warning: {grammar_file}: 4:1: rule 'unused' is never used" in err
    assert "terminal A never ends" in err
    assert main([*base, "-q"]) == 0
    assert capsys.readouterr().err == ""
    assert main([*base, "--json"]) == 0
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert len(report["warnings"]) == 2 and out.exists()

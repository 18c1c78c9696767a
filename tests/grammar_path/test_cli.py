"""``indexc compile --grammar`` and ``indexc check`` on a grammar artifact (GPT-2 vocabulary)."""

from __future__ import annotations

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

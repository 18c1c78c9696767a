"""``indexc vocab``: the summary, the token listing, overrides, and errors as one line + exit 2."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from indexc.cli.main import main
from indexc.cli.vocab_cmd import id_ranges
from indexc.trie import build_trie
from indexc.vocab import TokenKind
from indexc.vocab.display import printable

KIND_NAMES = {"normal", "byte", "user", "special", "hole"}


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["vocab", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


def test_text_summary(capsys, bundled_tokenizer, bundled_vocabulary):
    code, out, err = run(capsys, bundled_tokenizer("llama3"))
    vocab = bundled_vocabulary("llama3")
    assert code == 0 and err == ""
    rows = {line[:12].rstrip(): line[13:] for line in out.splitlines()}  # "label" padded to 12
    assert rows["family"] == "byte-level-bpe"
    assert rows["size"].startswith("128256 ids (128000 normal, 0 byte, 0 user, 256 special, 0 hole)")
    assert rows["special ids"] == "128000-128255 (256)"
    assert rows["eos ids"] == "128001 <|end_of_text|>, 128009 <|eot_id|>"
    assert rows["fingerprint"] == vocab.fingerprint
    assert int(rows["trie nodes"]) == build_trie(vocab).n_nodes


def test_json_summary_is_the_last_line(capsys, bundled_tokenizer, bundled_vocabulary):
    code, out, _ = run(capsys, bundled_tokenizer("qwen2"), "--json", "--vocab-size", 151_936)
    summary = json.loads(out.splitlines()[-1])
    assert code == 0 and len(out.splitlines()) == 1
    assert summary["size"] == 151_936 and summary["kinds"]["hole"] == 271 and summary["kinds"]["user"] == 8
    assert summary["eos_ids"] == [151643, 151645]
    assert summary["eos_tokens"] == ["<|endoftext|>", "<|im_end|>"]
    assert summary["special_ids"] == bundled_vocabulary("qwen2").special_ids.tolist()
    assert summary["fingerprint"] != bundled_vocabulary("qwen2").fingerprint  # the size is hashed
    assert summary["trie_nodes"] > 0 and summary["family"] == "byte-level-bpe"


def test_json_token_listing_has_every_id(capsys, bundled_tokenizer, bundled_vocabulary):
    code, out, _ = run(capsys, bundled_tokenizer("mistral"), "--tokens", "--json")
    vocab = bundled_vocabulary("mistral")
    lines = out.splitlines()
    assert code == 0 and len(lines) == vocab.size + 1
    records = [json.loads(line) for line in lines[:-1]]
    assert [r["id"] for r in records] == list(range(vocab.size))
    assert all(bytes.fromhex(r["hex"]) == vocab.token_bytes[r["id"]] for r in records)
    assert all(r["kind"] == TokenKind(vocab.kinds[r["id"]]).name.lower() for r in records)
    assert records[2] == {"id": 2, "kind": "special", "hex": "", "text": "", "name": "</s>"}
    assert records[13] == {"id": 13, "kind": "byte", "hex": "0a", "text": "\\n", "name": "<0x0A>"}
    assert records[28705]["text"] == " " and records[28705]["name"] == "▁"
    assert "fingerprint" in json.loads(lines[-1])


def test_text_token_listing(capsys, bundled_tokenizer):
    code, out, _ = run(capsys, bundled_tokenizer("gpt2"), "--tokens", "--eos", "0,50256")
    lines = out.splitlines()
    assert code == 0
    assert lines[198] == '198\tnormal\t0a\t"\\n"'
    assert lines[220] == '220\tnormal\t20\t" "'
    assert lines[50256] == "50256\tspecial\t-\t<|endoftext|>"
    assert all(line.split("\t")[1] in KIND_NAMES for line in lines[:50257])
    assert "eos ids      0 !, 50256 <|endoftext|>" in lines


def test_config_option(capsys, bundled_tokenizer, tmp_path):
    config = tmp_path / "c.json"
    config.write_text('{"eos_token": "<s>"}', encoding="utf-8")
    code, out, _ = run(capsys, bundled_tokenizer("mistral"), "--config", config, "--json")
    assert code == 0 and json.loads(out)["eos_ids"] == [1, 2]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["{dir}/absent.json"], "cannot read tokenizer"),
        (["{dir}/garbage.json"], "not a tokenizer.json"),
        (["{t5}", "--eos", "40000"], "eos id 40000 is not a token id"),
        (["{t5}", "--vocab-size", "10"], "is smaller than the tokenizer's 32100 ids"),
    ],
)
def test_errors_are_one_line_and_exit_2(capsys, tmp_path, bundled_tokenizer, argv, message):
    (tmp_path / "garbage.json").write_bytes(b"\x89PNG\r\n")
    argv = [a.format(dir=tmp_path, t5=bundled_tokenizer("t5")) for a in argv]
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("indexc vocab: error: ") and message in err


def test_malformed_eos_option_is_a_usage_error(capsys, bundled_tokenizer):
    with pytest.raises(SystemExit) as caught:
        main(["vocab", str(bundled_tokenizer("t5")), "--eos", "one"])
    assert caught.value.code == 2
    assert "expected comma-separated token ids" in capsys.readouterr().err


def test_id_ranges():
    assert id_ranges([]) == ""
    assert id_ranges([5]) == "5"
    assert id_ranges([0, 1, 2, 5, 7, 8]) == "0-2, 5, 7-8"


def unescape(text: str) -> bytes:
    """Inverse of ``printable``: proves that no two byte strings print the same."""
    named = {"\\": b"\\", "n": b"\n", "r": b"\r", "t": b"\t"}
    out, i = bytearray(), 0
    while i < len(text):
        char = text[i]
        if char != "\\":
            out += char.encode("utf-8")
            i += 1
        elif text[i + 1] in named:
            out += named[text[i + 1]]
            i += 2
        elif text[i + 1] == "x":
            value = int(text[i + 2:i + 4], 16)
            out += bytes([value])  # < 0x80: an ASCII control; >= 0x80: an undecodable byte
            i += 4
        else:
            assert text[i + 1] == "u"
            out += chr(int(text[i + 2:i + 6], 16)).encode("utf-8")
            i += 6
    return bytes(out)


@given(st.binary(max_size=24) | st.text(max_size=12).map(lambda s: s.encode("utf-8", "surrogatepass")))
def test_printable_form_is_unambiguous_and_has_no_control_characters(data):
    shown = printable(data)
    assert unescape(shown) == data
    assert not any(ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 for c in shown)

"""Hand-made tokenizer.json files: added tokens, id gaps, layouts, serializations, bad input."""

from __future__ import annotations

import json

import pytest
import zstandard
from spelling_reference import gpt2_char_to_byte
from tokenizers import Tokenizer

from indexc.errors import VocabularyError
from indexc.vocab import TokenKind, load_vocabulary
from indexc.vocab.hf_json import without_trailing_merges

BYTE_LEVEL = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}
METASPACE = {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": True}


def bpe_document(vocab: dict[str, int], *, merges=(), added=(), pre_tokenizer=BYTE_LEVEL,
                 decoder=BYTE_LEVEL, **model) -> dict:
    """A tokenizer.json in the layout ``tokenizers`` writes (merges last, model last)."""
    return {
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": list(added),
        "normalizer": None, "pre_tokenizer": pre_tokenizer, "post_processor": None, "decoder": decoder,
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False, **model,
                  "vocab": vocab, "merges": list(merges)},
    }


def added_token(token_id: int, content: str, special: bool) -> dict:
    return {"id": token_id, "content": content, "single_word": False, "lstrip": False, "rstrip": False,
            "normalized": False, "special": special}


def byte_alphabet() -> dict[str, int]:
    """The 256 byte characters as token ids 0..255, in byte order."""
    return {char: byte for char, byte in sorted(gpt2_char_to_byte().items(), key=lambda item: item[1])}


def write(tmp_path, doc, name="tokenizer.json"):
    path = tmp_path / name
    path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    return path


def test_added_tokens_user_text_and_special(tmp_path):
    vocab = {**byte_alphabet(), "Ġx": 256}
    doc = bpe_document(vocab, merges=["Ġ x"], added=[added_token(257, "é x", False), added_token(258, "<|end|>", True)])
    path = write(tmp_path, doc)
    loaded = load_vocabulary(path)
    assert loaded.token_bytes[256:] == (b" x", "é x".encode(), b"")
    assert loaded.kinds[256:].tolist() == [TokenKind.NORMAL, TokenKind.USER, TokenKind.SPECIAL]
    assert loaded.eos_ids == (258,)  # "<|end|>" is a well-known end token
    ids = Tokenizer.from_file(str(path)).encode("aé xb x<|end|>", add_special_tokens=False).ids
    assert 257 in ids and ids[-1] == 258
    assert b"".join(loaded.token_bytes[i] for i in ids) == "aé xb x".encode()


def test_ids_missing_from_the_file_are_holes(tmp_path):
    doc = bpe_document({"a": 0, "b": 1, "ab": 5}, merges=["a b"], added=[added_token(7, "<s>", True)])
    loaded = load_vocabulary(write(tmp_path, doc))
    assert loaded.size == 8
    assert loaded.kinds.tolist() == [0, 0, TokenKind.HOLE, TokenKind.HOLE, TokenKind.HOLE, 0, TokenKind.HOLE,
                                     TokenKind.SPECIAL]
    assert not loaded.text_token_mask()[[2, 3, 4, 6]].any()


def test_added_token_overrides_the_model_entry_of_its_id(tmp_path):
    doc = bpe_document({"<unk>": 0, "a": 1}, added=[added_token(0, "<unk>", True)],
                       pre_tokenizer=None, decoder=METASPACE, byte_fallback=True, unk_token="<unk>")
    loaded = load_vocabulary(write(tmp_path, doc))
    assert loaded.token_bytes == (b"", b"a") and loaded.kinds[0] == TokenKind.SPECIAL


def test_unknown_token_is_special_even_when_not_added(tmp_path):
    doc = bpe_document({"<unk>": 0, "▁a": 1}, pre_tokenizer=METASPACE, decoder=METASPACE, unk_token="<unk>")
    loaded = load_vocabulary(write(tmp_path, doc))
    assert loaded.family == "sentencepiece-bpe"
    assert loaded.kinds[0] == TokenKind.SPECIAL and loaded.token_bytes == (b"", b" a")


def test_byte_pieces_are_text_without_byte_fallback(tmp_path):
    doc = bpe_document({"<0x41>": 0, "▁": 1}, pre_tokenizer=METASPACE, decoder=METASPACE)
    assert load_vocabulary(write(tmp_path, doc)).token_bytes == (b"<0x41>", b" ")
    doc = bpe_document({"<0x41>": 0, "▁": 1}, pre_tokenizer=METASPACE, decoder=METASPACE, byte_fallback=True)
    loaded = load_vocabulary(write(tmp_path, doc))
    assert loaded.token_bytes == (b"A", b" ") and loaded.kinds[0] == TokenKind.BYTE


def test_old_unigram_serialization_without_type(tmp_path):
    doc = {"added_tokens": [], "normalizer": None, "pre_tokenizer": METASPACE, "decoder": METASPACE,
           "model": {"unk_id": 0, "vocab": [["<unk>", 0.0], ["▁a", -1.0], ["b", -2.0], ["<0x41>", -3.0]]}}
    loaded = load_vocabulary(write(tmp_path, doc))
    assert loaded.family == "unigram"
    assert loaded.token_bytes == (b"", b" a", b"b", b"<0x41>")
    doc["model"].update(type="Unigram", byte_fallback=True)
    assert load_vocabulary(write(tmp_path, doc)).token_bytes[3] == b"A"


def test_byte_level_token_outside_the_byte_map_stands_for_its_utf8(tmp_path):
    """As the tokenizers ByteLevel decoder does: a token with a space or CJK is its own UTF-8."""
    doc = bpe_document({"Ġa": 0, "a b": 1, "東": 2, "ĠĊ": 3})
    loaded = load_vocabulary(write(tmp_path, doc))
    assert loaded.token_bytes == (b" a", b"a b", "東".encode(), b" \n")
    decoder = Tokenizer.from_file(str(write(tmp_path, doc)))
    assert [decoder.decode([i]) for i in range(4)] == [" a", "a b", "東", " \n"]


@pytest.mark.parametrize(
    "layout",
    ["standard", "merges first", "pair merges", "token named merges", "model first", "indented"],
)
def test_every_layout_gives_the_same_vocabulary(tmp_path, layout):
    vocab = {**byte_alphabet(), "merges": 256, "Ġmerges": 257}
    merges = ["m e", "me r", "mer g", "merg e", "merge s", "Ġ merges"]
    doc = bpe_document(vocab, merges=merges)
    if layout == "merges first":
        model = doc["model"]
        doc["model"] = {"merges": model.pop("merges"), **model}
    elif layout == "pair merges":
        doc["model"]["merges"] = [m.split(" ") for m in merges]
    elif layout == "token named merges":
        doc["model"]["merges"] = [["merge", "s"], ["merges", "Ġ"]]
    elif layout == "model first":
        doc = {"model": doc.pop("model"), **doc}
    text = json.dumps(doc, ensure_ascii=False, indent=2 if layout == "indented" else None)
    path = tmp_path / "tokenizer.json"
    path.write_text(text, encoding="utf-8")
    loaded = load_vocabulary(path)
    assert loaded.size == 258 and loaded.token_bytes[256:] == (b"merges", b" merges")
    assert loaded.token_bytes[:256] == tuple(bytes([b]) for b in range(256))
    cut = without_trailing_merges(text.encode())
    if layout in ("standard", "pair merges", "token named merges", "indented"):  # tokenizers' layouts
        assert cut is not None and json.loads(cut)["model"]["merges"] == []
    else:
        assert cut is None


def test_a_key_ending_in_an_escaped_quote_and_merges_is_not_cut():
    text = '{"model": {"vocab": {"a": 0}, "x\\"merges": [1]}}'
    assert json.loads(text)["model"]['x"merges'] == [1]
    assert without_trailing_merges(text.encode()) is None


BAD_DOCUMENTS = {
    "empty": (b"", "invalid JSON"),
    "binary": (b"\x00\x01\x02", "invalid JSON"),
    "latin-1": (b'{"a": "\xe9"}', "not UTF-8"),
    "array": (b"[1, 2]", "top level is not a JSON object"),
    "no model": (b'{"version": "1.0"}', 'no "model" object'),
    "WordPiece": (json.dumps({"model": {"type": "WordPiece", "vocab": {}}}).encode(), "WordPiece tokenizers are not"),
    "unknown type": (json.dumps({"model": {"type": "Foo"}}).encode(), "unknown model type 'Foo'"),
    "shapeless": (json.dumps({"model": {"vocab": {"a": 0}}}).encode(), 'no "type"'),
    "plain BPE": (json.dumps(bpe_document({"a": 0}, pre_tokenizer={"type": "Whitespace"}, decoder=None)).encode(),
                  "neither ByteLevel nor Metaspace"),
    "CLIP suffix": (json.dumps(bpe_document({"a</w>": 0}, end_of_word_suffix="</w>")).encode(), "end-of-word suffix"),
    "unigram byte-level": (json.dumps({"pre_tokenizer": BYTE_LEVEL, "model": {"type": "Unigram", "unk_id": None,
                           "vocab": [["a", 0.0]]}}).encode(), "byte-level Unigram"),
    "two tokens one id": (json.dumps(bpe_document({"a": 1, "b": 1})).encode(), "id 1 is given to two tokens"),
    "float id": (json.dumps(bpe_document({"a": 0.5})).encode(), "must be integers"),
    "huge id": (json.dumps(bpe_document({"a": 2**40})).encode(), "outside the supported range"),
    "negative id": (json.dumps(bpe_document({"a": -1})).encode(), "token id -1 is outside"),
    "bad added token": (json.dumps(bpe_document({"a": 0}, added=[{"id": -3, "content": "x"}])).encode(),
                        r"added_tokens\[0\] needs"),
    "bad unigram entry": (json.dumps({"model": {"type": "Unigram", "unk_id": 0, "vocab": [["a", 0.0], 5]}}).encode(),
                          r"not a \[piece, score\] pair"),
    "unigram strings": (json.dumps({"model": {"type": "Unigram", "unk_id": 0, "vocab": ["ab", "cd"]}}).encode(),
                        r"not a \[piece, score\] pair"),
    "bad unk_id": (json.dumps({"model": {"type": "Unigram", "unk_id": 9, "vocab": [["a", 0.0]]}}).encode(),
                   "unk_id 9 is not a piece id"),
    "lone surrogate": (b'{"model": {"type": "BPE", "vocab": {"\\ud800": 0}, "merges": []},'
                       b' "pre_tokenizer": {"type": "Metaspace"}}', "not valid Unicode"),
}


@pytest.mark.parametrize("case", sorted(BAD_DOCUMENTS))
def test_bad_tokenizer_files_are_refused_with_the_file_and_reason(tmp_path, case):
    data, message = BAD_DOCUMENTS[case]
    path = tmp_path / "tokenizer.json"
    path.write_bytes(data)
    with pytest.raises(VocabularyError, match=message) as caught:
        load_vocabulary(path)
    assert str(caught.value).startswith(str(path))


def test_truncated_json_reports_the_position(tmp_path, bundled_tokenizer):
    text = zstandard.ZstdDecompressor().decompress(bundled_tokenizer("gpt2").read_bytes())
    path = tmp_path / "tokenizer.json"
    path.write_bytes(text[:100_000])
    with pytest.raises(VocabularyError, match=r"at position \d+: not a tokenizer.json: invalid JSON"):
        load_vocabulary(path)


def test_truncated_and_corrupt_zstandard_are_refused(tmp_path, bundled_tokenizer):
    data = bundled_tokenizer("gpt2").read_bytes()
    path = tmp_path / "tokenizer.json.zst"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(VocabularyError, match="truncated zstandard data"):
        load_vocabulary(path)
    path.write_bytes(data[:4] + b"\xff" * 64)
    with pytest.raises(VocabularyError, match="zstandard"):
        load_vocabulary(path)


def test_missing_file_and_directory_are_refused(tmp_path):
    with pytest.raises(VocabularyError, match="cannot read tokenizer"):
        load_vocabulary(tmp_path / "absent.json")
    with pytest.raises(VocabularyError, match="cannot read tokenizer"):
        load_vocabulary(tmp_path)

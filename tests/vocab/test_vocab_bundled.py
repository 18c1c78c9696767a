"""Every bundled tokenizer: each id's bytes and kind, checked three ways.

1. against ``spelling_reference`` (a plain per-token reading of the same file);
2. against HF ``tokenizers`` decoding each token on its own;
3. against HF ``tokenizers`` encoding texts in several scripts: the bytes of the encoded ids
   concatenate to the text's UTF-8 bytes (SentencePiece: to a space + the text, the ``▁`` its
   normaliser prepends).
"""

from __future__ import annotations

import json
from collections import Counter
from functools import cache

import numpy as np
import pytest
from spelling_reference import reference_tokens
from tokenizers import Tokenizer

from indexc.vocab import TokenKind, load_vocabulary, read_tokenizer_json_text

FAMILIES = {
    "gpt2": "byte-level-bpe",
    "llama3": "byte-level-bpe",
    "qwen2": "byte-level-bpe",
    "mistral": "sentencepiece-bpe",
    "t5": "unigram",
}
SIZES = {"gpt2": 50_257, "llama3": 128_256, "qwen2": 151_665, "mistral": 32_000, "t5": 32_100}
EOS = {
    "gpt2": {50256},
    "llama3": {128001, 128009},
    "qwen2": {151643, 151645},
    "mistral": {2},
    "t5": {1},
}
LEADING_SPACE = {"mistral", "t5"}  # a Prepend / Metaspace normaliser adds "▁" before the text

SAMPLE_TEXTS = [
    "The quick brown fox jumps over the lazy dog.",
    "def area(r):\n\treturn {'pi': 3.14159 * r ** 2}  # circle\n",
    "東京は日本の首都です。中文测试，한국어 텍스트",
    "Launch 🚀 done ✅ 👩\u200d💻 🇫🇷",
    "a\n\nb\t\tc   d\r\n  end",
    "Price: 42€ (≈ $45) — naïve café… Ωμέγα",
]
# T5 has no byte fallback and its normaliser folds whitespace: only texts it can spell.
T5_TEXTS = ["The quick brown fox jumps over the lazy dog.", "Price: 42 euros, a naive cafe (really)!"]
T5_UNK_ID = 2


@cache
def hf_tokenizer(name: str, path: str) -> Tokenizer:
    return Tokenizer.from_str(read_tokenizer_json_text(path))


@cache
def document(path: str) -> dict:
    return json.loads(read_tokenizer_json_text(path))


@pytest.fixture(params=sorted(FAMILIES), scope="module")
def name(request) -> str:
    return request.param


def test_family_size_and_kinds_cover_every_id(name, bundled_vocabulary, bundled_tokenizer):
    vocab = bundled_vocabulary(name)
    tokenizer = hf_tokenizer(name, str(bundled_tokenizer(name)))
    assert vocab.family == FAMILIES[name]
    assert vocab.size == SIZES[name] == tokenizer.get_vocab_size(with_added_tokens=True)
    assert len(vocab.token_bytes) == len(vocab.kinds) == len(vocab.names) == vocab.size
    assert np.isin(vocab.kinds, [int(k) for k in TokenKind]).all()
    assert not (vocab.kinds == TokenKind.HOLE).any()  # these files have no gaps
    empty = np.array([len(b) == 0 for b in vocab.token_bytes])
    assert np.array_equal(empty, vocab.kinds == TokenKind.SPECIAL)


def test_every_token_follows_the_family_rules(name, bundled_vocabulary, bundled_tokenizer):
    vocab = bundled_vocabulary(name)
    expected = reference_tokens(document(str(bundled_tokenizer(name))), FAMILIES[name])
    assert sorted(expected) == list(range(vocab.size))
    kinds = [TokenKind(k).name.lower() for k in vocab.kinds.tolist()]
    assert [(kinds[i], vocab.token_bytes[i]) for i in range(vocab.size)] == [expected[i] for i in range(vocab.size)]


def test_each_token_decodes_as_tokenizers_decodes_it(name, bundled_vocabulary, bundled_tokenizer):
    """Tokens whose bytes are whole UTF-8 text decode to them; special ones decode to nothing."""
    vocab = bundled_vocabulary(name)
    tokenizer = hf_tokenizer(name, str(bundled_tokenizer(name)))
    ids, expected = [], []
    for i, data in enumerate(vocab.token_bytes):
        if vocab.kinds[i] == TokenKind.SPECIAL:
            ids.append(i)
            expected.append("")
            continue
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            continue  # partial UTF-8: covered by the rules and the encoding tests
        if name in LEADING_SPACE and text.startswith(" "):
            text = text[1:]  # the decoders strip the space their normaliser added
        ids.append(i)
        expected.append(text)
    assert len(ids) > 0.9 * vocab.size
    assert tokenizer.decode_batch([[i] for i in ids], skip_special_tokens=True) == expected


@pytest.mark.parametrize("text", SAMPLE_TEXTS)
@pytest.mark.parametrize("name", sorted(set(FAMILIES) - {"t5"}))  # T5: see the T5 tests below
def test_encoded_tokens_concatenate_to_the_text(name, text, bundled_vocabulary, bundled_tokenizer):
    vocab = bundled_vocabulary(name)
    ids = hf_tokenizer(name, str(bundled_tokenizer(name))).encode(text, add_special_tokens=False).ids
    spelled = b"".join(vocab.token_bytes[i] for i in ids)
    prefix = b" " if name in LEADING_SPACE else b""
    assert spelled == prefix + text.encode("utf-8")
    assert all(vocab.kinds[i] != TokenKind.SPECIAL for i in ids)


@pytest.mark.parametrize("text", T5_TEXTS)
def test_t5_spells_texts_without_unknown_characters(text, bundled_vocabulary, bundled_tokenizer):
    vocab = bundled_vocabulary("t5")
    ids = hf_tokenizer("t5", str(bundled_tokenizer("t5"))).encode(text, add_special_tokens=False).ids
    assert T5_UNK_ID not in ids
    assert b"".join(vocab.token_bytes[i] for i in ids) == b" " + text.encode("utf-8")


def test_t5_unknown_token_has_no_bytes(bundled_vocabulary, bundled_tokenizer):
    """For ``{``, ``}`` and ``東`` T5 emits <unk>, which stands for no bytes: the text is lost."""
    vocab = bundled_vocabulary("t5")
    ids = hf_tokenizer("t5", str(bundled_tokenizer("t5"))).encode("a {b} 東", add_special_tokens=False).ids
    assert ids.count(T5_UNK_ID) == 3
    assert vocab.kinds[T5_UNK_ID] == TokenKind.SPECIAL and vocab.token_bytes[T5_UNK_ID] == b""
    assert b"".join(vocab.token_bytes[i] for i in ids) == b" a b "  # the last space is "▁" before 東


def test_eos_sets(name, bundled_vocabulary):
    vocab = bundled_vocabulary(name)
    assert set(vocab.eos_ids) == EOS[name]
    assert all(vocab.kinds[i] == TokenKind.SPECIAL for i in vocab.eos_ids)


def test_mistral_keeps_every_id_of_duplicate_bytes(bundled_vocabulary):
    """Byte tokens ``<0x41>`` and the piece ``A`` stand for the same byte: both stay, distinct ids."""
    vocab = bundled_vocabulary("mistral")
    text_ids = np.flatnonzero(vocab.text_token_mask()).tolist()
    groups = Counter(vocab.token_bytes[i] for i in text_ids)
    shared = {data: n for data, n in groups.items() if n > 1}
    assert len(shared) == 125 and set(shared.values()) == {2}
    ids_of = {}
    for i in text_ids:
        ids_of.setdefault(vocab.token_bytes[i], []).append(i)
    for data in shared:
        kinds = sorted(TokenKind(vocab.kinds[i]) for i in ids_of[data])
        assert kinds == [TokenKind.NORMAL, TokenKind.BYTE] and len(data) == 1
    assert ids_of[b" "] == [32 + 3, 28705]  # <0x20> and "▁"


def test_byte_tokens_are_the_256_single_bytes(bundled_vocabulary):
    vocab = bundled_vocabulary("mistral")
    byte_ids = np.flatnonzero(vocab.kinds == TokenKind.BYTE)
    assert sorted(vocab.token_bytes[i] for i in byte_ids) == [bytes([b]) for b in range(256)]


def test_partial_utf8_tokens_are_ordinary_text_tokens(bundled_vocabulary):
    vocab = bundled_vocabulary("llama3")
    partial = [i for i in range(128_000) if not _is_utf8(vocab.token_bytes[i])]
    assert len(partial) > 1000
    assert all(vocab.kinds[i] == TokenKind.NORMAL for i in partial)


def test_qwen2_user_tokens_spell_their_content(bundled_vocabulary, bundled_tokenizer):
    vocab = bundled_vocabulary("qwen2")
    users = np.flatnonzero(vocab.kinds == TokenKind.USER).tolist()
    assert [vocab.names[i] for i in users][:2] == ["<tool_call>", "</tool_call>"]
    assert all(vocab.token_bytes[i] == vocab.names[i].encode() for i in users)
    ids = hf_tokenizer("qwen2", str(bundled_tokenizer("qwen2"))).encode("x<tool_call>y", add_special_tokens=False).ids
    assert users[0] in ids
    assert b"".join(vocab.token_bytes[i] for i in ids) == b"x<tool_call>y"


def test_model_vocab_size_pads_with_holes(bundled_tokenizer, bundled_vocabulary):
    plain = bundled_vocabulary("qwen2")
    padded = load_vocabulary(bundled_tokenizer("qwen2"), vocab_size=151_936)
    assert padded.size == 151_936
    assert padded.token_bytes[: plain.size] == plain.token_bytes
    assert (padded.kinds[plain.size:] == TokenKind.HOLE).all()
    assert not padded.text_token_mask()[plain.size:].any()
    assert padded.eos_ids == plain.eos_ids


def test_plain_and_compressed_files_give_the_same_vocabulary(tmp_path, bundled_tokenizer, bundled_vocabulary):
    plain = tmp_path / "gpt2.json"
    plain.write_text(read_tokenizer_json_text(bundled_tokenizer("gpt2")), encoding="utf-8")
    (tmp_path / "gpt2.tokenizer_config.json").write_bytes(
        bundled_tokenizer("gpt2").with_name("gpt2.tokenizer_config.json").read_bytes())
    vocab = load_vocabulary(plain)
    assert vocab.fingerprint == bundled_vocabulary("gpt2").fingerprint


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True

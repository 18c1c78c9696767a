"""GGUF: files written by ``gguf_writer`` read back; corrupt and truncated files are refused."""

from __future__ import annotations

import struct

import numpy as np
import pytest
from gguf_writer import (
    ARRAY,
    BOOL,
    BYTE,
    CONTROL,
    FLOAT32,
    INT32,
    NORMAL,
    STRING,
    UINT8,
    UINT64,
    UNKNOWN,
    UNUSED,
    USER_DEFINED,
    Value,
    gguf_bytes,
    int32_array,
    string,
    string_array,
    tokenizer_metadata,
    u32,
    write_gguf,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from indexc.errors import VocabularyError
from indexc.vocab import TokenKind, load_vocabulary
from indexc.vocab.gguf_reader import read_gguf_metadata

GGUF_TYPE_OF_KIND = {TokenKind.NORMAL: NORMAL, TokenKind.BYTE: BYTE, TokenKind.SPECIAL: CONTROL,
                     TokenKind.USER: USER_DEFINED}


def small_llama_metadata() -> dict[str, Value]:
    tokens = ["<unk>", "<s>", "</s>", "<0x0A>", "<0xE4>", "▁hello", "▁", "wor", "<tool>", "<unused0>", "<|eot_id|>"]
    types = [UNKNOWN, CONTROL, CONTROL, BYTE, BYTE, NORMAL, NORMAL, NORMAL, USER_DEFINED, UNUSED, CONTROL]
    return tokenizer_metadata("llama", tokens, types, eos_token_id=2,
                              extra={"tokenizer.ggml.eot_token_id": u32(10)})


def test_llama_style_gguf(tmp_path):
    vocab = load_vocabulary(write_gguf(tmp_path / "small.gguf", small_llama_metadata()))
    assert vocab.family == "gguf-sentencepiece-bpe"
    assert vocab.token_bytes == (b"", b"", b"", b"\n", b"\xe4", b" hello", b" ", b"wor", b"<tool>", b"", b"")
    K = TokenKind
    assert vocab.kinds.tolist() == [K.SPECIAL, K.SPECIAL, K.SPECIAL, K.BYTE, K.BYTE, K.NORMAL, K.NORMAL,
                                    K.NORMAL, K.USER, K.HOLE, K.SPECIAL]
    assert vocab.eos_ids == (2, 10)
    assert vocab.names[5] == "▁hello"


def test_gpt2_style_gguf_equals_the_hf_file(tmp_path, bundled_vocabulary):
    """GPT-2's strings and types in a GGUF give the same bytes, kinds and eos as its tokenizer.json."""
    hf = bundled_vocabulary("gpt2")
    types = [GGUF_TYPE_OF_KIND[TokenKind(k)] for k in hf.kinds.tolist()]
    path = write_gguf(tmp_path / "gpt2.gguf", tokenizer_metadata("gpt2", hf.names, types, eos_token_id=50256))
    vocab = load_vocabulary(path)
    assert vocab.family == "gguf-byte-level-bpe"
    assert vocab.token_bytes == hf.token_bytes
    assert np.array_equal(vocab.kinds, hf.kinds)
    assert vocab.fingerprint == hf.fingerprint


def test_llama_style_gguf_of_mistral_equals_the_hf_file(tmp_path, bundled_vocabulary):
    hf = bundled_vocabulary("mistral")
    types = [GGUF_TYPE_OF_KIND[TokenKind(k)] for k in hf.kinds.tolist()]
    types[0] = UNKNOWN
    path = write_gguf(tmp_path / "mistral.gguf", tokenizer_metadata("llama", hf.names, types, eos_token_id=2))
    vocab = load_vocabulary(path)
    assert vocab.token_bytes == hf.token_bytes
    assert np.array_equal(vocab.kinds, hf.kinds)
    assert vocab.eos_ids == (2,)


def test_without_token_types_every_token_is_normal(tmp_path):
    path = write_gguf(tmp_path / "t5.gguf", tokenizer_metadata("t5", ["▁a", "b", "<0x41>"]))
    vocab = load_vocabulary(path)
    assert vocab.family == "gguf-unigram"
    assert vocab.token_bytes == (b" a", b"b", b"<0x41>")
    assert (vocab.kinds == TokenKind.NORMAL).all() and vocab.eos_ids == ()


def test_well_known_end_tokens_and_overrides_apply_to_gguf(tmp_path):
    path = write_gguf(tmp_path / "g.gguf", small_llama_metadata())
    assert load_vocabulary(path, eos_ids=[7]).eos_ids == (7,)
    assert load_vocabulary(path, vocab_size=16).size == 16
    meta = small_llama_metadata()
    del meta["tokenizer.ggml.eos_token_id"], meta["tokenizer.ggml.eot_token_id"]
    path = write_gguf(tmp_path / "h.gguf", meta)
    assert load_vocabulary(path).eos_ids == (2, 10)  # "</s>" and "<|eot_id|>" are control tokens


def test_other_keys_of_every_type_are_skipped_or_decoded(tmp_path):
    extra = {
        "general.name": string("tiny"),
        "x.u8": Value(UINT8, 7),
        "x.flag": Value(BOOL, True),
        "x.f32": Value(FLOAT32, 0.5),
        "x.u64": Value(UINT64, 2**40),
        "tokenizer.ggml.merges": string_array(["a b", "ab c"]),
        "tokenizer.ggml.scores": Value(ARRAY, [0.0, -1.5], FLOAT32),
        "x.nested": Value(ARRAY, [int32_array([1, 2]), string_array(["z"])], ARRAY),
    }
    metadata = {**extra, **tokenizer_metadata("gpt2", ["a", "b", "ab", "Ġc"], eos_token_id=3)}
    path = write_gguf(tmp_path / "mixed.gguf", metadata)
    vocab = load_vocabulary(path)
    assert vocab.token_bytes == (b"a", b"b", b"ab", b" c") and vocab.eos_ids == (3,)
    meta = read_gguf_metadata(path)
    assert meta["x.u8"] == 7 and meta["x.flag"] is True and meta["x.f32"] == 0.5 and meta["x.u64"] == 2**40
    assert meta["tokenizer.ggml.merges"] == ["a b", "ab c"]
    assert meta["tokenizer.ggml.scores"].tolist() == [0.0, -1.5]
    assert meta["x.nested"][0].tolist() == [1, 2] and meta["x.nested"][1] == ["z"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda m: m.pop("tokenizer.ggml.model"), "no tokenizer metadata"),
        (lambda m: m.pop("tokenizer.ggml.tokens"), "no tokenizer.ggml.tokens"),
        (lambda m: m.update({"tokenizer.ggml.model": string("bert")}), "'bert' is not supported"),
        (lambda m: m.update({"tokenizer.ggml.model": string("none")}), "'none' is not supported"),
        (lambda m: m.update({"tokenizer.ggml.tokens": int32_array([1, 2])}), "array of strings"),
        (lambda m: m.update({"tokenizer.ggml.token_type": int32_array([1])}), "has 1 entries for 11 tokens"),
        (lambda m: m.update({"tokenizer.ggml.token_type": int32_array([0] * 11)}), "unknown token type 0"),
        (lambda m: m.update({"tokenizer.ggml.token_type": int32_array([7] * 11)}), "unknown token type 7"),
        (lambda m: m.update({"tokenizer.ggml.token_type": int32_array([BYTE] * 11)}), "not <0xNN>"),
        (lambda m: m.update({"tokenizer.ggml.eos_token_id": u32(11)}), "not a token id"),
        (lambda m: m.update({"tokenizer.ggml.eos_token_id": string("2")}), "not an integer"),
    ],
)
def test_bad_tokenizer_metadata_is_refused(tmp_path, change, message):
    metadata = small_llama_metadata()
    change(metadata)
    path = write_gguf(tmp_path / "bad.gguf", metadata)
    with pytest.raises(VocabularyError, match=message) as caught:
        load_vocabulary(path)
    assert str(path) in str(caught.value)


def test_every_truncation_is_refused(tmp_path):
    data = gguf_bytes(small_llama_metadata())
    path = tmp_path / "cut.gguf"
    for length in range(4, len(data)):
        path.write_bytes(data[:length])
        with pytest.raises(VocabularyError) as caught:
            load_vocabulary(path)
        assert "truncated" in str(caught.value) or "cannot fit" in str(caught.value) or "claims" in str(caught.value)


def test_truncation_inside_a_string_array_names_the_key_and_position(tmp_path):
    data = gguf_bytes(small_llama_metadata())
    cut = data.index(b"wor") + 1
    path = tmp_path / "cut.gguf"
    path.write_bytes(data[:cut])
    with pytest.raises(VocabularyError, match=r"at position \d+: key 'tokenizer.ggml.tokens': string 7 of 11 claims"):
        load_vocabulary(path)


def header(version: int = 3, tensors: int = 0, kv_count: int = 1) -> bytes:
    return b"GGUF" + struct.pack("<IQQ", version, tensors, kv_count)


def key(name: str) -> bytes:
    return struct.pack("<Q", len(name)) + name.encode()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (header(kv_count=2**62), "metadata pairs cannot fit"),
        (header() + struct.pack("<Q", 2**63) + b"\0" * 16, "key length 9223372036854775808 is larger than 65535"),
        (header() + key("k") + struct.pack("<I", STRING) + struct.pack("<Q", 2**60), "needs 1152921504606846976 bytes"),
        (header() + key("k") + struct.pack("<IIQ", ARRAY, STRING, 2**61), "array elements cannot fit"),
        (header() + key("k") + struct.pack("<IIQ", ARRAY, INT32, 2**61) + b"\0" * 64, "array elements cannot fit"),
        (header() + key("k") + struct.pack("<I", 13) + b"\0" * 16, "unknown value type 13"),
        (header() + key("k") + struct.pack("<IIQ", ARRAY, 99, 1) + b"\0" * 16, "unknown array element type 99"),
        (header() + key("k") + struct.pack("<IIQ", ARRAY, ARRAY, 1) + struct.pack("<IQ", ARRAY, 1)
         + struct.pack("<IQ", INT32, 0), "nested more than 2 deep"),
        (header() + struct.pack("<Q", 2) + b"\xff\xfe" + struct.pack("<I", UINT8) + b"\0", "key is not UTF-8"),
        (header(version=1), "version 1"),
        (header(version=3 << 24), "big-endian"),
        (b"GGUF\x03\x00", "truncated GGUF: 6 bytes"),
    ],
    ids=["kv count", "key length", "string length", "string array", "int array", "value type",
         "element type", "nesting", "key utf-8", "v1", "big-endian", "short header"],
)
def test_absurd_or_malformed_headers_are_refused_without_allocating(tmp_path, data, message):
    path = tmp_path / "bad.gguf"
    path.write_bytes(data)
    with pytest.raises(VocabularyError, match=message):
        load_vocabulary(path)


def test_strings_must_be_utf8(tmp_path):
    data = gguf_bytes(small_llama_metadata()).replace(b"wor", b"w\xffr")
    path = tmp_path / "latin1.gguf"
    path.write_bytes(data)
    with pytest.raises(VocabularyError, match="string 7 of the array is not UTF-8"):
        load_vocabulary(path)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(flips=st.lists(st.tuples(st.integers(min_value=0), st.integers(1, 255)), min_size=1, max_size=4))
def test_corrupted_files_fail_only_with_vocabulary_errors(tmp_path, flips):
    data = bytearray(gguf_bytes(small_llama_metadata()))
    for position, mask in flips:
        data[position % len(data)] ^= mask
    path = tmp_path / "flipped.gguf"
    path.write_bytes(bytes(data))
    try:
        vocab = load_vocabulary(path)
    except VocabularyError:
        return
    assert vocab.size == len(vocab.token_bytes) == len(vocab.kinds)

"""Loading: every input form, the header as exposed, the fingerprint rule, and typed refusals."""

from __future__ import annotations

import struct
import zlib

import numpy as np
import pytest
import zstandard

import handmade
import indexc_runtime
import surgery
from indexc_runtime import ArtifactError, FingerprintMismatch, FingerprintMismatchWarning

EXPECTED = handmade.brute_force_masks(handmade.NUMBER, handmade.NUMBER_TOKENS, handmade.NUMBER_EOS)


def masks_of(index) -> list[set[int]]:
    return [set(index.state_token_ids(s).tolist()) for s in range(index.n_states)]


@pytest.fixture
def raw(number_artifact) -> bytes:
    return number_artifact.read_bytes()


def test_every_input_form_gives_the_same_index(number_artifact, raw, tmp_path):
    compressed = zstandard.ZstdCompressor().compress(raw)
    (tmp_path / "renamed.bin").write_bytes(compressed)  # the magic decides, not the name
    unaligned = memoryview(b"x" + raw)[1:]
    for source in [number_artifact, str(number_artifact), raw, bytearray(raw), unaligned, compressed,
                   tmp_path / "renamed.bin"]:
        index = indexc_runtime.load(source, verify=True)
        assert masks_of(index) == EXPECTED, type(source)


def test_metadata_comes_from_the_header(number_index):
    assert number_index.vocab_size == 40 and number_index.mask_words == 2
    assert number_index.eos_token_ids == (1,)
    assert number_index.fingerprint == "handmade-number"
    assert number_index.n_states == 5 and number_index.format_version == indexc_runtime.FORMAT_VERSION
    header = number_index.header
    assert header["constraint"]["source"] == "number" and header["options"] == {"handmade": True}
    header["vocab"]["size"] = 1  # a copy: the index is unaffected
    assert number_index.header["vocab"]["size"] == 40
    assert [s.name for s in number_index.sections][:3] == ["byte_classes", "class_transitions", "accepting"]
    assert all(s.offset % 64 == 0 for s in number_index.sections)
    assert np.array_equal(number_index.special_token_ids, [0, 1, 39])


def test_a_different_fingerprint_is_refused_naming_both(number_artifact):
    with pytest.raises(FingerprintMismatch, match="handmade-number.*other-vocab") as caught:
        indexc_runtime.load(number_artifact, expected_fingerprint="other-vocab")
    assert caught.value.artifact_fingerprint == "handmade-number"
    index = indexc_runtime.load(number_artifact)
    with pytest.raises(FingerprintMismatch):
        index.check_fingerprint("other-vocab")
    with pytest.warns(FingerprintMismatchWarning, match="SERVING ANYWAY.*handmade-number.*other-vocab"):
        index.check_fingerprint("other-vocab", allow_mismatch=True)
    index.check_fingerprint("handmade-number")


@pytest.mark.parametrize("content, message", [
    (b"", "the file is empty"),
    (b"INDEX", "truncated"),
    (b"PK\x03\x04" + bytes(40), "not an indexc artifact"),
    (b"INDEXC\x00\x02" + bytes(40), "container version 0002 is not supported"),
    (struct.pack("<8sII", b"INDEXC\x00\x01", 1 << 30, 0), "exceeds the limit"),
    (struct.pack("<8sII", b"INDEXC\x00\x01", 100, 0) + bytes(10), "truncated: the header needs 116 bytes"),
    (struct.pack("<8sII", b"INDEXC\x00\x01", 3, zlib.crc32(b"\xc1\xc1\xc1")) + b"\xc1\xc1\xc1", "not valid msgpack"),
    (struct.pack("<8sII", b"INDEXC\x00\x01", 1, zlib.crc32(b"\x01")) + b"\x01", "header must be a map"),
    (zstandard.ZstdCompressor().compress(b"INDEXC\x00\x01")[:-3], "zstandard"),
])
def test_bad_files_raise_artifact_error_naming_the_file(tmp_path, content, message):
    path = tmp_path / "bad.idx"
    path.write_bytes(content)
    with pytest.raises(ArtifactError, match=message) as caught:
        indexc_runtime.load(path)
    assert str(path) in str(caught.value) and isinstance(caught.value, ValueError)


def test_unreadable_paths_raise_artifact_error(tmp_path):
    with pytest.raises(ArtifactError, match="cannot read"):
        indexc_runtime.load(tmp_path / "missing.idx")
    with pytest.raises(ArtifactError, match="cannot read"):
        indexc_runtime.load(tmp_path)


@pytest.mark.parametrize("change, message", [
    (lambda h: h.update(format_version=2), "format_version 2 is not supported"),
    (lambda h: h.update(byte_order="big"), "byte_order 'big'"),
    (lambda h: h.update(index_kind="grammar"), "index_kind"),
    (lambda h: h["vocab"].update(size=1 << 30), "vocab.size must be an integer"),
    (lambda h: h["vocab"].update(eos_ids=[40]), "eos_ids must hold integers in \\[0, 39\\]"),
    (lambda h: h.update(n_states=True), "n_states must be an integer"),
    (lambda h: h.update(n_classes=300), "n_classes"),
    (lambda h: h.pop("sections"), "'sections' must be a list"),
    (lambda h: h["sections"].pop(4), "section 'mask_form': required section is missing"),
    (lambda h: surgery.section(h, "state_mask").update(dtype="<i8", nbytes=40), "section 'state_mask': dtype '<i8'"),
    (lambda h: surgery.section(h, "state_mask").update(shape=[4], nbytes=16), "dimension n_states should be 5"),
    (lambda h: surgery.section(h, "state_mask").update(nbytes=24), "nbytes 24 does not match"),
    (lambda h: surgery.section(h, "state_mask").update(offset=3), "not a multiple of 64"),
    (lambda h: surgery.section(h, "special_ids").update(offset=1 << 40), "truncated: the section ends"),
    (lambda h: surgery.section(h, "accepting").update(offset=0), "overlaps"),
    (lambda h: h["sections"].append(dict(surgery.section(h, "accepting"))), "appears twice"),
])
def test_header_problems_are_named(raw, change, message):
    with pytest.raises(ArtifactError, match=message):
        indexc_runtime.load(surgery.rewrite_header(raw, change))


def test_unknown_header_keys_and_sections_are_ignored(raw):
    def add_extras(header):
        header["future_key"] = {"anything": [1, 2]}
        last = max(header["sections"], key=lambda e: e["offset"])
        offset = -(-(last["offset"] + last["nbytes"]) // 64) * 64
        header["sections"].append({"name": "future_section", "dtype": "u1", "shape": [3], "offset": offset,
                                   "nbytes": 3, "crc32": zlib.crc32(b"abc")})
    header, data = surgery.split(surgery.rewrite_header(raw, add_extras))
    data += bytes(-len(data) % 64) + b"abc"
    index = indexc_runtime.load(surgery.join(header, data), verify=True)
    assert masks_of(index) == EXPECTED and index.header["future_key"] == {"anything": [1, 2]}


@pytest.mark.parametrize("name, change, message", [
    ("byte_classes", lambda a: a.__setitem__(7, 200), "values must lie in \\[0, 3\\]"),
    ("class_transitions", lambda a: a.__setitem__((0, 0), 5), "values must lie in \\[-1, 4\\]"),
    ("accepting", lambda a: a.__setitem__(0, 2), "values must lie in \\[0, 1\\]"),
    ("state_mask", lambda a: a.__setitem__(1, 5), "values must lie in \\[0, 4\\]"),
    ("mask_form", lambda a: a.__setitem__(0, 3), "mask_form"),
    ("mask_dense_row", lambda a: a.__setitem__(0, 9), "mask_dense_row"),
    ("mask_word_offsets", lambda a: a.__setitem__(2, 1), "offsets must rise from 0 to the word count 0"),
    ("dense_masks", lambda a: a.__setitem__((0, 1), 0xFFFFFFFF), "bits set at ids >= vocab size 40"),
    ("forced_token", lambda a: a.__setitem__(0, 40), "forced_token"),
    ("live_tokens", lambda a: a.__setitem__(slice(0, 2), a[1::-1]), "increase strictly"),
    ("token_class_offsets", lambda a: a.__setitem__(3, 0), "offsets must rise"),
    ("token_class_data", lambda a: a.__setitem__(0, 4), "values must lie in \\[0, 3\\]"),
    ("special_ids", lambda a: a.__setitem__(0, 40), "special_ids"),
])
def test_bounds_are_checked_behind_valid_checksums(raw, name, change, message):
    patched = surgery.rewrite_section(raw, name, change)
    with pytest.raises(ArtifactError, match=message):
        indexc_runtime.load(patched, verify=True)
    index = indexc_runtime.load(patched)  # lazily: the first use of the section refuses it
    with pytest.raises(ArtifactError, match=message):
        matcher = index.matcher()
        matcher.fill_bitmask(np.zeros((1, 2), np.int32))
        matcher.advance(2)
        _ = index.special_token_ids


def test_big_sections_are_verified_on_first_use_or_with_verify(big_artifact):
    raw = bytearray(big_artifact.read_bytes())
    header, data = surgery.split(bytes(raw))
    data_start = len(raw) - len(data)
    entry = surgery.section(header, "token_class_offsets")
    assert entry["nbytes"] > 64 << 10
    raw[data_start + entry["offset"] + 1000] ^= 0x10
    index = indexc_runtime.load(bytes(raw))  # only the small sections are hashed at load
    matcher = index.matcher()
    matcher.fill_bitmask(np.zeros((1, index.mask_words), np.int32))
    with pytest.raises(ArtifactError, match="section 'token_class_offsets': checksum mismatch"):
        matcher.advance(int(handmade.big_masks()[0][0]))
    with pytest.raises(ArtifactError, match="checksum mismatch"):
        indexc_runtime.load(bytes(raw), verify=True)


def test_a_mask_that_disagrees_with_the_walk_is_reported_as_a_bad_artifact(raw):
    # state 0's mask (mask 0, dense row 0) gains token 23 ("a"), which no live-token walk allows
    patched = surgery.rewrite_section(raw, "dense_masks", lambda a: a.__setitem__((0, 0), a[0, 0] | (1 << 23)))
    matcher = indexc_runtime.load(patched, verify=True).matcher()
    with pytest.raises(ArtifactError, match="allows token 23, which is not among the live tokens"):
        matcher.advance(23)
    assert matcher.state == 0

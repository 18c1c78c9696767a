"""Loading: every input form, the header as exposed, the fingerprint rule, and typed refusals."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import numpy as np
import pytest
import zstandard

import handmade
import indexc_runtime
import surgery
from indexc_runtime import masks as mask_store
from indexc_runtime import ArtifactError, FingerprintMismatch, FingerprintMismatchWarning

EXPECTED = handmade.brute_force_masks(handmade.NUMBER, handmade.NUMBER_TOKENS, handmade.NUMBER_EOS)
GOLDEN = Path(__file__).resolve().parents[1] / "data" / "golden"


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
    (lambda h: h.update(format_version=4), "format_version 4 is not supported"),
    (lambda h: h.pop("token_class_rows"), "token_class_rows must be a string"),
    (lambda h: h.update(token_class_rows="rows"), "token_class_rows must be one of \\['live_tokens', 'token_id', 'shared'\\]"),
    (lambda h: h.update(token_class_rows="live_tokens"), "41 offsets for 0 live tokens"),
    (lambda h: h.update(byte_order="big"), "byte_order 'big'"),
    (lambda h: h.update(index_kind="grammar"), "grammar"),
    (lambda h: h["vocab"].update(size=1 << 30), "vocab.size must be an integer"),
    (lambda h: h["vocab"].update(eos_ids=[40]), "eos_ids must hold integers in \\[0, 39\\]"),
    (lambda h: h.update(n_states=True), "n_states must be an integer"),
    (lambda h: h.update(n_classes=300), "n_classes"),
    (lambda h: h.pop("sections"), "'sections' must be a list"),
    (lambda h: h["sections"].pop(4), "section 'mask_form': required section is missing"),
    (lambda h: surgery.section(h, "state_mask").update(dtype="<i8", nbytes=40), "section 'state_mask': dtype '<i8'"),
    (lambda h: surgery.section(h, "class_transitions").update(dtype="<i4", nbytes=80),
     "dtype '<i4', expected 'u1' or '<u2' or '<u4'"),
    (lambda h: surgery.section(h, "state_mask").update(shape=[4], nbytes=16), "dimension n_states should be 5"),
    (lambda h: surgery.section(h, "state_mask").update(nbytes=24), "nbytes 24 does not match"),
    (lambda h: surgery.section(h, "state_mask").update(offset=3), "not a multiple of 64"),
    (lambda h: surgery.section(h, "token_row_of_id").update(offset=1 << 40), "truncated: the section ends"),
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


def test_rows_by_live_token_must_agree_with_the_live_token_list(padded_number_artifact):
    raw = padded_number_artifact.read_bytes()
    assert surgery.split(raw)[0]["token_class_rows"] == "live_tokens"
    with pytest.raises(ArtifactError, match="section 'live_tokens': .*dimension n_live should be 0"):
        indexc_runtime.load(surgery.rewrite_header(raw, lambda h: h.update(token_class_rows="token_id")))


@pytest.mark.parametrize("name, change, message", [
    ("byte_classes", lambda a: a.__setitem__(7, 200), "values must lie in \\[0, 3\\]"),
    ("accepting", lambda a: a.__setitem__(0, 2), "values must lie in \\[0, 1\\]"),
    ("state_mask", lambda a: a.__setitem__(1, 5), "values must lie in \\[0, 4\\]"),
    ("token_class_offsets", lambda a: a.__setitem__(5, 1000), "offsets must rise"),
    ("token_class_offsets", lambda a: a.__setitem__(5, -1), "offsets must rise"),
    ("token_class_data", lambda a: a.__setitem__(0, 4), "values must lie in \\[0, 3\\]"),
    ("special_ids", lambda a: a.__setitem__(0, 40), "values must lie in \\[0, 39\\]"),
])
def test_every_table_bound_is_checked_at_load_behind_valid_checksums(raw, name, change, message):
    patched = surgery.rewrite_section(raw, name, change)
    for verify in (False, True):
        with pytest.raises(ArtifactError, match=f"section '{name}': .*{message}"):
            indexc_runtime.load(patched, verify=verify)


def test_token_class_offsets_out_of_order_are_refused_by_the_walk_that_reads_them_and_by_verify(raw):
    """``load`` bounds the offsets to the data (one max, viewed unsigned); their order is checked by the
    walk (a span running backwards) and by ``verify``: token 4's span becomes [2, 0)."""
    patched = surgery.rewrite_section(raw, "token_class_offsets", lambda a: a.__setitem__(5, 0))
    with pytest.raises(ArtifactError, match="section 'token_class_offsets': offsets must rise"):
        indexc_runtime.load(patched, verify=True)
    index = indexc_runtime.load(patched)
    matcher = index.matcher()
    with pytest.raises(ArtifactError, match="section 'token_class_offsets': token 4's byte classes .* run backwards"):
        matcher.advance(4)
    assert matcher.state == 0 and matcher.num_tokens == 0
    with pytest.raises(ArtifactError, match="section 'token_class_offsets': offsets must rise"):
        index.verify()


@pytest.mark.parametrize("name, change, by_verify, at_first_use", [
    ("mask_form", lambda a: a.__setitem__(0, 3), "values must lie in \\[0, 2\\]", "mask 0 has form 3"),
    ("mask_dense_row", lambda a: a.__setitem__(0, 9), "values must lie in \\[0, 4\\]",
     "dense row 9 is outside \\[0, 4\\]"),
    ("mask_word_offsets", lambda a: a.__setitem__(2, 1), "offsets must rise from 0 to the word count 0",
     "dense mask 1 has words"),
    ("dense_masks", lambda a: a.__setitem__((0, 1), 0xFFFFFFFF), "bits set at ids >= vocab size 40",
     "bits set at ids >= vocab size 40"),
    ("forced_token", lambda a: a.__setitem__(0, 40), "values must lie in \\[-1, 39\\]", "outside \\[-1, 39\\]"),
])
def test_each_mask_is_checked_at_its_first_use_and_every_mask_by_verify(raw, name, change, by_verify, at_first_use):
    """Behind valid checksums: ``load`` scans no mask section; each mask is checked when first
    used (its entry is made, by ``load`` for the start state's; its forced token read), every
    mask by ``verify``."""
    patched = surgery.rewrite_section(raw, name, change)
    with pytest.raises(ArtifactError, match=f"section '{name}': .*{by_verify}"):
        indexc_runtime.load(patched, verify=True)
    with pytest.raises(ArtifactError, match=f"section '{name}': .*{at_first_use}"):
        index = indexc_runtime.load(patched)
        for mask_id in range(index.n_masks):
            index.mask_token_ids(mask_id)
            index._masks.forced(mask_id)


@pytest.mark.parametrize("name, change, at_first_use", [  # on mask 4, which load does not read
    ("mask_form", lambda a: a.__setitem__(4, 3), "mask 4 has form 3"),
    ("mask_dense_row", lambda a: a.__setitem__(4, 9), "dense row 9 is outside \\[0, 4\\]"),
    ("mask_word_offsets", lambda a: a.__setitem__(5, 1), "dense mask 4 has words"),
    ("dense_masks", lambda a: a.__setitem__((4, 1), 0xFFFFFFFF), "mask 4: bits set at ids >= vocab size 40"),
])
def test_a_union_of_masks_checks_what_it_reads_as_their_entries_do(raw, name, change, at_first_use):
    """``MaskStore.union`` (a grammar configuration's part 1) reads masks without making their
    entries: the same checks, the same errors, and nothing past them served."""
    index = indexc_runtime.load(surgery.rewrite_section(raw, name, change))
    with pytest.raises(ArtifactError, match=f"section '{name}': .*{at_first_use}"):
        index._masks.union(tuple(range(index.n_masks)))
    assert index._masks.union((0, 1, 2, 3)).any()  # the others still serve


@pytest.mark.parametrize("position, value, outside_the_row", [
    (1, 0, False), (1, 9, False), (2, 10, True), (3, -1, True), (0, -5, True)])
def test_word_indices_must_rise_inside_each_mask_and_stay_in_the_row(monkeypatch, position, value, outside_the_row):
    """Golden v2: mask 1 (complement) holds words [0, 8, 9], mask 2 (sparse) word [0]; W = 10.

    An index outside the row is refused by ``load`` (one bound over every index).  Indices out
    of order are refused at the mask's first use when it is kept as pairs (``contains``
    bisects them); a materialised mask is one row that fill and ``contains`` both read, so it
    serves consistently and only ``verify`` refuses it.
    """
    raw = (GOLDEN / "format-v2-small.idx").read_bytes()
    patched = surgery.rewrite_section(raw, "mask_word_index", lambda a: a.__setitem__(position, value))
    if outside_the_row:
        with pytest.raises(ArtifactError, match="section 'mask_word_index': values must lie in \\[0, 9\\]"):
            indexc_runtime.load(patched)
        return
    with pytest.raises(ArtifactError, match="section 'mask_word_index': word indices must lie in \\[0, 9\\]"):
        indexc_runtime.load(patched, verify=True)
    for budget in (mask_store.MATERIALISE_BYTES, 0):
        monkeypatch.setattr(mask_store, "MATERIALISE_BYTES", budget)
        index = indexc_runtime.load(patched)
        if not budget:
            with pytest.raises(ArtifactError, match="section 'mask_word_index': word indices must increase"):
                for mask_id in range(index.n_masks):
                    index.mask_token_ids(mask_id)
            continue
        for mask_id in range(index.n_masks):
            allowed = set(index.mask_token_ids(mask_id).tolist())
            assert {t for t in range(index.vocab_size) if index._masks.contains(mask_id, t)} == allowed


def test_transitions_are_bounded_by_the_walk_and_by_verify(raw):
    """The one table not scanned at load: a state past the end is refused where it is read."""
    digit = int(indexc_runtime.load(raw)._automaton.byte_classes[ord("1")])
    patched = surgery.rewrite_section(raw, "class_transitions", lambda a: a.__setitem__((0, digit), 6))
    index = indexc_runtime.load(patched)
    with pytest.raises(ArtifactError, match="section 'class_transitions': values must lie in \\[0, 5\\]"):
        index.verify()
    with pytest.raises(ArtifactError, match="section 'class_transitions': values must lie in \\[0, 5\\]"):
        indexc_runtime.load(patched, verify=True)
    matcher = index.matcher()
    for piece in (b"1", b"12"):  # past the end as the last step, then as a step read from
        with pytest.raises(ArtifactError, match="section 'class_transitions': .* past the last state 4"):
            matcher.advance(handmade.NUMBER_TOKENS.index(piece))
        assert matcher.state == 0
    matcher.advance(handmade.NUMBER_TOKENS.index(b"-"))  # other transitions still serve
    assert matcher.state == 1


@pytest.mark.parametrize("name, change, message", [
    ("live_tokens", lambda a: a.__setitem__(slice(0, 2), a[1::-1]), "increase strictly"),
    ("live_tokens", lambda a: a.__setitem__(-1, 100), "values must lie in \\[0, 99\\]"),
    ("token_class_offsets", lambda a: a.__setitem__(-1, 0), "offsets must rise"),
])
def test_live_token_rows_are_checked_at_load(padded_number_artifact, name, change, message):
    patched = surgery.rewrite_section(padded_number_artifact.read_bytes(), name, change)
    with pytest.raises(ArtifactError, match=f"section '{name}': .*{message}"):
        indexc_runtime.load(patched)


def test_version_1_state_tables_are_bounded_after_their_conversion():
    raw = (GOLDEN / "format-v1-small.idx").read_bytes()
    for bad in (-2, 5, 2**31 - 1):
        patched = surgery.rewrite_section(raw, "class_transitions", lambda a: a.__setitem__((0, 0), bad))
        with pytest.raises(ArtifactError, match="section 'class_transitions': values must lie in \\[0, 5\\]"):
            indexc_runtime.load(patched, verify=True)


def test_big_sections_are_hashed_only_by_verify_but_bounded_at_load(big_artifact):
    raw = big_artifact.read_bytes()
    header, data = surgery.split(raw)
    data_start = len(raw) - len(data)
    entry = surgery.section(header, "token_class_offsets")
    assert entry["nbytes"] > 64 << 10 and header["token_class_rows"] == "token_id"
    # offsets[1000] = 1000 -> 1001: still monotonic, so only the checksum can tell
    in_bounds = bytearray(raw)
    in_bounds[data_start + entry["offset"] + 4 * 1000] ^= 0x01
    index = indexc_runtime.load(bytes(in_bounds))
    with pytest.raises(ArtifactError, match="section 'token_class_offsets': checksum mismatch"):
        index.verify()
    with pytest.raises(ArtifactError, match="section 'token_class_offsets': checksum mismatch"):
        indexc_runtime.load(bytes(in_bounds), verify=True)
    # offsets[1000] = 1000 + 2**20: out of order, refused at load without verify
    out_of_bounds = bytearray(raw)
    out_of_bounds[data_start + entry["offset"] + 4 * 1000 + 2] ^= 0x10
    with pytest.raises(ArtifactError, match="section 'token_class_offsets': offsets must rise"):
        indexc_runtime.load(bytes(out_of_bounds))


def test_a_mask_that_disagrees_with_the_walk_is_reported_as_a_bad_artifact(raw):
    # state 0's mask (mask 0, dense row 0) gains token 23 ("a"), which no live-token walk allows
    patched = surgery.rewrite_section(raw, "dense_masks", lambda a: a.__setitem__((0, 0), a[0, 0] | (1 << 23)))
    matcher = indexc_runtime.load(patched, verify=True).matcher()
    with pytest.raises(ArtifactError, match="allows token 23, which is not among the live tokens"):
        matcher.advance(23)
    assert matcher.state == 0

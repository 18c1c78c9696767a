"""write_artifact: byte-identical output, header content, atomic replacement, shipping form,
and a round trip of a table computed by the real mask stage over a real vocabulary."""

from __future__ import annotations

import datetime
import hashlib
import os
import struct
from pathlib import Path

import msgpack
import numpy as np
import pytest
import zstandard

import handmade
import indexc_runtime
from indexc.artifact import VocabInfo, write_artifact
from indexc.artifact import layout
from indexc.errors import OutputError

TOKENS, EOS = handmade.NUMBER_TOKENS, handmade.NUMBER_EOS
TABLE = handmade.table_from_dfa(handmade.NUMBER, TOKENS, EOS)
INFO = handmade.vocab_info(TOKENS, EOS, "number")
TOKENIZERS = Path(__file__).resolve().parents[1] / "data" / "tokenizers"


def write(path, *, table=TABLE, options=None, stats=None, constraint=None, **kwargs):
    return write_artifact(table, path, vocab_info=kwargs.pop("vocab_info", INFO),
                          constraint=constraint or {"kind": "regex", "source": "-?[0-9]+(\\.[0-9]+)?"},
                          options={"jobs": 1, "byte_classes": True} if options is None else options,
                          stats=table.stats if stats is None else stats, **kwargs)


def header_of(path: Path) -> dict:
    raw = path.read_bytes()
    _, length, _ = struct.unpack_from("<8sII", raw)
    return msgpack.unpackb(raw[16 : 16 + length])


def test_identical_inputs_give_identical_bytes(tmp_path):
    write(tmp_path / "a.idx", options={"jobs": 1, "byte_classes": True}, stats={"x": 1, "y": 2})
    write(tmp_path / "b.idx", options={"byte_classes": True, "jobs": 1}, stats={"y": 2, "x": 1})
    assert (tmp_path / "a.idx").read_bytes() == (tmp_path / "b.idx").read_bytes()


def test_the_header_records_inputs_but_no_time(tmp_path):
    summary = write(tmp_path / "n.idx")
    header = header_of(tmp_path / "n.idx")
    assert set(header) == {"format_version", "index_kind", "compiler_version", "byte_order", "alignment", "vocab",
                           "constraint", "options", "stats", "n_states", "n_classes", "n_masks", "start_state",
                           "token_class_rows", "sections"}
    assert header["vocab"] == {"size": 40, "fingerprint": "handmade-number", "eos_ids": [1]}
    assert header["constraint"]["sha256"] == hashlib.sha256(b"-?[0-9]+(\\.[0-9]+)?").hexdigest()
    assert header["options"] == {"byte_classes": True, "jobs": 1}
    assert {e["name"]: e["nbytes"] for e in header["sections"]} == summary.section_bytes
    assert summary.bytes == (tmp_path / "n.idx").stat().st_size == summary.raw_bytes
    data_start = -(-(16 + summary.header_bytes) // 64) * 64
    assert all((data_start + e["offset"]) % 64 == 0 for e in header["sections"])


def section_array(path: Path, name: str) -> np.ndarray:
    """A section read from the bytes as the format document says (not through the runtime)."""
    raw = path.read_bytes()
    _, length, _ = struct.unpack_from("<8sII", raw)
    header = msgpack.unpackb(raw[16 : 16 + length])
    entry = next(e for e in header["sections"] if e["name"] == name)
    start = -(-(16 + length) // 64) * 64 + entry["offset"]
    return np.frombuffer(raw[start : start + entry["nbytes"]], dtype=entry["dtype"]).reshape(entry["shape"])


@pytest.mark.parametrize("n_states, dtype", [(5, np.uint8), (255, np.uint8), (256, np.uint16), (65_536, np.uint32)])
def test_transitions_are_next_state_plus_one_in_the_narrowest_unsigned_dtype(tmp_path, n_states, dtype):
    transitions = np.full((n_states, TABLE.n_classes), -1, dtype=np.int32)
    transitions[:5] = TABLE.class_transitions
    transitions[4, 0] = n_states - 1  # the last state is reachable: the widest value is stored
    extra = n_states - 5
    table = type(TABLE)(**{**TABLE.__dict__, "class_transitions": transitions,
                           "accepting": np.concatenate([TABLE.accepting, np.zeros(extra, bool)]),
                           "state_mask": np.concatenate([TABLE.state_mask, np.zeros(extra, np.int32)])})
    write(tmp_path / "n.idx", table=table)
    stored = section_array(tmp_path / "n.idx", "class_transitions")
    assert stored.dtype == dtype and np.array_equal(stored.astype(np.int64) - 1, transitions)


def test_word_indices_are_int64_and_each_token_row_layout_is_written_as_documented(tmp_path):
    write(tmp_path / "n.idx", token_layout="token_id")  # 28 of 40 ids live
    assert section_array(tmp_path / "n.idx", "mask_word_index").dtype == np.dtype("<i8")
    assert header_of(tmp_path / "n.idx")["token_class_rows"] == "token_id"
    offsets = section_array(tmp_path / "n.idx", "token_class_offsets")
    assert offsets.shape == (41,) and section_array(tmp_path / "n.idx", "live_tokens").size == 0
    lengths = np.diff(offsets)
    assert np.array_equal(np.flatnonzero(lengths), TABLE.live_tokens)
    assert np.array_equal(lengths[TABLE.live_tokens], np.diff(TABLE.token_class_offsets))
    padded = handmade.PADDED_NUMBER_TOKENS  # 28 of 100 ids live: rows by live token
    write(tmp_path / "p.idx", table=handmade.table_from_dfa(handmade.NUMBER, padded, EOS),
          vocab_info=handmade.vocab_info(padded, EOS, "padded"), token_layout="live_tokens")
    assert header_of(tmp_path / "p.idx")["token_class_rows"] == "live_tokens"
    assert np.array_equal(section_array(tmp_path / "p.idx", "live_tokens"), TABLE.live_tokens)
    assert np.array_equal(section_array(tmp_path / "p.idx", "token_class_offsets"), TABLE.token_class_offsets)
    write(tmp_path / "s.idx", token_layout="shared")
    assert header_of(tmp_path / "s.idx")["token_class_rows"] == "shared"
    row_of_id = section_array(tmp_path / "s.idx", "token_row_of_id")
    offsets, data = section_array(tmp_path / "s.idx", "token_class_offsets"), section_array(tmp_path / "s.idx", "token_class_data")
    assert row_of_id.dtype == np.dtype("<u2") and offsets[0] == offsets[1] == 0  # row 0: empty, not live
    rows = {bytes(data[offsets[r]:offsets[r + 1]]) for r in range(1, offsets.size - 1)}
    assert len(rows) == offsets.size - 2  # every stored sequence is distinct
    for k, token in enumerate(TABLE.live_tokens):
        row = int(row_of_id[token])
        stored = data[offsets[row]:offsets[row + 1]]
        assert np.array_equal(stored, TABLE.token_class_data[TABLE.token_class_offsets[k]:TABLE.token_class_offsets[k + 1]])
    assert np.count_nonzero(row_of_id) == TABLE.live_tokens.size


def test_the_smallest_token_row_layout_is_chosen(tmp_path):
    sizes = {}
    for layout in ("token_id", "live_tokens", "shared"):
        sizes[layout] = write(tmp_path / f"{layout}.idx", token_layout=layout).bytes
    chosen = header_of(tmp_path / "token_id.idx") and write(tmp_path / "auto.idx").bytes
    assert chosen == min(sizes.values())
    with pytest.raises(ValueError, match="token row layout"):
        write(tmp_path / "bad.idx", token_layout="by_magic")


def test_constraint_hash_is_checked_and_header_values_must_be_plain_data(tmp_path):
    with pytest.raises(ValueError, match="is not the hash of its source"):
        write(tmp_path / "x.idx", constraint={"kind": "regex", "source": "a", "sha256": "0" * 64})
    with pytest.raises(ValueError, match="stats.when: datetime"):
        write(tmp_path / "x.idx", stats={"when": datetime.datetime(2020, 1, 1)})
    with pytest.raises(ValueError, match="eos ids"):
        write(tmp_path / "x.idx", vocab_info=VocabInfo(40, "f", (40,)))
    assert not list(tmp_path.iterdir())


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    target = tmp_path / "n.idx"
    target.write_bytes(b"old content")

    def explode(self, handle):
        handle.write(b"partial")
        raise KeyboardInterrupt

    monkeypatch.setattr(layout.ContainerPlan, "write_to", explode)
    with pytest.raises(KeyboardInterrupt):
        write(target)
    assert target.read_bytes() == b"old content"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["n.idx"]


def test_an_artifact_the_runtime_refuses_is_never_renamed_into_place(tmp_path, monkeypatch):
    original = layout.ContainerPlan.write_to

    def corrupt(self, handle):
        original(self, handle)
        handle.seek(200)
        handle.write(b"\xff")

    monkeypatch.setattr(layout.ContainerPlan, "write_to", corrupt)
    with pytest.raises(ValueError, match="internal error: .* the runtime refuses"):
        write(tmp_path / "n.idx")
    assert not list(tmp_path.iterdir())


def test_durable_writes_fsync_the_file_and_directory_and_give_the_same_bytes(tmp_path, monkeypatch):
    synced = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: synced.append(fd) or real_fsync(fd))
    write(tmp_path / "plain.idx")
    assert synced == []
    write(tmp_path / "durable.idx", durable=True)
    assert len(synced) == 2  # the file before the rename, the directory after it
    assert (tmp_path / "plain.idx").read_bytes() == (tmp_path / "durable.idx").read_bytes()


def test_os_failures_become_output_errors(tmp_path):
    with pytest.raises(OutputError, match="does not exist"):
        write(tmp_path / "missing" / "n.idx")
    (tmp_path / "dir.idx").mkdir()
    with pytest.raises(OutputError, match="cannot write the artifact"):
        write(tmp_path / "dir.idx")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dir.idx"]


def test_the_file_is_readable_by_others(tmp_path):
    write(tmp_path / "n.idx")
    assert (tmp_path / "n.idx").stat().st_mode & 0o777 == 0o644


@pytest.mark.parametrize("name, compress", [("n.idx", True), ("n.idx.zst", False)])
def test_the_shipping_form_is_one_zstd_frame_of_the_same_bytes(tmp_path, name, compress):
    plain = write(tmp_path / "plain.idx")
    shipped = write(tmp_path / name, compress=compress)
    assert shipped.compressed and shipped.raw_bytes == plain.bytes and shipped.bytes < plain.bytes
    payload = (tmp_path / name).read_bytes()
    assert zstandard.ZstdDecompressor().decompress(payload) == (tmp_path / "plain.idx").read_bytes()
    index = indexc_runtime.load(tmp_path / name, verify=True)
    assert index.state_token_ids(0).tolist() == TABLE.masks[TABLE.state_mask[0]].tolist()


def test_tables_that_cannot_be_encoded_are_refused(tmp_path):
    wide = handmade.big_table()
    bad = type(wide)(**{**wide.__dict__, "class_transitions": np.zeros((4, 257), dtype=np.int32)})
    with pytest.raises(ValueError, match="257 byte classes"):
        write_artifact(bad, tmp_path / "x.idx", vocab_info=handmade.big_vocab_info(),
                       constraint={"kind": "regex", "source": "x"}, options={}, stats={})
    with pytest.raises(ValueError, match=r"live tokens must lie in \[0, 20\)"):
        write(tmp_path / "x.idx", vocab_info=VocabInfo(20, "f", (1,)))


def test_a_table_from_the_mask_stage_over_gpt2_round_trips(tmp_path):
    from indexc.automaton.byte_dfa import ByteDFA
    from indexc.masks import MaskOptions, compute_mask_table
    from indexc.trie import build_trie
    from indexc.vocab import load_vocabulary

    vocab = load_vocabulary(TOKENIZERS / "gpt2.json.zst")
    dfa = ByteDFA(handmade.NUMBER.byte_table(), np.array([s in handmade.NUMBER.accepting for s in range(5)]))
    table = compute_mask_table(dfa, build_trie(vocab), vocab, MaskOptions(jobs=1))
    summary = write_artifact(table, tmp_path / "gpt2.idx", vocab_info=vocab,
                             constraint={"kind": "regex", "source": "-?[0-9]+(\\.[0-9]+)?"},
                             options={}, stats=table.stats)
    index = indexc_runtime.load(tmp_path / "gpt2.idx", expected_fingerprint=vocab.fingerprint, verify=True)
    assert index.vocab_size == vocab.size and set(index.eos_token_ids) == set(vocab.eos_ids)
    assert np.array_equal(index.special_token_ids, vocab.special_ids)
    for state in range(table.n_states):
        assert np.array_equal(index.state_token_ids(state), table.masks[table.state_mask[state]])
    matcher = index.matcher()
    for piece in [b"-", b"12", b".", b"5"]:
        matcher.advance(vocab.token_bytes.index(piece))
    assert matcher.state == 4 and matcher.is_accepting()
    assert sum(summary.mask_forms.values()) == len(table.masks)
    assert os.path.getsize(tmp_path / "gpt2.idx") == summary.bytes

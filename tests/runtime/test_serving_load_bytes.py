"""Opening artifacts for many workers: from bytes in memory, and from one file mapped by several processes.

Two freshly spawned processes (no state inherited from this one) load the same file at the same
time, fill masks from it and, while both still hold it, read their own ``/proc/self/smaps``
entry for the file: ``Shared_Clean`` + ``Shared_Dirty`` count the resident pages of the mapping
that another process maps too (dirty: a file just written, not yet flushed), and ``Pss``
divides each page by the number of processes mapping it; so the two share one page-cache copy
iff the shared pages are all of ``Rss`` and ``Pss`` is about half of it.
"""

from __future__ import annotations

import multiprocessing
import sys
from pathlib import Path

import numpy as np
import pytest

import handmade
import indexc_runtime

WALK_STATES = (0, 1, 2)


def masks_of(index) -> np.ndarray:
    """Bitmasks of the big table's states 0, 1, 2 (reached by advancing on the first allowed token)."""
    matcher = index.matcher()
    out = np.zeros((len(WALK_STATES), index.mask_words), dtype=np.int32)
    for row in range(len(WALK_STATES)):
        matcher.fill_bitmask(out, row)
        matcher.advance(int(matcher.allowed_token_ids()[0]))
    return out


def mapping_kb(path: str) -> dict[str, int]:
    """Rss, Pss, Shared_Clean, Shared_Dirty (kB) of this process's mappings of ``path`` (``/proc/self/smaps``)."""
    totals = dict.fromkeys(("Rss", "Pss", "Shared_Clean", "Shared_Dirty"), 0)
    inside = False
    for line in Path("/proc/self/smaps").read_text().splitlines():
        fields = line.split()
        if fields and "-" in fields[0] and not fields[0].endswith(":"):  # a mapping's header line
            inside = line.endswith(path)
        elif inside and fields and fields[0].rstrip(":") in totals:
            totals[fields[0].rstrip(":")] += int(fields[1])
    return totals


def worker(path: str, barrier, results) -> None:
    index = indexc_runtime.load(path)
    masks = masks_of(index)
    barrier.wait(timeout=60)  # both processes hold the mapping now
    results.put((masks.tobytes(), mapping_kb(path)))
    barrier.wait(timeout=60)  # keep it until the other one has looked too


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/smaps")
def test_two_processes_load_one_file_and_share_its_pages(big_artifact):
    context = multiprocessing.get_context("spawn")
    barrier, results = context.Barrier(2), context.Queue()
    processes = [context.Process(target=worker, args=(str(big_artifact), barrier, results)) for _ in range(2)]
    for process in processes:
        process.start()
    answers = [results.get(timeout=120) for _ in processes]
    for process in processes:
        process.join(timeout=60)
        assert process.exitcode == 0
    expected = masks_of(indexc_runtime.load(big_artifact)).tobytes()
    for masks, kb in answers:
        assert masks == expected
        assert kb["Rss"] > 0 and kb["Shared_Clean"] + kb["Shared_Dirty"] == kb["Rss"]
        assert kb["Pss"] <= kb["Rss"] // 2 + 4  # each resident page counted half: two processes map it


def test_load_bytes_serves_what_load_serves(big_artifact, tmp_path):
    data = big_artifact.read_bytes()
    from_file = masks_of(indexc_runtime.load(big_artifact))
    assert np.array_equal(masks_of(indexc_runtime.load_bytes(data)), from_file)
    assert np.array_equal(masks_of(indexc_runtime.load_bytes(bytearray(data))), from_file)
    assert np.array_equal(masks_of(indexc_runtime.load_bytes(memoryview(data)[0:])), from_file)


def test_load_bytes_takes_the_shipping_form_and_checks_the_fingerprint(tmp_path):
    compressed = tmp_path / "number.idx.zst"
    handmade.write_handmade(compressed, handmade.NUMBER, handmade.NUMBER_TOKENS, handmade.NUMBER_EOS, "number")
    assert compressed.read_bytes()[:4] == b"\x28\xb5\x2f\xfd"  # the zstandard shipping form
    index = indexc_runtime.load_bytes(compressed.read_bytes(), expected_fingerprint="handmade-number")
    assert index.n_states == handmade.NUMBER.n_states
    with pytest.raises(indexc_runtime.FingerprintMismatch):
        indexc_runtime.load_bytes(compressed.read_bytes(), expected_fingerprint="another")


def test_load_bytes_refuses_a_path(big_artifact):
    with pytest.raises(TypeError, match="load_bytes\\(\\) takes bytes"):
        indexc_runtime.load_bytes(str(big_artifact))

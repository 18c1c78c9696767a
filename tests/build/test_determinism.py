"""Same inputs, byte-identical artifacts: in-process, local worker processes, and a Dask LocalCluster."""

from __future__ import annotations

from pathlib import Path

import pytest

from indexc.build import run_build


def artifact_bytes(directory: Path) -> dict[str, bytes]:
    return {p.relative_to(directory).as_posix(): p.read_bytes() for p in sorted(directory.rglob("*.idx"))}


def test_sequential_and_parallel_builds_are_byte_identical(project, tmp_path):
    run_build(project, tmp_path / "one", jobs=1)
    run_build(project, tmp_path / "two", jobs=2)
    one, two = artifact_bytes(tmp_path / "one"), artifact_bytes(tmp_path / "two")
    assert len(one) == 3 and one == two


def test_dask_local_cluster_builds_the_same_bytes(project, tmp_path):
    distributed = pytest.importorskip("dask.distributed")
    run_build(project, tmp_path / "local", jobs=1)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        report = run_build(project, tmp_path / "dask", backend="dask", scheduler=cluster.scheduler_address)
        prefixes = list(cluster.scheduler.task_prefixes)
    assert report.exit_code == 0 and len(report.with_status("compiled")) == 3
    # The work went through the scheduler, and the tokenizer's bytes were scattered once, as data.
    assert any(name.startswith("batch_of_compile_pair") for name in prefixes) and "TokenizerFiles" in prefixes
    assert artifact_bytes(tmp_path / "dask") == artifact_bytes(tmp_path / "local")

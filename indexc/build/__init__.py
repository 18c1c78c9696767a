"""Batch builds: a project file of constraints x tokenizers -> a directory of artifacts, incrementally.

Design note.  A build is a pure function from inputs to files, run as little as possible.
Every (constraint x tokenizer) pair is one task with a *build key* (constraint text, vocabulary
fingerprint, compiler and format versions, options); ``manifest.json`` in the output directory
records each artifact's key, size and hash, so an unchanged pair costs one file hash and no
compile, and a second ``make compile`` says "nothing to compile".  Tasks go to workers through
joblib (local processes, or a Dask cluster through joblib's Dask backend: the same code path);
a worker returns the artifact's bytes and the driver alone writes the output directory
(atomically), so a failure anywhere leaves no partial file and costs only its own pair.
Artifacts hold no time, host or path, so the same inputs give byte-identical files whatever
the backend or the number of jobs (the tests compare a local build with a Dask one byte for
byte); compile times live in the manifest.

Code map, in reading order:

    project.py   the project file (TOML): tokenizers, constraint globs, per-entry options
    keys.py      the build key: what decides an artifact's bytes, hashed
    plan.py      every pair as a PairTask (text, artifact path, key)
    kinds.py     one compile call per kind; a missing kind's compiler fails its entries cleanly
    worker.py    one pair -> artifact bytes or a reason (tokenizers loaded once per process)
    backends.py  local processes or Dask, through joblib; outcomes as they finish
    manifest.py  manifest.json: what each artifact was built from; up-to-date checks
    progress.py  the stderr progress bar (counts, ETA)
    runner.py    run_build: plan, skip, compile, write, prune, save (BuildReport)
    summary.py   the end-of-build table and its JSON form
"""

from indexc.build.manifest import MANIFEST_NAME, Manifest, ManifestError, read_manifest
from indexc.build.project import Project, ProjectError, read_project
from indexc.build.runner import BuildReport, PairRecord, run_build

__all__ = [
    "MANIFEST_NAME",
    "BuildReport",
    "Manifest",
    "ManifestError",
    "PairRecord",
    "Project",
    "ProjectError",
    "read_manifest",
    "read_project",
    "run_build",
]

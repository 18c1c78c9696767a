"""``diff_builds``: two ``indexc build`` output directories -> what appeared, disappeared and changed.

Artifacts are matched by their path in the manifest (``<tokenizer>/<name>.idx``).  An artifact
whose file hash is the same in both builds is unchanged (artifacts are deterministic, so
equal hashes mean equal files, and different hashes mean different inputs or compiler); every
changed pair is diffed state by state with ``diff_artifacts``, using the tokenizers each
manifest names; a grammar artifact up to ``max_pairs`` state pairs (``bounded_product``).  An
artifact that cannot be diffed (a missing file, a parser limit) is listed as changed with the
reason, and the other pairs are still compared.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from indexc.build.manifest import read_manifest
from indexc.diff.bounded_product import DEFAULT_MAX_PAIRS
from indexc.diff.compare import DEFAULT_LIMIT, ArtifactDiff, diff_artifacts
from indexc.diff.vocabularies import vocabulary_of_entry
from indexc.errors import IndexcError


@dataclass
class ChangedArtifact:
    artifact: str
    diff: ArtifactDiff | None  # None when it could not be diffed
    reason: str | None = None  # why not


@dataclass
class BuildDiff:
    old: str
    new: str
    appeared: list[str] = field(default_factory=list)
    disappeared: list[str] = field(default_factory=list)
    unchanged: int = 0
    changed: list[ChangedArtifact] = field(default_factory=list)

    @property
    def identical(self) -> bool:
        """Same artifacts, and every changed file serves the same masks (a renumbering is not a change)."""
        if self.appeared or self.disappeared:
            return False
        return all(change.diff is not None and change.diff.identical for change in self.changed)


def diff_builds(old: str | os.PathLike, new: str | os.PathLike, *, limit: int = DEFAULT_LIMIT,
                max_pairs: int = DEFAULT_MAX_PAIRS) -> BuildDiff:
    """Compare two build directories (or their manifest files)."""
    before, after = read_manifest(old), read_manifest(new)
    report = BuildDiff(str(before.directory), str(after.directory))
    report.appeared = sorted(set(after.artifacts) - set(before.artifacts))
    report.disappeared = sorted(set(before.artifacts) - set(after.artifacts))
    for artifact in sorted(set(before.artifacts) & set(after.artifacts)):
        entry_a, entry_b = before.artifacts[artifact], after.artifacts[artifact]
        if entry_a.get("sha256") == entry_b.get("sha256"):
            report.unchanged += 1
            continue
        report.changed.append(_diff_pair(artifact, entry_a, before.directory, entry_b, after.directory, limit,
                                         max_pairs))
    return report


def _diff_pair(artifact: str, entry_a: dict, dir_a: Path, entry_b: dict, dir_b: Path, limit: int,
               max_pairs: int) -> ChangedArtifact:
    fingerprint_a = (entry_a.get("tokenizer") or {}).get("fingerprint", "")
    fingerprint_b = (entry_b.get("tokenizer") or {}).get("fingerprint", "")
    try:
        diff = diff_artifacts(str(dir_a / artifact), str(dir_b / artifact),
                              vocab_a=vocabulary_of_entry(entry_a, dir_a, fingerprint_a),
                              vocab_b=vocabulary_of_entry(entry_b, dir_b, fingerprint_b), limit=limit,
                              max_pairs=max_pairs)
    except IndexcError as exc:
        return ChangedArtifact(artifact, None, str(exc))
    return ChangedArtifact(artifact, diff)

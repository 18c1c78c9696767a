"""``manifest.json``: what the output directory holds, and what each artifact was built from.

One entry per artifact (keyed by its path relative to the output directory): the build key,
the tokenizer (name, path relative to the output directory, fingerprint, vocabulary size), the
constraint (file relative to the output directory, kind, SHA-256 of the compiled text), the
compile options, the path taken (``dfa``, ...), the file's size and SHA-256, the compile's
statistics and timings.  Plus the failures of the last build (file, tokenizer, reason, key),
so a CI log sees them too, and so that a pair the compiler rejected is not compiled again
until one of its inputs changes (``known_failure``).

The manifest is what makes the build incremental: an entry whose key matches the plan and
whose file still has the recorded size and modification time, or else the recorded SHA-256,
is up to date (a truncated or edited artifact is rebuilt, not trusted).  It is written atomically, with
sorted keys, and only when its content changed, so a no-op build leaves the directory as it was.
Timings live here, never in the artifacts: artifacts stay byte-identical across builds.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from indexc.artifact.atomic import write_atomically
from indexc.errors import IndexcError

MANIFEST_NAME = "manifest.json"
MANIFEST_FORMAT = "indexc-build-manifest-v1"


class ManifestError(IndexcError):
    """A manifest that cannot be read or is not one."""


@dataclass
class Manifest:
    directory: Path
    artifacts: dict[str, dict] = field(default_factory=dict)
    failures: list[dict] = field(default_factory=list)
    project: str | None = None

    @property
    def path(self) -> Path:
        return self.directory / MANIFEST_NAME

    def is_current(self, artifact: str, key: str) -> bool:
        """Does ``artifact`` exist as recorded (size, then time or hash), built for ``key``?

        A file whose size and modification time are those recorded is trusted without reading
        it (hashing 200 MaskBench artifacts, 780 MB, took 3.7 s of a 4 s no-op build); any other
        file is hashed, and a match re-records its time.
        """
        entry = self.artifacts.get(artifact)
        if entry is None or entry.get("key") != key:
            return False
        path = self.directory / artifact
        try:
            stat = path.stat()
        except OSError:
            return False
        if stat.st_size != entry.get("bytes"):
            return False
        if stat.st_mtime_ns == entry.get("mtime_ns"):
            return True
        if file_digest(path) != (entry.get("bytes"), entry.get("sha256")):
            return False
        entry["mtime_ns"] = stat.st_mtime_ns
        return True

    def known_failure(self, artifact: str, key: str) -> dict | None:
        """The last build's failure of this pair, if it had the same key and would fail again.

        Only *repeatable* failures qualify: the compiler rejected the input (an unsupported
        keyword, a limit), which the same inputs and compiler do again.  A killed worker, a
        missing compiler, an internal error or a write error is retried by the next build.
        """
        for failure in self.failures:
            if failure.get("artifact") == artifact and failure.get("key") == key and failure.get("repeatable"):
                return failure
        return None

    def to_document(self) -> dict:
        return {"format": MANIFEST_FORMAT, "project": self.project, "artifacts": self.artifacts,
                "failures": self.failures}

    def save(self) -> bool:
        """Write the manifest if its content changed; True when it did."""
        text = json.dumps(self.to_document(), sort_keys=True, indent=1) + "\n"
        try:
            if self.path.read_text(encoding="utf-8") == text:
                return False
        except (OSError, UnicodeDecodeError):
            pass
        data = text.encode("utf-8")
        write_atomically(self.path, lambda handle: handle.write(data))
        return True


def read_manifest(directory_or_file: str | os.PathLike, *, missing_ok: bool = False) -> Manifest:
    """The manifest of an output directory (or the manifest file itself)."""
    path = Path(directory_or_file)
    if path.is_dir() or (missing_ok and path.suffix != ".json"):
        path = path / MANIFEST_NAME
    directory = path.parent
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        if missing_ok:
            return Manifest(directory)
        raise ManifestError("no manifest.json here (is this a directory `indexc build` wrote?)",
                            source=str(path)) from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ManifestError(f"cannot read the manifest: {exc}", source=str(path)) from None
    if not isinstance(document, dict) or document.get("format") != MANIFEST_FORMAT:
        raise ManifestError(f"not an indexc build manifest (format is not {MANIFEST_FORMAT!r})", source=str(path))
    return Manifest(directory, dict(document.get("artifacts") or {}), list(document.get("failures") or []),
                    document.get("project"))


def file_digest(path: Path) -> tuple[int, str] | None:
    """(size, SHA-256) of a file, or None when it cannot be read."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    return len(data), hashlib.sha256(data).hexdigest()

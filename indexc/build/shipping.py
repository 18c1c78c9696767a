"""A tokenizer's files as bytes, sent to workers that cannot read the driver's disk (Dask).

On a cluster the workers run on other machines: a path on the driver means nothing there.  So
with ``--backend dask`` each tokenizer travels with the work: its file and its
``tokenizer_config.json`` are read once by the driver into one ``TokenizerFiles`` object per
tokenizer, and every task of that tokenizer gets *the same object*.  joblib's Dask backend
scatters an argument that is weak-referenceable and bigger than 1 kB once per object (it goes
by ``id``), so a 2 MB Llama-3 file crosses the network once per build and is then shared by the
workers, not once per task; ``__sizeof__`` is what tells it the object is big.  A worker
writes the files once under a name made of their hash in its temporary directory and loads
them through the usual vocabulary+trie cache, once per worker process.  Constraints travel as text inside the tasks,
and artifacts come back as bytes: a worker needs indexc installed, nothing else.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

from indexc.artifact.atomic import write_atomically

from indexc.build.project import TokenizerSpec
from indexc.errors import VocabularyError
from indexc.vocab.tokenizer_config import find_tokenizer_config


class TokenizerFiles:
    """The bytes of one tokenizer file and of its config (when it has one)."""

    def __init__(self, spec: TokenizerSpec, tokenizer: bytes, config: bytes | None):
        self.spec = spec
        self.tokenizer = tokenizer
        self.config = config

    @classmethod
    def read(cls, spec: TokenizerSpec) -> "TokenizerFiles":
        config_path = spec.config or find_tokenizer_config(spec.path)
        try:
            tokenizer = Path(spec.path).read_bytes()
            config = None if config_path is None else Path(config_path).read_bytes()
        except OSError as exc:
            raise VocabularyError(f"cannot read tokenizer: {exc.strerror or exc}", source=spec.path) from None
        return cls(spec, tokenizer, config)

    def __sizeof__(self) -> int:
        return object.__sizeof__(self) + len(self.tokenizer) + len(self.config or b"")

    def materialize(self) -> tuple[str, str | None]:
        """Paths of the two files on this machine, written once under a name made of their hash.

        A stable path (not a fresh temporary directory) keeps the vocabulary+trie cache's key
        stable too, so a worker process after the first loads the cached arrays (~40 ms for
        Llama-3) instead of parsing the tokenizer again and adding a cache entry per process.
        """
        digest = hashlib.sha256(self.tokenizer + b"\x00" + (self.config or b"")).hexdigest()[:32]
        directory = Path(tempfile.gettempdir()) / "indexc-shipped-tokenizers" / digest
        tokenizer = directory / os.path.basename(self.spec.path)
        config = None if self.config is None else directory / "shipped.tokenizer_config.json"
        for path, data in ((tokenizer, self.tokenizer), (config, self.config)):
            if path is not None and not _holds(path, data):
                directory.mkdir(parents=True, exist_ok=True)
                write_atomically(path, lambda handle, data=data: handle.write(data))
        return str(tokenizer), None if config is None else str(config)


def _holds(path: Path, data: bytes) -> bool:
    try:
        return path.read_bytes() == data
    except OSError:
        return False

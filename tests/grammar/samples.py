"""The bundled sample grammars (copied from ``../shared/grammars``) and a document for each.

Each sample has a document in its language (hand-written for this suite, except ``rfc.xml``
which comes with ``rfc.lark``) and a corrupted copy that no continuation can save.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

GRAMMAR_DIR = Path(__file__).resolve().parents[1] / "data" / "grammars"


@dataclass(frozen=True)
class Sample:
    grammar: str        # path under tests/data/grammars
    document: str       # file under tests/data/grammars/samples
    corruption: tuple[bytes, bytes]  # (old, new): replacing the first `old` makes the text unviable

    @property
    def grammar_path(self) -> Path:
        return GRAMMAR_DIR / self.grammar

    @property
    def grammar_text(self) -> str:
        return self.grammar_path.read_text(encoding="utf-8")

    @property
    def document_bytes(self) -> bytes:
        return (GRAMMAR_DIR / "samples" / self.document).read_bytes()

    @property
    def corrupted_bytes(self) -> bytes:
        old, new = self.corruption
        document = self.document_bytes
        assert old in document, (self.document, old)
        return document.replace(old, new, 1)

    @property
    def name(self) -> str:
        return Path(self.grammar).name


SAMPLES = [
    Sample("gbnf/arithmetic.gbnf", "arithmetic.txt", (b"a=b", b"a==b")),
    Sample("gbnf/c.gbnf", "c.c", (b"a+1;", b"a+;1")),
    Sample("gbnf/chess.gbnf", "chess.pgn", (b"Nf3", b"Nf9")),
    Sample("gbnf/english.gbnf", "english.txt", (b"fox", b"f\x01x")),
    Sample("gbnf/japanese.gbnf", "japanese.txt", (" ".encode(), "  ".encode())),
    Sample("gbnf/json.gbnf", "json.json", (b"12.5e3", b"12..5e3")),
    Sample("gbnf/json_arr.gbnf", "json_arr.json", (b"[\n", b"[ \n")),
    Sample("gbnf/list.gbnf", "list.txt", (b"- first", b"-first")),
    Sample("gbnf/vllm-sql.gbnf", "vllm-sql.sql", (b"col_1", b"col_3")),
    Sample("lark/lark.lark", "lark.lark.txt", (b"expr+", b"expr++")),
    # written in session 30, after lark.lark's masks were measured on the sample above; its
    # corruption is a string that Lark's ".*?" ends at its first closing quote (``lazy_ends``)
    Sample("lark/lark.lark", "lark_other.lark.txt", (b'"true"', b'"tr"ue"')),
    Sample("lark/rfc.lark", "rfc.xml", (b"</front>", b"</frnt>")),
]

GBNF_SAMPLES = [sample for sample in SAMPLES if sample.grammar.endswith(".gbnf")]

"""Write the golden grammar artifact and its expected masks (run once per grammar format version).

    .venv/bin/python -m tests.grammar_path.golden.make_golden

The expected masks come from the brute-force oracle (``tests/reference/grammar_oracle.py``),
not from the runtime; ``test_golden.py`` checks that every later runtime reads the file and
gives them.
"""

from __future__ import annotations

import json
from pathlib import Path

from indexc.pipeline import write
from indexc.pipeline.grammar import compile_grammar_ir
from indexc.trie import build_trie
from tests.grammar_path.helpers import EOS, grammar, small_vocabulary
from tests.reference.grammar_oracle import GrammarOracle

HERE = Path(__file__).resolve().parent
NAME = "grammar-v2-brackets"
IR = grammar("list", {"list": [["LB", "items", "RB"]], "items": [["item"], ["items", "COMMA", "item"], []],
                      "item": [["NUM"], ["list"]]},
             {"LB": r"\[", "RB": r"\]", "COMMA": ",", "NUM": "[0-9]+", "WS": "[ ]+"}, ignore=["WS"])
PIECES = [b"[", b"]", b",", b" ", b"1", b"2", b"12", b"[1", b"1]", b", ", b"],", b"[[", b"]]", b" [", b"1,", b"x"]
WALK = [b"[", b"1", b", ", b"[[", b"12", b"]]", b" ", b"]"]


def main() -> None:
    vocab = small_vocabulary(PIECES)
    result = compile_grammar_ir(IR, vocab, build_trie(vocab), source="golden brackets", min_wide_tokens=2)
    write(result, vocab, str(HERE / f"{NAME}.idx"))
    write(result, vocab, str(HERE / f"{NAME}.idx.zst"))
    ids = {b: i for i, b in enumerate(vocab.token_bytes)}
    oracle = GrammarOracle(IR)
    token_bytes = [None if i == EOS else b for i, b in enumerate(vocab.token_bytes)]
    prefix, masks = b"", []
    for piece in WALK + [None]:
        masks.append(sorted(oracle.allowed_tokens(prefix, token_bytes, [EOS])))
        if piece is not None:
            prefix += piece
    expected = {"fingerprint": vocab.fingerprint, "vocab_size": vocab.size, "walk": [ids[p] for p in WALK],
                "masks": masks, "accepting_at_end": oracle.accepts(prefix)}
    (HERE / f"{NAME}.expected.json").write_text(json.dumps(expected, indent=1) + "\n")


if __name__ == "__main__":
    main()

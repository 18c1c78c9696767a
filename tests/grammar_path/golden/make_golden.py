"""Write the golden grammar artifact of the current format version and its expected masks.

    .venv/bin/python -m tests.grammar_path.golden.make_golden

Run once per grammar format version: it writes ``grammar-v<version>-<name>``, so the files of
earlier versions stay as they were shipped.  Version 2: nested brackets with ignored spaces
(``grammar-v2-brackets``).  Version 3: the same with quoted strings as items, compiled with
``MIN_REGION_NODES`` at 1 so that the string body's loop region is stored.  Version 4: the
same grammar and walk, now with the stored start mask (``grammar-v4-brackets-strings``).  Version 5:
the same again, every boundary pair built (``min_wide_tokens=0``) so that the undecided sets are
stored and restrict the walk (``grammar-v5-brackets-strings``).  Version 6: the same, the sets
stored as bit rows in trie order (with 25 trie tokens a one-word row is never larger than a
set's places) and each loop region's tokens by id (``grammar-v6-brackets-strings``).  Version 7:
the same, with a parser memo stored from a warm-up walk of the first half of the walk
(``grammar-v7-brackets-strings``: the second half is walked from masks the file does not hold).  Version 8:
the same, with the stored configurations' language keys (``grammar-v8-brackets-strings``).  Version 9:
the same, the header recording the origin merge's threshold (``grammar-v9-brackets-strings``).  Version 10:
the same grammar lexed by longest match, as a Lark file is (``grammar-v10-brackets-strings``: the header's
``lexing`` and ``longest_match_terminals``, which hold every terminal of it).  Version 11: the same,
with the item bounds of every key the warm-up meets (``MIN_ITEM_UNDECIDED`` and ``MIN_HEAVY_UNDECIDED`` at 1: a small
vocabulary's undecided sets are small; ``grammar-v11-brackets-strings``).  Version 12: the same, every
state with undecided tokens decomposed by its lexeme paths (``MIN_PATH_UNDECIDED`` at 1), no item
keys (``grammar-v12-brackets-strings``).  The expected
masks come from the brute-force oracle (``tests/reference/grammar_oracle.py``), not from the
runtime; ``test_golden.py`` checks that every later runtime reads the files and gives them.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from unittest import mock

import indexc.artifact.lexeme_paths as artifact_paths
import indexc_runtime.grammar.loop_exits as loop_exits
import numpy as np

from indexc.pipeline import write
from indexc.pipeline.grammar import compile_grammar_ir
from indexc.trie import build_trie
from indexc_runtime.grammar.format import GRAMMAR_FORMAT_VERSION
from tests.grammar_path.helpers import EOS, grammar, small_vocabulary
from tests.reference.grammar_oracle import GrammarOracle

HERE = Path(__file__).resolve().parent
NAME = f"grammar-v{GRAMMAR_FORMAT_VERSION}-brackets-strings"
IR = grammar("list", {"list": [["LB", "items", "RB"]], "items": [["item"], ["items", "COMMA", "item"], []],
                      "item": [["NUM"], ["STR"], ["list"]]},
             {"LB": r"\[", "RB": r"\]", "COMMA": ",", "NUM": "[0-9]+", "STR": '"[a-z0-9 ]*"', "WS": "[ ]+"},
             ignore=["WS"])
IR = replace(IR, lexing="longest_match")  # from version 10 (the files of earlier versions are all splits)
PIECES = [b"[", b"]", b",", b" ", b"1", b"2", b"12", b"[1", b"1]", b", ", b"],", b"[[", b"]]", b" [", b"1,", b"x",
          b'"', b'["', b'"]', b"ab", b"a b", b'b"', b'",', b'"a', b"a1"]
WALK = [b"[", b"1", b", ", b'"a', b"a b", b'b"', b", ", b"[[", b"12", b"]]", b" ", b"]"]


def main() -> None:
    vocab = small_vocabulary(PIECES)
    with mock.patch.object(loop_exits, "MIN_REGION_NODES", 1):  # small vocabulary: store every loop region
        result = compile_grammar_ir(IR, vocab, build_trie(vocab), source="golden brackets", min_wide_tokens=0,
                                    language_keys=True)
    assert result.table.loop_regions, "the golden file must hold a loop region"
    assert result.table.undecided_positions.size, "the golden file must hold undecided sets"
    ids = {b: i for i, b in enumerate(vocab.token_bytes)}
    result.table = replace(result.table, warm_up_tokens=np.array([ids[p] for p in WALK[:len(WALK) // 2]], dtype=np.int32),
                           warm_up_given=1)  # given, as ``--warm-up`` (version 11 stores its item keys only)
    with mock.patch.object(artifact_paths, "MIN_PATH_UNDECIDED", 1):  # from version 12: small states decomposed
        write(result, vocab, str(HERE / f"{NAME}.idx"))
        write(result, vocab, str(HERE / f"{NAME}.idx.zst"))
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

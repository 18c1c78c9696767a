"""Write the golden artifacts of the current format version (run once per version; kept forever).

A golden file proves that a newer runtime still reads what an older compiler wrote, so it is
never regenerated to make a test pass: a format change adds new golden files beside the old
ones, named by version (``format-v1-small.*`` were written by version 1 of this script,
``format-v2-small.*`` by version 2, ``format-v3-small.*`` by version 3 (the shared token rows); the script refuses to overwrite without ``--force``).  The table is built by hand with the
brute-force helpers of ``tests/runtime/handmade.py``; the expected masks and walks are written
from that brute force too, never from the runtime under test.

The constraint is a small JSON-ish scalar: a string ``"[^"]*"``, a number ``[0-9]+`` or an
identifier ``[A-Za-z_][A-Za-z0-9_]*``, over a 300-id vocabulary (3 specials, the 256 single
bytes, 40 multi-byte tokens, one unused id), so its masks come out in all three stored forms.

    python tests/data/golden/make_golden.py [--force]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "runtime"))

import handmade  # noqa: E402
from indexc.artifact import write_artifact  # noqa: E402
from indexc_runtime import FORMAT_VERSION  # noqa: E402

NAME = f"format-v{FORMAT_VERSION}-small"
IDENTIFIER_START = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_"
NOT_QUOTE = "".join(chr(b) for b in range(256) if b != ord('"'))

GOLDEN_DFA = handmade.HandmadeDFA(
    edges={
        0: {'"': 1, handmade.DIGITS: 3, IDENTIFIER_START: 4},
        1: {NOT_QUOTE: 1, '"': 2},
        2: {},
        3: {handmade.DIGITS: 3},
        4: {IDENTIFIER_START + handmade.DIGITS: 4},
    },
    accepting=frozenset({2, 3, 4}),
)
MULTI_BYTE = [
    b'"a', b'ab"', b"12", b'""', b'"1"', b"123", b'x"y', b"abc", b"_x", b"hello", b" world", b'"hello"', b"0",
    b"\xc3\xa9", b"\xe2\x82", b'"\xc3', b"99", b"a1", b"1a", b"__", b'"\\"', b"\\n", b"}", b'{"', b'":', b', "',
    b"true", b"null", b"-1", b"1.5", b"Ab", b"zZ", b"9_", b'""a', b'a""', b'_"', b'" ', b"  ", b"x", b"42",
]
TOKENS: list[bytes | None] = [None, None, None] + [bytes([b]) for b in range(256)] + MULTI_BYTE + [None]
EOS = (1,)
WALKS = [[b'"', b"hello", b" world", b'"'], [b"12", b"3", b"99"], [b"_x", b"a1", b"9_", b"Ab"], [b'"\xc3', b"\xa9", b'"']]


def expected(tokens_of) -> dict:
    masks = handmade.brute_force_masks(GOLDEN_DFA, TOKENS, EOS)
    walks = []
    for walk in WALKS:
        ids, states, state = [tokens_of[raw] for raw in walk], [], 0
        for raw in walk:
            state = GOLDEN_DFA.run(raw, state)
            states.append(state)
        walks.append({"tokens": ids, "states": states, "accepting": states[-1] in GOLDEN_DFA.accepting})
    return {"vocab_size": len(TOKENS), "eos_ids": list(EOS), "fingerprint": f"handmade-{NAME}",
            "masks": [sorted(m) for m in masks], "walks": walks}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--force", action="store_true", help="overwrite existing golden files")
    args = parser.parse_args()
    targets = [HERE / f"{NAME}.idx", HERE / f"{NAME}.idx.zst", HERE / f"{NAME}.expected.json"]
    if any(t.exists() for t in targets) and not args.force:
        print("golden files exist; they are history and are not rewritten (use --force)", file=sys.stderr)
        return 1
    table = handmade.table_from_dfa(GOLDEN_DFA, TOKENS, EOS)
    info = handmade.vocab_info(TOKENS, EOS, NAME)
    constraint = {"kind": "regex", "source": '"[^"]*"|[0-9]+|[A-Za-z_][A-Za-z0-9_]*'}
    for target, compress in zip(targets[:2], (False, True)):
        summary = write_artifact(table, target, vocab_info=info, constraint=constraint,
                                 options={"golden": True}, stats=table.stats, compress=compress)
        print(f"{target.name}: {summary.bytes} bytes, mask forms {summary.mask_forms}")
    first_id = {}
    for i, raw in enumerate(TOKENS):
        if raw is not None:
            first_id.setdefault(raw, i)
    text = json.dumps(expected(first_id), indent=1)
    text = re.sub(r"\[[\d,\s]*\]", lambda m: json.dumps(json.loads(m.group(0))), text)  # one line per id list
    targets[2].write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Both paths of one JSON Schema compared state by state: a differential check over MaskBench.

Each schema the auto route sends to the DFA path is compiled a second time with ``--mode cfg``
(the grammar path: lexer tables ahead of time, Earley parser and trie walk at serving time),
and ``indexc diff`` walks the two artifacts in lock-step (``indexc.diff``), comparing the masks
they serve in every state pair it reaches.  Two routes to one language, so:

- **regular**: a schema without "any JSON value" has a finite grammar-path automaton, and no
  pair may differ.  Its walk usually ends (``complete``: every text compared); where it does not
  within ``REGULAR_MAX_PAIRS`` the file is counted apart ("regular, bounded"), not as broken:
  Earley configurations are not minimised and remember history the DFA forgets (which
  optional properties came before: Github_hard o18046 has 72,267 configurations against a
  943-state DFA; until session 25 also where an optional whitespace was);
- **any-value**: where ``additionalProperties`` is left open (or ``{}`` is used) the DFA path
  nests any value at most ``any_depth`` (3) levels deep and the grammar path has no bound
  (``docs/json-schema-semantics.md``).  The grammar path may allow more, never less, and only
  tokens that take the text more than ``any_depth`` levels deep (a token opens several:
  `` [[[`` after ``{"":[``; until session 25 the rule asked the pair itself to be 3 deep, and
  held only because the pairs it listed happened to be).  A pair whose DFA side is dead (the
  text already went past the bound) is the consequence of one checked before it.  Its pairs are endless, so that walk
  is bounded.  The rule is checked on the listed pairs (the first 1,000, shortest first) and
  their listed tokens.

A file breaking either rule is a bug in one of the paths, listed by name with its first
differing pair.  Run (``../shared/maskbench`` by default, else the bundled sample):

    .venv/bin/python -m bench.cross_path --every 40 --json /tmp/cross.json

``tests/maskbench/test_sample_paths.py`` runs the same check on the bundled sample in CI.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

from bench.maskbench.dataset import list_files, load_file

REPO = Path(__file__).resolve().parents[1]
SHARED_MASKBENCH = REPO.parent / "shared" / "maskbench"
SAMPLE = REPO / "tests" / "data" / "maskbench"
LLAMA3 = REPO / "tests" / "data" / "tokenizers" / "llama3.json.zst"
REGULAR_MAX_PAIRS = 50_000
ANY_VALUE_MAX_PAIRS = 3_000
REGULAR, REGULAR_BOUNDED, ANY_VALUE = "regular", "regular, bounded", "any-value"
BROKEN = "BROKEN"  # a rule above does not hold


@dataclass
class Outcome:
    file: str
    verdict: str  # regular / regular, bounded / any-value (the rule held), BROKEN, "grammar path only", "refused"
    detail: str = ""
    seconds: dict = field(default_factory=dict)  # compile (both paths), diff
    pairs: int = 0
    complete: bool = False
    differing: int = 0


def nesting(text: bytes, since: int = 0) -> tuple[int, int]:
    """(brackets and braces open after ``text``, the most open after its first ``since`` bytes),
    outside strings."""
    depth, deepest, in_string, escaped = 0, 0, False, False
    for at, char in enumerate(text.decode("latin-1")):
        if at == since:
            deepest = depth
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth) if at >= since else deepest
        elif char in "]}":
            depth -= 1
    return depth, (deepest if since < len(text) else depth)


def broken_rule(report, bounded_any_value: bool, any_depth: int, token_bytes) -> str:
    """What rule the diff ``report`` breaks ("" if none), for a schema with or without any value
    (``token_bytes(label)``: a listed token's bytes)."""
    if not bounded_any_value:
        return "" if report.identical else f"{report.differing_pairs} pairs differ"
    if report.tokens_only_a or report.accepted_only_by == "A":
        return "the grammar path refuses what the DFA path allows"
    for pair in report.pairs:
        if pair.state_a is None:  # the DFA path refused the witness: that divergence had its own pair
            continue
        for label in pair.only_b:
            if nesting(pair.witness + token_bytes(label), len(pair.witness))[1] <= any_depth:
                return (f"a token differs that stays {any_depth} or fewer levels deep "
                        f"({label} after {pair.witness[-60:]!r})")
    return ""


def compare_paths(name: str, schema_text: str, vocab, trie, scratch: Path) -> Outcome:
    from indexc.diff import diff_artifacts
    from indexc.errors import IndexcError
    from indexc.jsonschema.options import JsonSchemaOptions
    from indexc.masks import MaskOptions
    from indexc.pipeline import CompileOptions, write
    from indexc.pipeline.json_schema import compile_json_schema

    options = CompileOptions(MaskOptions(jobs=1))
    started = time.perf_counter()
    try:
        auto = compile_json_schema(schema_text, vocab, trie, options, source=name)
        if auto.constraint["path"] != "dfa":
            return Outcome(name, "grammar path only", auto.constraint.get("reason", ""))
        cfg = compile_json_schema(schema_text, vocab, trie, options, schema_options=JsonSchemaOptions(mode="cfg"),
                                  source=name)
    except IndexcError as exc:
        return Outcome(name, "refused", str(exc).splitlines()[0][:200])
    write(auto, vocab, str(scratch / "dfa.idx"))
    write(cfg, vocab, str(scratch / "cfg.idx"))
    compiled = time.perf_counter()
    bounded_any_value = "any-value" in auto.constraint.get("reason", "")
    report = diff_artifacts(str(scratch / "dfa.idx"), str(scratch / "cfg.idx"), limit=1_000,
                            max_pairs=ANY_VALUE_MAX_PAIRS if bounded_any_value else REGULAR_MAX_PAIRS)
    broken = broken_rule(report, bounded_any_value, JsonSchemaOptions().any_depth,
                         lambda label: vocab.token_bytes[int(label.split()[0])])
    first = report.pairs[0] if report.pairs else None
    detail = broken + (f"; first: after {first.witness[-60:]!r} only DFA {first.only_a[:3]}, only grammar "
                       f"{first.only_b[:3]}" if broken and first else "")
    verdict = ANY_VALUE if bounded_any_value else REGULAR if report.complete else REGULAR_BOUNDED
    return Outcome(name, BROKEN if broken else verdict, detail,
                   {"compile": round(compiled - started, 2), "diff": round(time.perf_counter() - compiled, 2)},
                   report.reachable_pairs, report.complete, report.differing_pairs)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.cross_path", description=__doc__.splitlines()[0])
    p.add_argument("--dir", default=str(SHARED_MASKBENCH if SHARED_MASKBENCH.is_dir() else SAMPLE))
    p.add_argument("--every", type=int, default=1, metavar="N", help="every N-th file (sorted by name)")
    p.add_argument("--offset", type=int, default=0)
    p.add_argument("--tokenizer", default=str(LLAMA3))
    p.add_argument("--json", metavar="FILE", help="write every file's outcome here")
    args = p.parse_args(argv)

    from indexc.trie.build import build_trie
    from indexc.vocab import load_vocabulary

    vocab = load_vocabulary(args.tokenizer)
    trie = build_trie(vocab)
    paths = list_files(args.dir)[args.offset::max(1, args.every)]
    outcomes = []
    with tempfile.TemporaryDirectory(prefix="indexc-cross-path-") as scratch:
        for number, path in enumerate(paths, 1):
            mbfile = load_file(path)
            outcomes.append(compare_paths(mbfile.name, mbfile.schema_text, vocab, trie, Path(scratch)))
            print(f"[{number}/{len(paths)}] {mbfile.name}: {outcomes[-1].verdict} {outcomes[-1].detail}",
                  file=sys.stderr, flush=True)
    counts = Counter(outcome.verdict for outcome in outcomes)
    print(f"{len(outcomes)} files ({args.dir}, every {args.every}, offset {args.offset}): "
          + ", ".join(f"{verdict} {count}" for verdict, count in counts.most_common()))
    for outcome in outcomes:
        if outcome.verdict == BROKEN:
            print(f"  BROKEN {outcome.file}: {outcome.detail}")
    checked = [o for o in outcomes if o.verdict in (REGULAR, REGULAR_BOUNDED, ANY_VALUE, BROKEN)]
    if checked:
        print(f"pairs compared: {sum(o.pairs for o in checked):,}; "
              f"time: compile {sum(o.seconds['compile'] for o in checked):.0f} s, "
              f"diff {sum(o.seconds['diff'] for o in checked):.0f} s")
    if args.json:
        Path(args.json).write_text(json.dumps([asdict(o) for o in outcomes], indent=1))
    return 1 if counts[BROKEN] else 0


if __name__ == "__main__":
    sys.exit(main())

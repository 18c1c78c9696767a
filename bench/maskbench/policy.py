"""Why a valid instance was refused: the documented policy, proved instance by instance.

Issue 4 allows a valid instance to be refused only where the documented policy excludes it
(``docs/json-schema-semantics.md``), and asks for each one to be listed.  Two policies refuse
valid JSON:

- **key order**: an object lists its ``properties`` in the schema's order, unlisted keys after
  them; MaskBench writes its instances in the file's order, and some files' instances do not
  follow their schema.
- **any-value depth**: on the DFA path "any JSON value" nests at most ``any_depth`` (3) levels;
  the grammar path has no bound.

A refusal is not taken on trust from the position it happened at: each reason is *shown* by a
walk that the policy predicts to pass and that does pass.

- The schema compiled with ``--mode cfg`` (no depth bound) accepts the instance as written:
  ``any-value depth``.
- The same data with its objects' keys in another order is accepted by the same artifact:
  ``key order``.  The order is found by the artifact itself, not guessed from the schema
  (merged ``allOf`` parts and ``$ref`` siblings decide it): ``KeyOrderSearch`` writes the
  value piece by piece through a matcher, trying each remaining key of an object where the
  next one goes, and rolls back a piece that the masks refuse or that leads nowhere.  It tries
  the keys in the order of the schema's ``properties`` object that lists most of them first
  (``property_orders``; unlisted keys after, as written): a guess that only orders the tries,
  without which a wrong first key that is only found wrong at the object's end made the search
  try every order of the keys inside (o32807: 200,000 pieces without an answer).  The text
  found is then walked once more as the protocol walks an instance (its own tokenization).
  It is the same JSON value, MaskBench's separators, so it shows that a spelling of the
  instance passes.
- Both at once (keys reordered, on the grammar path): ``key order + any-value depth``.
- Nothing passes: ``unexplained``, a bug or a policy not written down.

Run: ``python -m bench.maskbench.policy RUN.json [DIR]`` (a ``--json`` output of
``bench.maskbench`` and its directory) lists every valid instance indexc refused in that run
with its reason, and the count per reason; the exit code is 1 if one is unexplained.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Sequence

from bench.engines.common import time_walk
from bench.maskbench.dataset import MaskBenchFile, load_file

KEY_ORDER = "key order"
ANY_DEPTH = "any-value depth"
BOTH = "key order + any-value depth"
UNEXPLAINED = "unexplained"


@dataclass(frozen=True)
class Refusal:
    file: str
    instance: int
    reason: str


def property_orders(schema: object) -> list[list[str]]:
    """The key lists of every ``properties`` object in ``schema``, in document order."""
    found: list[list[str]] = []
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            listed = node.get("properties")
            if isinstance(listed, dict) and listed:
                found.append(list(listed))
            stack.extend(reversed(list(node.values())))
        elif isinstance(node, list):
            stack.extend(reversed(node))
    return found


def guessed_key_order(keys: Sequence[str], orders: Sequence[Sequence[str]]) -> list[str]:
    """``keys`` in the order of the ``properties`` object that lists most of them, unlisted
    keys after in their order: where ``KeyOrderSearch`` starts."""
    present = set(keys)
    best: Sequence[str] = max(orders, key=lambda order: len(present.intersection(order)), default=())
    listed = [k for k in best if k in present]
    return listed + [k for k in keys if k not in set(listed)]


class KeyOrderSearch:
    """A spelling of a JSON value, its objects' keys in any order, that a matcher accepts to the end.

    Depth-first over the pieces of the text (``{``, ``, "key": ``, a scalar, ``]``...), each
    advanced through the matcher in its own tokens and rolled back when refused or when the rest
    cannot follow.  A masks-exact matcher refuses a wrong key at its first piece, so the search
    is linear in the text but for keys that share a prefix; ``budget`` pieces bound it anyway.
    """

    def __init__(self, matcher, encode, orders: Sequence[Sequence[str]] = (), budget: int = 200_000):
        self._matcher, self._encode, self._budget = matcher, encode, budget
        self._orders = orders  # ``property_orders`` of the schema: the order keys are tried in
        self._pieces: list[str] = []

    def spell(self, value: object) -> str | None:
        previous = sys.getrecursionlimit()
        sys.setrecursionlimit(max(previous, 50_000))  # a continuation per piece
        try:
            found = self._value(value, self._matcher.is_accepting)
        except (RecursionError, _OutOfBudget):
            found = False
        finally:
            sys.setrecursionlimit(previous)
        return "".join(self._pieces) if found else None

    def _piece(self, text: str, then) -> bool:
        self._budget -= 1
        if self._budget < 0:
            raise _OutOfBudget
        advanced = 0
        for token in self._encode(text):
            try:
                self._matcher.advance(token)
            except ValueError:  # TokenNotAllowed
                break
            advanced += 1
        else:
            self._pieces.append(text)
            if then():
                return True
            self._pieces.pop()
        self._matcher.rollback(advanced)
        return False

    def _value(self, value: object, then) -> bool:
        if isinstance(value, dict):
            if not value:
                return self._piece("{}", then)
            ordered = [(k, value[k]) for k in guessed_key_order(list(value), self._orders)]
            return self._piece("{", lambda: self._members(ordered, "", lambda: self._piece("}", then)))
        if isinstance(value, list):
            if not value:
                return self._piece("[]", then)
            return self._piece("[", lambda: self._items(value, 0, lambda: self._piece("]", then)))
        return self._piece(json.dumps(value, ensure_ascii=False), then)

    def _members(self, left: list, separator: str, then) -> bool:
        if not left:
            return then()
        for i, (key, value) in enumerate(left):
            rest = left[:i] + left[i + 1:]
            if self._piece(separator + json.dumps(key, ensure_ascii=False) + ": ",
                           lambda: self._value(value, lambda: self._members(rest, ", ", then))):
                return True
        return False

    def _items(self, items: list, i: int, then) -> bool:
        if i == len(items):
            return then()

        def go_on() -> bool:
            return self._value(items[i], lambda: self._items(items, i + 1, then))
        return self._piece(", ", go_on) if i else go_on()


class _OutOfBudget(Exception):
    pass


class PolicyChecker:
    """Walks refused instances again, reordered and on the grammar path (indexc in process)."""

    def __init__(self, engine, tokenizer, encode, eos_ids: Sequence[int]):
        self._engine, self._tokenizer, self._encode, self._eos = engine, tokenizer, encode, list(eos_ids)

    def reasons(self, mbfile: MaskBenchFile, refused: Sequence[int]) -> dict[int, str]:
        """Instance index -> reason, for the valid instances ``refused`` by the auto route."""
        texts = {i.index: i.text for i in mbfile.instances}
        orders = property_orders(mbfile.schema)
        out: dict[int, str] = {}
        compiled = self._engine.compile_schema(self._tokenizer, mbfile.schema_text, mbfile.name)
        for k in refused:
            if self._reordered_accepted(compiled, texts[k], orders):
                out[k] = KEY_ORDER
        left = [k for k in refused if k not in out]
        if left:
            compiled = self._engine.compile_schema(self._tokenizer, mbfile.schema_text, mbfile.name, mode="cfg")
            for k in left:
                if self._accepts(compiled, texts[k]):
                    out[k] = ANY_DEPTH
                elif self._reordered_accepted(compiled, texts[k], orders):
                    out[k] = BOTH
        return {k: out.get(k, UNEXPLAINED) for k in refused}

    def _accepts(self, compiled, text: str) -> bool:
        return time_walk(self._engine.start_walk(compiled), self._encode(text), self._eos).accepted

    def _reordered_accepted(self, compiled, text: str, orders: list[list[str]]) -> bool:
        index = self._engine.loaded(compiled)
        spelled = KeyOrderSearch(index.matcher(), self._encode, orders).spell(json.loads(text))
        return spelled is not None and self._accepts(compiled, spelled)


def refused_valid(run: dict) -> Iterator[tuple[str, list[int]]]:
    """(file, indexes of its valid instances indexc refused) from a ``bench.maskbench --json`` output."""
    for name, engines in sorted(run["files"].items()):
        outcome = engines.get("indexc")
        refused = [i["index"] for i in (outcome or {}).get("instances", []) if i["valid"] and not i["accepted"]]
        if refused:
            yield name, refused


def explain_run(run: dict, directory: Path, checker: PolicyChecker) -> list[Refusal]:
    return [Refusal(name, k, reason)
            for name, refused in refused_valid(run)
            for k, reason in checker.reasons(load_file(directory / name), refused).items()]


def main(argv: list[str] | None = None) -> int:
    from bench.maskbench.cli import DEFAULT_DIR, tokenizer_and_eos
    from bench.maskbench.schema_engines import load_schema_engine
    from bench.maskbench.worker import text_encoder

    p = argparse.ArgumentParser(prog="python -m bench.maskbench.policy", description=__doc__.split("\n\n")[0])
    p.add_argument("run", help="a `python -m bench.maskbench --json` output")
    p.add_argument("directory", nargs="?", default=str(DEFAULT_DIR), help="its MaskBench files (default: %(default)s)")
    p.add_argument("--tokenizer", help="tokenizer.json (default: as bench.maskbench)")
    p.add_argument("--eos", help="EOS ids, comma-separated (default: from tokenizer_config.json)")
    p.add_argument("--json", dest="json_out", help="also write the refusals here")
    args = p.parse_args(argv)
    run = json.loads(Path(args.run).read_text(encoding="utf-8"))
    tokenizer_path, eos_ids = tokenizer_and_eos(args)
    engine = load_schema_engine("indexc")
    checker = PolicyChecker(engine, engine.load_tokenizer(tokenizer_path, eos_ids), text_encoder(tokenizer_path),
                            eos_ids)
    refusals = explain_run(run, Path(args.directory), checker)
    for r in refusals:
        print(f"{r.file}\t#{r.instance}\t{r.reason}")
    counts = Counter(r.reason for r in refusals)
    print(f"{len(refusals)} valid instances refused in {len({r.file for r in refusals})} files: "
          + ", ".join(f"{reason} {n}" for reason, n in counts.most_common()))
    if args.json_out:
        Path(args.json_out).write_text(json.dumps([r.__dict__ for r in refusals], indent=1) + "\n", encoding="utf-8")
    return 1 if counts[UNEXPLAINED] else 0


if __name__ == "__main__":
    sys.exit(main())

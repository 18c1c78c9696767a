"""``indexc diff``: two artifacts (or two build directories) -> which states and tokens changed.

Exit 0 when the masks are identical, 1 when they differ, 2 on error (unreadable artifact,
different vocabularies without their tokenizers).  A grammar artifact is compared up to
``--max-pairs`` state pairs and along every prefix of each ``--text`` (``indexc.diff.bounded_product``);
the report says when that bound stopped the search.
"""

from __future__ import annotations

import argparse
import sys
import time

from indexc.cli.common import print_json, read_text_file

# indexc.diff.bounded_product.DEFAULT_MAX_PAIRS, not imported here: the command line starts without numpy
MAX_PAIRS_HELP = "2,000"


def register(subparsers) -> None:
    p = subparsers.add_parser("diff", help="compare the masks of two artifacts (or two builds)",
                              description="Walk two artifacts' automata in lock-step and report every reachable "
                                          "state pair whose masks differ, with a shortest text reaching it (a "
                                          "grammar artifact's states are its parser's, up to --max-pairs pairs).")
    p.add_argument("a", metavar="A", help="the old artifact (with --manifest: the old build directory)")
    p.add_argument("b", metavar="B", help="the new artifact (with --manifest: the new build directory)")
    p.add_argument("--manifest", action="store_true", help="compare two `indexc build` output directories")
    p.add_argument("--limit", type=int, default=10, metavar="N",
                   help="list at most N state pairs and N tokens per list (totals count all; default 10)")
    p.add_argument("--tokenizer", metavar="FILE", default=None, help="the tokenizer of both (for readable tokens)")
    p.add_argument("--tokenizer-a", metavar="FILE", default=None, help="A's tokenizer (when the vocabularies differ)")
    p.add_argument("--tokenizer-b", metavar="FILE", default=None, help="B's tokenizer (when the vocabularies differ)")
    p.add_argument("--max-pairs", type=int, default=None, metavar="N",
                   help="with a grammar artifact (also in --manifest mode): compare at most N state pairs "
                        f"found by the breadth-first search (its pairs may be endless; default {MAX_PAIRS_HELP})")
    p.add_argument("--text", action="append", default=[], metavar="FILE",
                   help="with a grammar artifact: also compare after every prefix of this document "
                        "(repeatable; its pairs do not count against --max-pairs)")
    p.add_argument("--json", action="store_true", help="print one JSON object (last line)")
    p.add_argument("-q", "--quiet", action="store_true", help="print nothing; the exit code says it")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from indexc.diff import diff_artifacts, diff_builds
    from indexc.diff.bounded_product import DEFAULT_MAX_PAIRS
    from indexc.diff.report import artifact_json, artifact_text, build_json, build_text

    limit = max(0, args.limit)
    max_pairs = DEFAULT_MAX_PAIRS if args.max_pairs is None else max(0, args.max_pairs)
    if args.manifest:
        report = diff_builds(args.a, args.b, limit=limit, max_pairs=max_pairs)
        _print(args, build_json, build_text, report)
        return 0 if report.identical else 1
    vocab_a, vocab_b = _vocabularies(args)
    status = StatusLine(enabled=not (args.quiet or args.json) and sys.stderr.isatty())
    try:
        report = diff_artifacts(args.a, args.b, vocab_a=vocab_a, vocab_b=vocab_b, limit=limit,
                                max_pairs=max_pairs, texts=_texts(args.text), progress=status)
    finally:
        status.close()
    _print(args, artifact_json, artifact_text, report)
    return 0 if report.identical else 1


def _print(args: argparse.Namespace, as_json, as_text, report) -> None:
    if args.json:
        print_json(as_json(report))
    elif not args.quiet:
        print(as_text(report))


class StatusLine:
    """``indexc diff: masks 1,024/2,001`` on stderr, redrawn at most ten times a second, on a
    terminal only: a grammar side's masks are cold serving masks (~0.05-3 ms each), so a
    bounded diff of a large grammar takes seconds to a minute."""

    def __init__(self, *, enabled: bool):
        self.enabled, self._drawn_at, self._drawn = enabled, 0.0, False

    def __call__(self, what: str, done: int, total: int) -> None:
        now = time.monotonic()
        if self.enabled and now - self._drawn_at >= 0.1:
            self._drawn_at, self._drawn = now, True
            sys.stderr.write(f"\rindexc diff: {what} {done:,}/{total:,}   ")
            sys.stderr.flush()

    def close(self) -> None:
        if self._drawn:
            sys.stderr.write("\n")
            sys.stderr.flush()


def _texts(paths: list[str]) -> tuple[bytes, ...]:
    """The documents' bytes (UTF-8 text; a file that cannot be read is an error naming it)."""
    return tuple(read_text_file(path, "the text").encode("utf-8") for path in paths)


def _vocabularies(args: argparse.Namespace):
    """Each side's vocabulary: --tokenizer-a/-b, else --tokenizer, else the build manifest beside it."""
    import indexc_runtime
    from indexc.diff.vocabularies import load_tokenizer, vocabulary_from_manifest

    vocabularies = []
    for path, tokenizer in ((args.a, args.tokenizer_a), (args.b, args.tokenizer_b)):
        tokenizer = tokenizer or args.tokenizer
        if tokenizer is not None:
            vocabularies.append(load_tokenizer(tokenizer))
            continue
        try:
            fingerprint = indexc_runtime.load(path).fingerprint
        except (indexc_runtime.ArtifactError, OSError):
            vocabularies.append(None)  # diff_artifacts reports the unreadable file
            continue
        vocabularies.append(vocabulary_from_manifest(path, fingerprint))
    return vocabularies

"""``indexc build``: every constraint x tokenizer of a project file -> artifacts + manifest.json.

Exit 0 when every pair is compiled or up to date, 1 when any pair failed (the others are
still built and listed), 2 when the build cannot start (bad project file, unreachable
scheduler).  Progress goes to stderr (a bar on a terminal), the summary to stdout.
"""

from __future__ import annotations

import argparse

from indexc.cli.common import print_json

DEFAULT_PROJECT = "schemas/indexc.toml"


def register(subparsers) -> None:
    p = subparsers.add_parser("build", help="compile every constraint of a project file, incrementally",
                              description="Compile every (constraint x tokenizer) pair of a project file into an "
                                          "output directory with a manifest.json; unchanged pairs are skipped.")
    p.add_argument("project", nargs="?", default=DEFAULT_PROJECT, metavar="PROJECT",
                   help=f"the project file (default {DEFAULT_PROJECT})")
    p.add_argument("-o", "--output", default="artifacts", metavar="DIR", help="output directory (default artifacts/)")
    p.add_argument("--jobs", type=int, default=0, metavar="N", help="worker processes (default 0: all cores)")
    p.add_argument("--prune", action="store_true", help="delete artifacts the project no longer produces")
    p.add_argument("--backend", choices=("local", "dask"), default="local",
                   help="local processes (default) or a Dask cluster through joblib's Dask backend")
    p.add_argument("--scheduler", metavar="ADDR", default=None, help="Dask scheduler address (with --backend dask)")
    p.add_argument("--json", action="store_true", help="print one JSON object (last line)")
    p.add_argument("-q", "--quiet", action="store_true", help="print only failures")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from indexc.build import run_build
    from indexc.build.summary import failure_lines, summary_json, summary_text

    show_progress = not (args.quiet or args.json)
    report = run_build(args.project, args.output, jobs=args.jobs, prune=args.prune, backend=args.backend,
                       scheduler=args.scheduler, progress=show_progress)
    if args.json:
        print_json(summary_json(report))
    elif args.quiet:
        for line in failure_lines(report):
            print(line)
    else:
        print(summary_text(report))
    return report.exit_code

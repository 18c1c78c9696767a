"""``python -m bench.maskbench``: see ``bench.maskbench.cli``."""

import sys

from bench.maskbench.cli import main

sys.exit(main())

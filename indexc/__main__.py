import sys

from indexc.cli.main import main

sys.exit(main())

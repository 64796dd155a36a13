"""`python -m oclpy.cli`: the `oclpy` command."""

import sys

from .commands import main

sys.exit(main())

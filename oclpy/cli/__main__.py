"""`python -m oclpy.cli`: the `oclpy` command."""

import sys

from .main import main

sys.exit(main())

"""`python -m tools.clsmith`: see `check.py`."""

import sys

from .check import main

sys.exit(main())

"""`python -m benchmarks.real`: run the real suite (see `runner.main`)."""

import sys

from .runner import main

sys.exit(main())

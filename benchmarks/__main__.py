"""`python -m benchmarks`: run the suite (see `runner.main`)."""

import sys

from .runner import main

sys.exit(main())

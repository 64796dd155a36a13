"""A pytest plugin for the client libraries' runs (tools/clients.py): NumPy's global
random state is seeded before each test, so a suite that draws its inputs from
`numpy.random` without a seed of its own (reikna's) gets the same inputs on every
run, whatever tests ran before, and on both implementations.

    python -m pytest -p seed_numpy [--seed-numpy N] ...    (this folder on PYTHONPATH)
"""

from __future__ import annotations

import numpy


def pytest_addoption(parser):
    parser.addoption("--seed-numpy", type=int, default=0,
                     help="the seed of numpy.random's global state before each test (default 0)")


def pytest_runtest_setup(item):
    numpy.random.seed(item.config.getoption("seed_numpy"))

"""Fuzzers: structure-aware mutators of compiler inputs and the loops that run them."""

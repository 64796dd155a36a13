"""Analyses over the IR (CFG, dominators, liveness, uniformity), computed on demand."""

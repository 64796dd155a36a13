"""Analyses over the IR (dominance frontiers, post-dominators, loops, liveness,
uniformity, address spaces), computed on demand. The CFG queries and the
dominator tree they build on are in `ir/` (`ir/cfg.py`, `ir/dominance.py`)."""

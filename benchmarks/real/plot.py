"""The plot of a real-suite run: oclpy's kernel time over each peer's, per kernel (PNG).

`python -m benchmarks.real.plot RESULT.json [OUT.png]`. matplotlib comes from
the suite's own environment (`env.py`) when this interpreter lacks it: the
runner then calls this module with that environment's Python.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

COLOURS = {"intel": "#1f77b4", "pocl": "#ff7f0e", "nvidia": "#2ca02c", "base": "#7f7f7f"}


def draw(record: dict, out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = record["results"]
    peers = [p for p in COLOURS if p in record["implementations"]]
    names = [r["name"] for r in rows]
    fig, ax = plt.subplots(figsize=(max(8, 0.38 * len(names) + 2), 5.5))
    width = 0.8 / max(len(peers), 1)
    for k, peer in enumerate(peers):
        vals = []
        for r in rows:
            o, p = r.get("oclpy", {}).get("kernel_s"), r.get(peer, {}).get("kernel_s")
            vals.append(o / p if o and p else float("nan"))
        xs = [i + (k - (len(peers) - 1) / 2) * width for i in range(len(rows))]
        geo = record["summary"].get(f"geomean_oclpy_over_{peer}")
        label = f"oclpy / {peer}" + (f" (geomean {geo:.2f})" if geo else "")
        ax.bar(xs, [0 if math.isnan(v) else v for v in vals], width, label=label, color=COLOURS[peer])
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_yscale("log")
    ax.set_ylabel("kernel time ratio (below 1: oclpy faster)")
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels(names, rotation=70, ha="right", fontsize=8)
    ax.set_title(f"Real OpenCL kernels on {record['machine'].get('cpu', 'CPU')} ({record['date_utc']})",
                 fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def plot(json_path: Path, out: Path, python: Path | None = None) -> str | None:
    """Draw here, or with `python` (the suite's venv) if matplotlib is missing; None or why not."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        if python is None or not python.exists():
            return "matplotlib is not installed (python -m benchmarks.real --install-intel adds it)"
        root = Path(__file__).resolve().parents[2]
        proc = subprocess.run([str(python), "-m", "benchmarks.real.plot", str(json_path), str(out)],
                              cwd=root, capture_output=True, text=True)
        return None if proc.returncode == 0 else f"plot failed: {proc.stderr.strip()[-400:]}"
    draw(json.loads(json_path.read_text()), out)
    return None


if __name__ == "__main__":
    src = Path(sys.argv[1])
    draw(json.loads(src.read_text()), Path(sys.argv[2]) if len(sys.argv) > 2 else src.with_suffix(".png"))

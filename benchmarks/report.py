"""The results table, the summary (geomean, worst kernel) and the JSON record."""

from __future__ import annotations

import json
import math
import platform
import time
from pathlib import Path
from typing import Any

from tools.machine_info import machine, software

RESULTS_DIR = Path(__file__).resolve().parent / "results"

COLUMNS = ("kernel", "size", "oclpy ms", "PoCL ms", "ratio", "build cold oclpy/PoCL s",
           "1st launch oclpy/PoCL ms", "build warm oclpy/PoCL ms", "launch oclpy/PoCL us",
           "check")


def _ms(s: float) -> str:
    return "-" if math.isnan(s) else f"{s * 1e3:.2f}"


def _pair(a: float, b: float, scale: float, fmt: str) -> str:
    f = lambda v: "-" if math.isnan(v) else format(v * scale, fmt)
    return f"{f(a)}/{f(b)}"


def ratio(row: dict[str, Any]) -> float:
    o, p = row["oclpy"]["kernel_s"], row.get("pocl", {}).get("kernel_s", float("nan"))
    return o / p if p and not math.isnan(p) and not math.isnan(o) else float("nan")


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    ratios = [(r["name"], ratio(r)) for r in rows if not math.isnan(ratio(r))]
    if not ratios:
        return {}
    builds = {}
    for impl in ("oclpy", "pocl"):
        for key in ("cold_build_s", "warm_build_s", "first_launch_s", "launch_overhead_s"):
            vals = sorted(r[impl][key] for r in rows if impl in r and not math.isnan(r[impl][key]))
            if vals:
                builds[f"{impl}_median_{key}"] = vals[len(vals) // 2]
    geo = math.exp(sum(math.log(x) for _, x in ratios) / len(ratios))
    worst = max(ratios, key=lambda t: t[1])
    return {"geomean_ratio": geo, "worst_kernel": worst[0], "worst_ratio": worst[1],
            "kernels_compared": len(ratios), **builds}


def table(rows: list[dict[str, Any]]) -> str:
    nan = float("nan")
    lines = []
    for r in rows:
        o, p = r["oclpy"], r.get("pocl", {})
        status = [f"{k}: {v['error']}" for k, v in (("oclpy", o), ("pocl", p)) if v.get("error")]
        lines.append((r["name"], r["size"], _ms(o["kernel_s"]), _ms(p.get("kernel_s", nan)),
                      "-" if math.isnan(ratio(r)) else f"{ratio(r):.2f}",
                      _pair(o["cold_build_s"], p.get("cold_build_s", nan), 1, ".3f"),
                      _pair(o["first_launch_s"], p.get("first_launch_s", nan), 1e3, ".0f"),
                      _pair(o["warm_build_s"], p.get("warm_build_s", nan), 1e3, ".1f"),
                      _pair(o["launch_overhead_s"], p.get("launch_overhead_s", nan), 1e6, ".0f"),
                      "; ".join(status) or "ok"))
    widths = [max(len(str(x)) for x in col) for col in zip(COLUMNS, *lines)]
    fmt = lambda row: "  ".join(str(x).ljust(w) for x, w in zip(row, widths)).rstrip()
    out = [fmt(COLUMNS), fmt(["-" * w for w in widths])] + [fmt(l) for l in lines]
    s = summary(rows)
    if s:
        out.append(f"\ngeomean oclpy/PoCL kernel-time ratio: {s['geomean_ratio']:.3f} over "
                   f"{s['kernels_compared']} kernels; worst: {s['worst_kernel']} "
                   f"({s['worst_ratio']:.2f})")
        for key, label, scale, unit in (("cold_build_s", "cold build", 1e3, "ms"),
                                        ("first_launch_s", "first launch", 1e3, "ms"),
                                        ("warm_build_s", "warm build", 1e3, "ms"),
                                        ("launch_overhead_s", "one-group launch", 1e6, "us")):
            o, p = s.get(f"oclpy_median_{key}"), s.get(f"pocl_median_{key}")
            if o is not None:
                other = f", PoCL {p * scale:.1f} {unit}" if p is not None else ""
                out.append(f"median {label}: oclpy {o * scale:.1f} {unit}{other}")
    return "\n".join(out)


def write_json(rows: list[dict[str, Any]], impls: dict[str, Any], out: Path | None,
               notes: list[str] = ()) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    path = out or RESULTS_DIR / f"{stamp}-{platform.node() or 'host'}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    record = {"date_utc": stamp, "machine": machine(), "software": software(),
              "implementations": impls, "notes": list(notes), "summary": summary(rows), "results": rows}
    path.write_text(json.dumps(_clean(record), indent=1) + "\n")
    return path


def _clean(x: Any) -> Any:
    """NaN (not measured) becomes null, so the file is strict JSON."""
    if isinstance(x, float):
        return None if math.isnan(x) else x
    if isinstance(x, dict):
        return {k: _clean(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_clean(v) for v in x]
    return x

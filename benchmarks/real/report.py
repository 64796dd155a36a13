"""The real suite's table, summary (geometric means, worst kernels) and JSON record."""

from __future__ import annotations

import json
import math
import platform
import time
from pathlib import Path
from typing import Any

from .. import report as base

RESULTS_DIR = base.RESULTS_DIR
PEERS = ("intel", "pocl", "nvidia", "base")
LABEL = {"oclpy": "oclpy", "pocl": "PoCL", "intel": "Intel", "nvidia": "NVIDIA", "base": "base"}


def ratio(row: dict[str, Any], peer: str) -> float:
    o = row.get("oclpy", {}).get("kernel_s")
    p = row.get(peer, {}).get("kernel_s")
    if o is None or p is None or math.isnan(o) or math.isnan(p) or p <= 0:
        return float("nan")
    return o / p


def geomean(values: list[float]) -> float:
    vals = [v for v in values if not math.isnan(v)]
    return math.exp(sum(map(math.log, vals)) / len(vals)) if vals else float("nan")


def summary(rows: list[dict[str, Any]], impls: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {"kernels": len(rows)}
    for peer in PEERS:
        if peer not in impls:
            continue
        rs = [(r["name"], ratio(r, peer)) for r in rows if not math.isnan(ratio(r, peer))]
        if rs:
            worst = sorted(rs, key=lambda t: -t[1])
            out[f"geomean_oclpy_over_{peer}"] = geomean([x for _, x in rs])
            out[f"compared_with_{peer}"] = len(rs)
            out[f"worst_vs_{peer}"] = worst[:5]
            out[f"above_2x_{peer}"] = [n for n, x in rs if x > 2]
    for impl in impls:
        for key in ("cold_build_s", "first_launch_s"):
            vals = sorted(r[impl][key] for r in rows if impl in r and r[impl].get(key) is not None
                          and not math.isnan(r[impl][key]))
            if vals:
                out[f"{impl}_median_{key}"] = vals[len(vals) // 2]
    return out


def _ms(row: dict[str, Any], impl: str) -> str:
    v = row.get(impl, {}).get("kernel_s", float("nan"))
    return "-" if v is None or math.isnan(v) else f"{v * 1e3:.2f}"


def _cold(row: dict[str, Any], impls: list[str]) -> str:
    vals = []
    for impl in impls:
        r = row.get(impl, {})
        b, f = r.get("cold_build_s", float("nan")), r.get("first_launch_s", float("nan"))
        vals.append("-" if math.isnan(b) or math.isnan(f) else f"{b + f:.2f}")
    return "/".join(vals)


def table(rows: list[dict[str, Any]], impls: list[str]) -> str:
    peers = [p for p in PEERS if p in impls]
    cols = (["kernel", "project", "size"] + [f"{LABEL[i]} ms" for i in impls]
            + [f"oclpy/{LABEL[p]}" for p in peers]
            + [f"cold build+1st s ({'/'.join(LABEL[i] for i in impls)})", "check"])
    lines = []
    for r in rows:
        errs = [f"{i}: {r[i]['error']}" for i in impls if r.get(i, {}).get("error")]
        ratios = ["-" if math.isnan(ratio(r, p)) else f"{ratio(r, p):.2f}" for p in peers]
        lines.append([r["name"], r["project"], r["size"]] + [_ms(r, i) for i in impls] + ratios
                     + [_cold(r, impls), "; ".join(errs) or "ok"])
    widths = [max(len(str(x)) for x in col) for col in zip(cols, *lines)]
    fmt = lambda row: "  ".join(str(x).ljust(w) for x, w in zip(row, widths)).rstrip()
    out = [fmt(cols), fmt(["-" * w for w in widths])] + [fmt(l) for l in lines]
    s = summary(rows, impls)
    for p in peers:
        if f"geomean_oclpy_over_{p}" in s:
            worst = ", ".join(f"{n} {x:.2f}" for n, x in s[f"worst_vs_{p}"])
            out.append(f"\ngeomean oclpy/{LABEL[p]} kernel time: {s[f'geomean_oclpy_over_{p}']:.3f} over "
                       f"{s[f'compared_with_{p}']} kernels; slowest relative to {LABEL[p]}: {worst}")
    for key, label in (("cold_build_s", "cold build"), ("first_launch_s", "first launch")):
        parts = [f"{LABEL[i]} {s[f'{i}_median_{key}'] * 1e3:.0f} ms" for i in impls
                 if f"{i}_median_{key}" in s]
        if parts:
            out.append(f"median {label}: " + ", ".join(parts))
    return "\n".join(out)


def write_json(rows: list[dict[str, Any]], impls: dict[str, Any], origins: list[dict[str, Any]],
               out: Path | None, notes: list[str], options: dict[str, Any]) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    path = out or RESULTS_DIR / f"real-{stamp}-{platform.node() or 'host'}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    software = base.software()
    for impl, info in impls.items():
        software[f"{impl}_platform"] = info.get("platform_version", "")
    record = {"suite": "real", "date_utc": stamp, "machine": base.machine(), "software": software,
              "implementations": impls, "options": options, "notes": notes,
              "summary": summary(rows, list(impls)), "projects": origins, "results": rows}
    path.write_text(json.dumps(base._clean(record), indent=1) + "\n")
    return path

#!/usr/bin/env python3
"""The runbook's profile step (scripts/gpu-run.sh, profiles.txt): Nsight Compute's per-kernel CSV
(`ncu --import REPORT --csv --page details`) summed up.

    ncu_summary.py DETAILS.csv TABLE.md

Writes TABLE.md (one row per profiled kernel: name, grid, block, duration, DRAM and SM throughput,
registers, achieved occupancy) and prints one line for summary.txt: the kernel count, their device
time together, and the kernels that took most of it, grouped by name, with the DRAM throughput
weighted by duration. Exit status 1 when the CSV holds no kernel (nothing was profiled: a filter
that matched nothing, or a profiler that did not attach), 2 on a wrong call.

Column and metric names are those of Nsight Compute 2023-2025 (SpeedOfLight, LaunchStats and
Occupancy sections); values may carry thousands separators; durations come in ns/us/ms/s or
nsecond/usecond/msecond/second.
"""

import csv
import re
import sys

UNIT_US = {"ns": 1e-3, "nsecond": 1e-3, "us": 1.0, "usecond": 1.0, "ms": 1e3, "msecond": 1e3,
           "s": 1e6, "second": 1e6}


def number(text):
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def column(row, cols, name):
    i = cols.get(name)
    return row[i] if i is not None and i < len(row) else ""


def short_name(name):
    """The block program or body a generic launcher ran (program_kernel<polyhe::...::RowNtt<...>>
    → RowNtt), else the function's own name."""
    m = re.search(r"_kernel<(?:[\w:]+::)?(\w+)", name)
    if m:
        return m.group(1)
    m = re.match(r"(?:void\s+)?([\w:]+)", name)
    return m.group(1).split("::")[-1] if m else name


def kernels(path):
    """{launch id: {name, grid, block, duration_us, dram, sm, registers, occupancy}} in order."""
    out = {}
    with open(path, newline="") as f:
        rows = [r for r in csv.reader(f) if r]
    header = next((i for i, r in enumerate(rows) if "Metric Name" in r), None)
    if header is None:
        return out
    cols = {name: i for i, name in enumerate(rows[header])}
    ident = cols.get("ID", cols.get("Id"))
    # A metric row may end before the rule columns the header names (ncu 2025 leaves them out when
    # no rule applies): only the columns read here must be present.
    needed = max(cols[c] for c in ("Kernel Name", "Metric Name", "Metric Unit", "Metric Value"))
    for r in rows[header + 1:]:
        if len(r) <= max(needed, ident):
            continue
        k = out.setdefault(r[ident], {"name": r[cols["Kernel Name"]],
                                      "grid": column(r, cols, "Grid Size"),
                                      "block": column(r, cols, "Block Size")})
        metric, unit, value = r[cols["Metric Name"]], r[cols["Metric Unit"]], r[cols["Metric Value"]]
        v = number(value)
        if metric == "Duration" and v is not None and unit in UNIT_US:
            k["duration_us"] = v * UNIT_US[unit]
        elif metric == "DRAM Throughput" and v is not None:
            k["dram"] = v
        elif metric == "Compute (SM) Throughput" and v is not None:
            k["sm"] = v
        elif metric == "Registers Per Thread" and v is not None:
            k["registers"] = v
        elif metric == "Achieved Occupancy" and v is not None:
            k["occupancy"] = v
    return out


def fmt(v, digits=1):
    return "—" if v is None else f"{v:.{digits}f}"


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    ks = kernels(sys.argv[1])
    with open(sys.argv[2], "w") as f:
        f.write("| # | kernel | grid | block | duration µs | DRAM % | SM % | registers | "
                "achieved occupancy % |\n|---:|---|---|---|---:|---:|---:|---:|---:|\n")
        for i, k in enumerate(ks.values()):
            f.write(f"| {i} | {short_name(k['name'])} | {k['grid']} | {k['block']} | "
                    f"{fmt(k.get('duration_us'), 2)} | {fmt(k.get('dram'))} | {fmt(k.get('sm'))} | "
                    f"{fmt(k.get('registers'), 0)} | {fmt(k.get('occupancy'))} |\n")
        f.write("\nFull names:\n\n")
        for i, k in enumerate(ks.values()):
            f.write(f"- {i}: `{k['name']}`\n")
    if not ks:
        print("no kernel in the report (nothing was profiled)")
        sys.exit(1)
    groups = {}
    for k in ks.values():
        g = groups.setdefault(short_name(k["name"]), {"count": 0, "us": 0.0, "dram_us": 0.0})
        g["count"] += 1
        d = k.get("duration_us", 0.0)
        g["us"] += d
        g["dram_us"] += d * k.get("dram", 0.0)
    total = sum(g["us"] for g in groups.values())
    top = sorted(groups.items(), key=lambda kv: -kv[1]["us"])[:4]
    parts = [f"{name} x{g['count']} {g['us']:.1f} us"
             + (f" (DRAM {g['dram_us'] / g['us']:.0f} %)" if g["us"] > 0 else "")
             for name, g in top]
    print(f"{len(ks)} kernels, {total:.1f} us of device time; most: " + ", ".join(parts))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Draws the plots of `polyhe report` from its `--data` file (one JSON object a line, what the
bench commands print with --json) into a directory:

  report-ntt.png      NTT time against N, per CPU kernel path and prime size
  report-schemes.png  CKKS, BFV and BGV op times, per backend
  report-fused.png    fused polymul ([GPU-Polymul, Alg. 8]) against INTT(NTT(a) . NTT(b)), per path and prime size

    scripts/plot_report.py DATA_FILE OUTPUT_DIR

Needs Python 3 and matplotlib (Debian: python3-matplotlib, which scripts/deps.sh installs).
Exits 0 on success, 2 with one line "plot_report: error: ..." on stderr when the data is
missing or malformed, or when matplotlib is missing.
"""

import json
import math
import os
import sys

NTT_OPS = ("ntt_forward", "ntt_inverse")
POLYMUL_OPS = ("polymul", "polymul_fused")
SCHEMES = ("ckks", "bfv", "bgv")
SCHEME_TITLES = {"ckks": "CKKS", "bfv": "BFV", "bgv": "BGV"}
# The order the kernel paths are drawn in (slowest first); unknown paths follow, sorted.
PATH_ORDER = ("scalar", "avx2", "avx512", "ifma")
OUTPUTS = ("report-ntt.png", "report-schemes.png", "report-fused.png")


class DataError(Exception):
    """Missing or malformed data: reported on one line, exit status 2."""


def fail(message):
    print("plot_report: error: " + message, file=sys.stderr)
    sys.exit(2)


def number(row, key, where):
    value = row.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise DataError(f"{where}: '{key}' is missing or not a finite number")
    return value


def text(row, key, where):
    value = row.get(key)
    if not isinstance(value, str) or not value:
        raise DataError(f"{where}: '{key}' is missing or not a non-empty string")
    return value


def load(path):
    """The measurements of `path`, each checked for the fields the plots use."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.readlines()
    except OSError as e:
        raise DataError(f"cannot read the data file '{path}': {e.strerror}") from e
    except UnicodeDecodeError as e:
        raise DataError(f"'{path}' is not UTF-8 text") from e
    rows = []
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{path}:{lineno}"
        try:
            row = json.loads(line)
        except json.JSONDecodeError as e:
            raise DataError(f"{where}: not a JSON object ({e.msg})") from e
        if not isinstance(row, dict):
            raise DataError(f"{where}: not a JSON object")
        text(row, "op", where)
        text(row, "backend", where)
        text(row, "path", where)
        number(row, "log_n", where)
        number(row, "bits", where)
        median = number(row, "median_ns", where)
        if median <= 0:
            raise DataError(f"{where}: 'median_ns' is not positive")
        if "scheme" in row:
            text(row, "scheme", where)
        rows.append(row)
    if not rows:
        raise DataError(f"'{path}' holds no measurements (is it `polyhe report --data` output?)")
    return rows


def path_key(path):
    return (PATH_ORDER.index(path), "") if path in PATH_ORDER else (len(PATH_ORDER), path)


def machine(rows):
    """The CPU the measurements ran on, from the CPU rows' `device`, or None."""
    for row in rows:
        if row["backend"] == "cpu" and isinstance(row.get("device"), str) and row["device"]:
            return row["device"]
    return None


def title(base, rows):
    cpu = machine(rows)
    return f"{base} ({cpu})" if cpu else base


def ntt_rows(rows, ops):
    return [r for r in rows if "scheme" not in r and r["backend"] == "cpu" and r["op"] in ops]


def log2_axis(ax, log_ns):
    """x axis: N on a log-2 scale with a tick per measured N."""
    ax.set_xscale("log", base=2)
    ticks = sorted({2**n for n in log_ns})
    ax.set_xticks(ticks)
    ax.set_xticklabels([f"$2^{{{int(math.log2(t))}}}$" for t in ticks])
    ax.set_xlabel("N (ring degree)")


def series(rows, op, bits, path):
    """(N, median µs, p10 µs, p90 µs) of one op, prime size and path, by N."""
    points = sorted(
        (r["log_n"], r["median_ns"] / 1e3, r.get("p10_ns", r["median_ns"]) / 1e3,
         r.get("p90_ns", r["median_ns"]) / 1e3)
        for r in rows if r["op"] == op and r["bits"] == bits and r["path"] == path)
    return [(2**p[0], p[1], p[2], p[3]) for p in points]


def colours(paths):
    import matplotlib.pyplot as plt
    cycle = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    return {p: cycle[i % len(cycle)] for i, p in enumerate(paths)}


def ntt_data(rows):
    data = ntt_rows(rows, NTT_OPS)
    if not data:
        raise DataError("no NTT measurements (op ntt_forward or ntt_inverse on the CPU)")
    return data


def plot_ntt(plt, rows, data, out):
    bits = sorted({r["bits"] for r in data})
    paths = sorted({r["path"] for r in data}, key=path_key)
    colour = colours(paths)
    ops = [op for op in NTT_OPS if any(r["op"] == op for r in data)]
    fig, axes = plt.subplots(len(ops), len(bits), figsize=(4.6 * len(bits), 3.8 * len(ops)),
                             squeeze=False, sharex=True, sharey=True)
    for i, op in enumerate(ops):
        for j, b in enumerate(bits):
            ax = axes[i][j]
            for path in paths:
                pts = series(data, op, b, path)
                if not pts:
                    continue
                xs = [p[0] for p in pts]
                ax.plot(xs, [p[1] for p in pts], marker="o", markersize=3, color=colour[path],
                        label=path)
                ax.fill_between(xs, [p[2] for p in pts], [p[3] for p in pts], color=colour[path],
                                alpha=0.15, linewidth=0)
            log2_axis(ax, [r["log_n"] for r in data])
            ax.set_yscale("log")
            ax.grid(True, which="both", alpha=0.3)
            ax.set_title(f"{op.replace('_', ' ')}, {b}-bit prime", fontsize=10)
            if j == 0:
                ax.set_ylabel("time per call (µs, median; band p10-p90)")
            ax.legend(title="CPU path", fontsize=8, title_fontsize=8)
    fig.suptitle(title("polyhe NTT, 1 thread", rows))
    fig.tight_layout()
    fig.savefig(os.path.join(out, "report-ntt.png"), dpi=110)
    plt.close(fig)


def scheme_label(row):
    backend = row["backend"]
    if backend == "cpu":
        return f"cpu ({row['path']})"
    device = row.get("device")
    return f"{backend} ({device})" if isinstance(device, str) and device else backend


def scheme_data(rows):
    data = [r for r in rows if r.get("scheme") in SCHEMES]
    if not data:
        raise DataError("no CKKS, BFV or BGV measurements (rows with a 'scheme' field)")
    return data


def plot_schemes(plt, rows, data, out):
    schemes = [s for s in SCHEMES if any(r["scheme"] == s for r in data)]
    backends = []
    for r in data:
        if scheme_label(r) not in backends:
            backends.append(scheme_label(r))
    colour = colours(backends)
    fig, axes = plt.subplots(1, len(schemes), figsize=(5.2 * len(schemes), 4.6), squeeze=False)
    for ax, scheme in zip(axes[0], schemes):
        mine = [r for r in data if r["scheme"] == scheme]
        ops = []
        for r in mine:
            if r["op"] not in ops:
                ops.append(r["op"])
        width = 0.8 / len(backends)
        for k, backend in enumerate(backends):
            xs, ys = [], []
            for i, op in enumerate(ops):
                match = [r for r in mine if r["op"] == op and scheme_label(r) == backend]
                if match:
                    xs.append(i - 0.4 + width * (k + 0.5))
                    ys.append(match[0]["median_ns"] / 1e3)
            if xs:
                ax.bar(xs, ys, width=width, color=colour[backend], label=backend)
        ax.set_xticks(range(len(ops)))
        ax.set_xticklabels([op.replace("_", " ") for op in ops], rotation=40, ha="right",
                           fontsize=8)
        ax.set_yscale("log")
        ax.grid(True, axis="y", which="both", alpha=0.3)
        log_ns = sorted({r["log_n"] for r in mine})
        n_text = ", ".join(f"$2^{{{int(n)}}}$" for n in log_ns)
        log_qp = sorted({r["log_qp"] for r in mine if isinstance(r.get("log_qp"), (int, float))})
        qp_text = f", log QP = {int(log_qp[0])}" if len(log_qp) == 1 else ""
        ax.set_title(f"{SCHEME_TITLES[scheme]}, N = {n_text}{qp_text}", fontsize=10)
        ax.set_ylabel("time per op (µs, median)")
        ax.legend(title="backend", fontsize=8, title_fontsize=8)
    fig.suptitle(title("polyhe scheme ops, 1 thread", rows))
    fig.tight_layout()
    fig.savefig(os.path.join(out, "report-schemes.png"), dpi=110)
    plt.close(fig)


def fused_data(rows):
    """(polymul medians, polymul_fused medians, their common keys (log N, bits, path, variant))."""
    data = ntt_rows(rows, POLYMUL_OPS)
    plain = {(r["log_n"], r["bits"], r["path"], r.get("variant")): r["median_ns"]
             for r in data if r["op"] == "polymul"}
    fused = {(r["log_n"], r["bits"], r["path"], r.get("variant")): r["median_ns"]
             for r in data if r["op"] == "polymul_fused"}
    pairs = sorted(set(plain) & set(fused), key=lambda k: (k[1], path_key(k[2]), k[0]))
    if not pairs:
        raise DataError("no polymul and polymul_fused measurements of the same N, bits and path")
    return plain, fused, pairs


def plot_fused(plt, rows, data, out):
    from matplotlib.lines import Line2D
    plain, fused, pairs = data
    bits = sorted({k[1] for k in pairs})
    paths = sorted({k[2] for k in pairs}, key=path_key)
    colour = colours(paths)
    fig, axes = plt.subplots(2, len(bits), figsize=(4.6 * len(bits), 7.4), squeeze=False,
                             sharex=True)
    for j, b in enumerate(bits):
        top, bottom = axes[0][j], axes[1][j]
        for path in paths:
            keys = sorted((k for k in pairs if k[1] == b and k[2] == path), key=lambda k: k[0])
            if not keys:
                continue
            xs = [2**k[0] for k in keys]
            top.plot(xs, [plain[k] / 1e3 for k in keys], linestyle="--", marker="o",
                     markersize=3, color=colour[path])
            top.plot(xs, [fused[k] / 1e3 for k in keys], linestyle="-", marker="s", markersize=3,
                     color=colour[path])
            bottom.plot(xs, [fused[k] / plain[k] for k in keys], marker="o", markersize=3,
                        color=colour[path], label=path)
        top.set_yscale("log")
        top.set_title(f"polymul, {b}-bit prime", fontsize=10)
        top.grid(True, which="both", alpha=0.3)
        # Colour: the path (as in the ratio plot below); line: fused or unfused.
        top.legend(handles=[Line2D([], [], color="grey", linestyle="-", marker="s", markersize=3,
                                   label="fused ([GPU-Polymul, Alg. 8])"),
                            Line2D([], [], color="grey", linestyle="--", marker="o", markersize=3,
                                   label="unfused INTT(NTT ⊙ NTT)")], fontsize=8)
        bottom.axhline(1.0, color="black", linewidth=0.8)
        bottom.grid(True, alpha=0.3)
        bottom.legend(title="CPU path", fontsize=8, title_fontsize=8)
        log2_axis(bottom, [k[0] for k in pairs])
        if j == 0:
            top.set_ylabel("time per product (µs, median)")
            bottom.set_ylabel("fused / unfused time (below 1: fused faster)")
    fig.suptitle(title("polyhe fused ([GPU-Polymul, Alg. 8]) against unfused polymul, 1 thread", rows))
    fig.tight_layout()
    fig.savefig(os.path.join(out, "report-fused.png"), dpi=110)
    plt.close(fig)


def main(argv):
    if argv[1:] in (["-h"], ["--help"]):
        print(__doc__.strip())
        return 0
    if len(argv) != 3:
        fail("usage: plot_report.py DATA_FILE OUTPUT_DIR (see --help)")
    data_path, out = argv[1], argv[2]
    try:
        rows = load(data_path)
        if not os.path.isdir(out):
            raise DataError(f"the output directory '{out}' does not exist")
        # Every plot's data first: malformed data leaves no plot behind.
        ntt, schemes, fused = ntt_data(rows), scheme_data(rows), fused_data(rows)
    except DataError as e:
        fail(str(e))
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        # python3 on PATH may be another interpreter (pyenv, a virtual environment) than the
        # system's, which has Debian's python3-matplotlib: try that one once.
        system = "/usr/bin/python3"
        if os.path.realpath(sys.executable) != os.path.realpath(system) and os.access(
                system, os.X_OK) and not os.environ.get("PLOT_REPORT_REEXEC"):
            os.environ["PLOT_REPORT_REEXEC"] = "1"
            os.execv(system, [system, os.path.abspath(__file__)] + argv[1:])
        fail(f"matplotlib is missing for {sys.executable} (scripts/deps.sh installs "
             "python3-matplotlib)")
    try:
        plot_ntt(plt, rows, ntt, out)
        plot_schemes(plt, rows, schemes, out)
        plot_fused(plt, rows, fused, out)
    except DataError as e:
        fail(str(e))
    except OSError as e:
        fail(f"writing the plots into '{out}' failed: {e.strerror or e}")
    for name in OUTPUTS:
        print(os.path.join(out, name))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

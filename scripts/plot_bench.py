#!/usr/bin/env python3
"""Figures from tridiag-bench CSVs (perf_tests/), after the seed papers' figures.

usage: scripts/plot_bench.py CSV [CSV ...] [--out DIR] [--prefix TEXT]

Each CSV is plotted on its own (a CSV of `tridiag-bench all` holds every sweep). PNG files go into
DIR (default: the first CSV's folder), named as below; with several CSVs each file name starts with
its CSV's name (without .csv) and '_', or with --prefix.
  speedup_vs_sequential_<prec>.png  cuThomasBatch Fig. 9/10: one panel per size n, x = systems,
                                    one line per algorithm/layout (the sequential baseline is 1)
  speedup_vs_cusparse.png           cuThomasBatch Fig. 11: one column per precision, rows: vs
                                    gtsv2StridedBatch and vs the fastest gtsvInterleavedBatch; x =
                                    systems, one colour per n; thomas/interleaved, partitioned/flat
                                    and the fastest tridiag row of each point
  bandwidth_<prec>.png              achieved useful bandwidth in % of the copy reference of the run,
                                    one panel per n
  memory_<prec>.png                 cuThomasBatch Fig. 12: memory per algorithm/layout at the largest
                                    batch, one group of bars per n
  vbatch_<prec>.png                 cuThomasVBatch Fig. 13 (vbatch sweep): CP vs NCP (padded and
                                    ragged storage) vs size-aware, one column per size range, x =
                                    systems; top: time, bottom: time over CP's
  hines_layouts_<prec>.png          cuHinesBatch Fig. 3-5 (hines sweep): throughput in real rows
                                    (compartments) per second, one row of panels per number of
                                    neurons, one panel per kernel; bars = layouts (Flat,
                                    Full-Interleaved, Block-Interleaved 8/32, Unified-Vector), one
                                    group per batch (one morphology, then mixed padded / grouped);
                                    black and grey marks: the OpenMP (multicore) and sequential
                                    baselines, so the speedup over them is the ratio of heights
A figure whose columns are empty in the CSV (no sequential baseline, no cuSPARSE on a host run)
is skipped with a note. Needs only matplotlib (Debian's python3-matplotlib) and the standard library.
"""

import argparse
import csv
import math
import os
import sys
from collections import defaultdict

plt = None  # matplotlib.pyplot, imported by main() once the command line is read (--help needs none)


def import_matplotlib():
    global plt
    try:
        import matplotlib
    except ImportError:
        sys.exit("plot_bench.py: no matplotlib for %s: install python3-matplotlib (scripts/install_packages.sh) "
                 "or run it with the Python that has it (e.g. /usr/bin/python3)" % sys.executable)
    matplotlib.use("Agg")
    import matplotlib.pyplot as pyplot
    plt = pyplot

NUMERIC = [
    "systems", "size", "time_ms", "useful_GBps", "pct_of_copy_bw", "speedup_vs_sequential",
    "speedup_vs_openmp", "speedup_vs_cusparse_interleaved", "speedup_vs_cusparse_strided",
    "memory_bytes", "max_rel_error",
]


def read_csv(path):
    """Rows (dicts, numbers as float or None) and the '#' header lines of a tridiag-bench CSV."""
    comments, lines = [], []
    with open(path, newline="") as f:
        for line in f:
            if line.startswith("#"):
                comments.append(line[1:].strip())
            elif line.strip():
                lines.append(line)
    rows = []
    for raw in csv.DictReader(lines):
        row = dict(raw)
        for key in NUMERIC:
            text = (row.get(key) or "").strip()
            try:
                row[key] = float(text) if text else None
            except ValueError:
                row[key] = None
        rows.append(row)
    return rows, comments


def header_value(comments, key):
    for c in comments:
        if c.startswith(key + ":"):
            return c[len(key) + 1:].strip()
    return ""


MARKERS = ["o", "s", "^", "v", "D", "P", "X", "*"]
LINESTYLES = ["-", "--", ":", "-."]


def series_name(row):
    return row["algorithm"] + ("/" + row["layout"] if row.get("layout") else "")


def panel_grid(count):
    cols = 1 if count == 1 else 2
    rows = int(math.ceil(count / cols))
    fig, axes = plt.subplots(rows, cols, figsize=(6.0 * cols, 4.2 * rows), squeeze=False)
    flat = [ax for line in axes for ax in line]
    for ax in flat[count:]:
        ax.set_visible(False)
    return fig, flat[:count]


def finish(fig, title, subtitle, path):
    fig.suptitle(title + "\n" + subtitle, fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 0.94))
    fig.savefig(path, dpi=90, bbox_inches="tight")
    plt.close(fig)
    print("wrote " + path)


def use_log(values):
    values = [v for v in values if v is not None and v > 0]
    return bool(values) and max(values) / min(values) > 30


def plot_per_size(rows, column, precision, ylabel, path, subtitle, reference_line=None):
    """One panel per n, x = systems, one line per algorithm/layout."""
    data = [r for r in rows if r["precision"] == precision and r[column] is not None]
    if not data:
        return False
    sizes = sorted({int(r["size"]) for r in data})
    fig, axes = panel_grid(len(sizes))
    for ax, n in zip(axes, sizes):
        by_series = defaultdict(list)
        for r in data:
            if int(r["size"]) == n:
                by_series[series_name(r)].append((r["systems"], r[column]))
        for k, name in enumerate(sorted(by_series)):
            points = sorted(by_series[name])
            # 10 colours x 4 line styles: every series stays distinguishable.
            ax.plot([p[0] for p in points], [p[1] for p in points], marker=MARKERS[k % len(MARKERS)],
                    linestyle=LINESTYLES[(k // 10) % len(LINESTYLES)], color="C%d" % (k % 10), label=name)
        ax.set_xscale("log")
        if use_log([r[column] for r in data]):
            ax.set_yscale("log")
        if reference_line is not None:
            ax.axhline(reference_line, color="grey", linewidth=0.8, linestyle=":")
        ax.set_title("n = %d" % n)
        ax.set_xlabel("systems")
        ax.set_ylabel(ylabel)
        ax.grid(True, which="both", alpha=0.3)
    # One legend for all panels, beside them (inside a panel it hides the data).
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=7)
    finish(fig, "%s, %s" % (ylabel, precision), subtitle, path)
    return True


CUSPARSE_SERIES = [("thomas/interleaved", "-", "o", "thomas / interleaved (cuThomasBatch)"),
                   ("partitioned/flat", "--", "s", "partitioned / flat"),
                   ("fastest", ":", "^", "fastest tridiag row of the point")]


def plot_cusparse(rows, path, subtitle):
    """cuThomasBatch Fig. 11: our solvers over cuSPARSE, per precision and cuSPARSE routine."""
    data = [r for r in rows if (r["speedup_vs_cusparse_strided"] is not None or
                                r["speedup_vs_cusparse_interleaved"] is not None) and
            not r["algorithm"].startswith("cusparse") and "[Cuda" in (r.get("device") or "[Cuda")
            and not r["algorithm"].endswith(("-sequential", "-openmp"))]
    if not data:
        return False
    precisions = [p for p in ("float", "double") if any(r["precision"] == p for r in data)]
    references = [("speedup_vs_cusparse_strided", "vs gtsv2StridedBatch"),
                  ("speedup_vs_cusparse_interleaved", "vs the fastest gtsvInterleavedBatch")]
    fig, axes = plt.subplots(len(references), len(precisions), squeeze=False,
                             figsize=(6.0 * len(precisions), 4.0 * len(references)), sharex=True)
    sizes = sorted({int(r["size"]) for r in data})
    for j, precision in enumerate(precisions):
        mine = [r for r in data if r["precision"] == precision]
        for i, (column, what) in enumerate(references):
            ax = axes[i][j]
            for c, n in enumerate(sizes):
                for key, style, marker, _ in CUSPARSE_SERIES:
                    points = defaultdict(list)
                    for r in mine:
                        if int(r["size"]) != n or r[column] is None:
                            continue
                        if key == "fastest" or series_name(r) == key:
                            points[r["systems"]].append(r[column])
                    xy = sorted((x, max(v)) for x, v in points.items())  # fastest = largest speedup
                    if xy:
                        ax.plot([p[0] for p in xy], [p[1] for p in xy], linestyle=style, marker=marker,
                                color="C%d" % c)
            ax.set_xscale("log")
            ax.axhline(1.0, color="grey", linewidth=0.8)
            ax.set_title("%s, %s" % (precision, what), fontsize=10)
            ax.set_ylabel("speedup (cuSPARSE time / ours)")
            if i == len(references) - 1:
                ax.set_xlabel("systems")
            ax.grid(True, which="both", alpha=0.3)
    from matplotlib.lines import Line2D
    handles = [Line2D([], [], color="C%d" % c, label="n = %d" % n) for c, n in enumerate(sizes)]
    handles += [Line2D([], [], color="black", linestyle=style, marker=marker, label=label)
                for _, style, marker, label in CUSPARSE_SERIES]
    fig.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=4, fontsize=8)
    finish(fig, "speedup over cuSPARSE on the same data (above 1: tridiag is faster)", subtitle, path)
    return True


def plot_memory(rows, precision, path, subtitle):
    data = [r for r in rows if r["precision"] == precision and r["memory_bytes"] is not None]
    if not data:
        return False
    largest = max(r["systems"] for r in data)
    data = [r for r in data if r["systems"] == largest]
    sizes = sorted({int(r["size"]) for r in data})
    names = sorted({series_name(r) for r in data})
    fig, ax = plt.subplots(figsize=(max(9.0, 1.6 * len(sizes) + 0.3 * len(names)), 4.5))
    width = 0.8 / max(1, len(names))
    for k, name in enumerate(names):
        heights = []
        for n in sizes:
            values = [r["memory_bytes"] for r in data if series_name(r) == name and int(r["size"]) == n]
            heights.append(values[0] / 2**20 if values else 0)
        ax.bar([i + (k - (len(names) - 1) / 2) * width for i in range(len(sizes))], heights, width, label=name)
    ax.set_xticks(range(len(sizes)))
    ax.set_xticklabels(["n = %d" % n for n in sizes])
    ax.set_ylabel("memory [MiB]")
    if use_log([r["memory_bytes"] for r in data]):
        ax.set_yscale("log")
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=7)
    finish(fig, "memory allocated per measurement, %d systems, %s" % (largest, precision), subtitle, path)
    return True


BYTES = {"float": 4, "double": 8}


def split_layout(layout):
    """'interleaved[mixed6,grouped]' -> ('interleaved', 'mixed6,grouped')."""
    if layout.endswith("]") and "[" in layout:
        base, batch = layout[:-1].split("[", 1)
        return base, batch
    return layout, ""


LAYOUTS = ["flat", "interleaved", "block_interleaved8", "block_interleaved32", "unified_vector"]
LAYOUT_NAMES = {"flat": "Flat", "interleaved": "Full-Interleaved", "block_interleaved8": "Block-Interleaved 8",
                "block_interleaved32": "Block-Interleaved 32", "unified_vector": "Unified-Vector"}
HINES_KERNELS = [("hines", "per-neuron (Algorithm 1)"), ("hines_block_shared32", "Block-Shared 32"),
                 ("hines_branch_parallel", "branch-parallel (team per neuron)"), ("hines_auto", "automatic")]


def plot_hines_layouts(rows, precision, path, subtitle):
    """Rows per second (useful bytes / 5 values) per layout, one panel per neurons x kernel."""
    data = [r for r in rows if r["precision"] == precision and r["useful_GBps"] is not None]
    if not data:
        return False
    per_row = 5.0 * BYTES.get(precision, 8)
    batches = []  # CSV order: same-morphology batches first, then the mixed ones
    for r in data:
        batch = split_layout(r["layout"])[1]
        if batch not in batches:
            batches.append(batch)
    systems = sorted({int(r["systems"]) for r in data})
    kernels = [k for k in HINES_KERNELS if any(r["algorithm"] == k[0] for r in data)]
    if not kernels:
        return False

    def rate(count, algorithm, layout, batch):
        values = [r["useful_GBps"] / per_row for r in data if int(r["systems"]) == count and
                  r["algorithm"] == algorithm and split_layout(r["layout"]) == (layout, batch)]
        return values[0] if values else None

    fig, axes = plt.subplots(len(systems), len(kernels), squeeze=False,
                             figsize=(max(5.0, 0.42 * len(batches)) * len(kernels), 3.8 * len(systems)))
    for i, count in enumerate(systems):
        mine = [r["useful_GBps"] / per_row for r in data if int(r["systems"]) == count and r["useful_GBps"] > 0]
        low, high = (min(mine), max(mine)) if mine else (0.01, 1.0)
        for j, (algorithm, title) in enumerate(kernels):
            ax = axes[i][j]
            present = [layout for layout in LAYOUTS
                       if any(rate(count, algorithm, layout, batch) is not None for batch in batches)]
            width = 0.8 / max(1, len(present))
            for k, layout in enumerate(present):
                xs, hs = [], []
                for b, batch in enumerate(batches):
                    v = rate(count, algorithm, layout, batch)
                    if v is not None:
                        xs.append(b + (k - (len(present) - 1) / 2) * width)
                        hs.append(v)
                ax.bar(xs, hs, width, color="C%d" % LAYOUTS.index(layout), label=LAYOUT_NAMES[layout])
            for baseline, colour, label in (("hines-openmp", "black", "multicore (OpenMP, flat)"),
                                            ("hines-sequential", "grey", "sequential (flat)")):
                xs, hs = [], []
                for b, batch in enumerate(batches):
                    v = rate(count, baseline, "flat", batch)
                    if v is not None:
                        xs.append(b)
                        hs.append(v)
                if xs:
                    ax.scatter(xs, hs, marker="_", s=500, linewidths=2.5, color=colour, zorder=3, label=label)
            mixed = [b for b, name in enumerate(batches) if "," in name]
            if mixed and mixed[0] > 0:
                ax.axvline(mixed[0] - 0.5, color="grey", linewidth=0.8, linestyle=":")
            ax.set_xticks(range(len(batches)))
            ax.set_xticklabels(batches, rotation=35, ha="right", fontsize=7)
            # Log scale: the sequential baseline is 100-400x below the GPU bars; a factor between two
            # bars reads as the same distance everywhere (the speedup over a baseline mark).
            ax.set_yscale("log")
            ax.set_ylim(low / 1.5, high * 1.5)
            ax.set_title("%s, %s neurons" % (title, format(count, ",")), fontsize=9)
            if j == 0:
                ax.set_ylabel("G rows / s (useful)")
            ax.grid(True, axis="y", which="both", alpha=0.3)
    handles, labels = [], []
    for ax in [a for line in axes for a in line]:
        for h, l in zip(*ax.get_legend_handles_labels()):
            if l not in labels:
                handles.append(h)
                labels.append(l)
    fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=len(labels), fontsize=8)
    finish(fig, "Hines solves per layout, %s (left of the dotted line: one morphology per batch; right: mixed "
           "batches padded to the largest cell, in generation order or grouped by size); log scale" % precision,
           subtitle, path)
    return True


VBATCH_VARIANTS = [("thomas-cp", "interleaved", "CP (padded, computed)"),
                   ("thomas-ncp", "interleaved", "NCP, padded storage"),
                   ("thomas-ncp", "ragged", "NCP, ragged storage"),
                   ("thomas-size-aware", "grouped", "size-aware (sorted, lockstep)")]


def plot_vbatch(rows, precision, path, subtitle):
    """Time of each variable-batch variant, and its ratio to CP's, per size range against systems."""
    data = [r for r in rows if r["precision"] == precision and r["time_ms"] is not None]
    if not data:
        return False
    ranges = []
    for r in data:
        rng = split_layout(r["layout"])[1]
        if rng not in ranges:
            ranges.append(rng)

    def variant(r):
        storage = split_layout(r["layout"])[0]
        for k, (algorithm, prefix, label) in enumerate(VBATCH_VARIANTS):
            if r["algorithm"] == algorithm and storage.startswith(prefix):
                return k
        return None

    fig, axes = plt.subplots(2, len(ranges), squeeze=False, figsize=(5.0 * len(ranges), 7.0), sharex="col")
    for j, rng in enumerate(ranges):
        mine = [r for r in data if split_layout(r["layout"])[1] == rng]
        cp = {int(r["systems"]): r["time_ms"] for r in mine if variant(r) == 0}
        for k, (_, _, label) in enumerate(VBATCH_VARIANTS):
            points = sorted((int(r["systems"]), r["time_ms"]) for r in mine if variant(r) == k)
            if not points:
                continue
            style = dict(marker=MARKERS[k], color="C%d" % k, label=label)
            axes[0][j].plot([p[0] for p in points], [p[1] for p in points], **style)
            ratio = [(n, t / cp[n]) for n, t in points if cp.get(n)]
            if ratio:
                axes[1][j].plot([p[0] for p in ratio], [p[1] for p in ratio], **style)
        axes[0][j].set_title("sizes uniform in %s" % rng.replace("..", " .. "))
        axes[0][j].set_yscale("log")
        axes[0][j].set_ylabel("time [ms]")
        axes[1][j].axhline(1.0, color="grey", linewidth=0.8, linestyle=":")
        axes[1][j].set_ylabel("time / CP time")
        axes[1][j].set_xlabel("systems")
        for ax in (axes[0][j], axes[1][j]):
            ax.set_xscale("log")
            ax.grid(True, which="both", alpha=0.3)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=len(labels), fontsize=8)
    finish(fig, "variable batches, %s: CP vs NCP vs size-aware (one thread per system)" % precision, subtitle, path)
    return True


def plot_one(path_csv, out, prefix):
    """Every figure one CSV has data for; returns how many were written."""
    rows, comments = read_csv(path_csv)
    subtitle = "%s | commit %s | %s" % (header_value(comments, "device"), header_value(comments, "commit"),
                                        header_value(comments, "date"))
    by_sweep = defaultdict(list)
    for r in rows:
        by_sweep[r.get("sweep")].append(r)
    tridiag, vbatch, hines = by_sweep["tridiag"], by_sweep["vbatch"], by_sweep["hines"]
    if not tridiag and not vbatch and not hines:
        print("%s: no tridiag, vbatch or hines rows: nothing to plot" % path_csv, file=sys.stderr)
        return 0

    def target(name):
        return os.path.join(out, prefix + name)

    def precisions(some):
        return [p for p in ("float", "double") if any(r["precision"] == p for r in some)]

    written = 0
    for precision in precisions(hines):
        if plot_hines_layouts(hines, precision, target("hines_layouts_%s.png" % precision), subtitle):
            written += 1
    for precision in precisions(vbatch):
        if plot_vbatch(vbatch, precision, target("vbatch_%s.png" % precision), subtitle):
            written += 1
    if not tridiag:
        return written
    for precision in precisions(tridiag):
        if plot_per_size(tridiag, "speedup_vs_sequential", precision, "speedup vs sequential",
                         target("speedup_vs_sequential_%s.png" % precision), subtitle, 1.0):
            written += 1
        else:
            print("skipped speedup_vs_sequential_%s.png: the column is empty" % precision)
        if plot_per_size(tridiag, "pct_of_copy_bw", precision, "useful bandwidth [% of copy]",
                         target("bandwidth_%s.png" % precision), subtitle, 100.0):
            written += 1
        else:
            print("skipped bandwidth_%s.png: the column is empty" % precision)
        if plot_memory(tridiag, precision, target("memory_%s.png" % precision), subtitle):
            written += 1
        else:
            print("skipped memory_%s.png: the column is empty" % precision)
    if plot_cusparse(tridiag, target("speedup_vs_cusparse.png"), subtitle):
        written += 1
    else:
        print("skipped speedup_vs_cusparse.png: no cuSPARSE columns (host run)")
    return written


def main(argv):
    parser = argparse.ArgumentParser(
        description="PNG figures from tridiag-bench CSVs (the list of figures: see the top of this file)")
    parser.add_argument("csv", nargs="+", help="CSV written by tridiag-bench --csv")
    parser.add_argument("--out", help="folder for the PNG files (default: the first CSV's folder)")
    parser.add_argument("--prefix", help="start of every file name (default: none for one CSV, "
                                         "'<csv name>_' for several)")
    args = parser.parse_args(argv)
    import_matplotlib()
    out = args.out or os.path.dirname(os.path.abspath(args.csv[0]))
    os.makedirs(out, exist_ok=True)
    written = 0
    for path in args.csv:
        if args.prefix is not None:
            prefix = args.prefix
        elif len(args.csv) > 1:
            prefix = os.path.splitext(os.path.basename(path))[0] + "_"
        else:
            prefix = ""
        written += plot_one(path, out, prefix)
    return 0 if written else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

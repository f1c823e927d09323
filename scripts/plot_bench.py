#!/usr/bin/env python3
"""Figures from a tridiag-bench CSV (perf_tests/), after the cuThomasBatch paper's figures.

usage: scripts/plot_bench.py CSV [--out DIR]

Writes PNG files into DIR (default: the CSV's folder), one per figure and precision:
  speedup_vs_sequential_<prec>.png  paper Fig. 9/10: one panel per size n, x = systems,
                                    one line per algorithm/layout (the sequential baseline is 1)
  speedup_vs_cusparse.png           paper Fig. 11: one panel per precision, x = systems, thomas on
                                    each layout vs gtsv2StridedBatch (solid) and vs the fastest
                                    gtsvInterleavedBatch algorithm (dashed), one colour per n
  bandwidth_<prec>.png              achieved useful bandwidth in % of the copy reference of the run,
                                    one panel per n
  memory_<prec>.png                 paper Fig. 12: memory per algorithm/layout at the largest batch,
                                    one group of bars per n
  hines_<prec>.png                  (hines sweep) cuHinesBatch's layout figures: throughput in real
                                    rows (compartments) per second per kernel/layout, one group of
                                    bars per batch (size classes and cells, then mixed batches
                                    padded / grouped), one panel per number of neurons
A figure whose columns are empty in the CSV (no sequential baseline, no cuSPARSE on a host run)
is skipped with a note. Needs only matplotlib (Debian's python3-matplotlib) and the standard library.
"""

import argparse
import csv
import math
import os
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

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


def plot_cusparse(rows, path, subtitle):
    data = [r for r in rows if r["algorithm"].startswith("thomas") and
            (r["speedup_vs_cusparse_strided"] is not None or r["speedup_vs_cusparse_interleaved"] is not None)]
    if not data:
        return False
    precisions = [p for p in ("float", "double") if any(r["precision"] == p for r in data)]
    fig, axes = panel_grid(len(precisions))
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for ax, precision in zip(axes, precisions):
        mine = [r for r in data if r["precision"] == precision]
        series = sorted({(series_name(r), int(r["size"])) for r in mine})
        for k, (name, n) in enumerate(series):
            colour = colours[k % len(colours)]
            for column, style, what in (("speedup_vs_cusparse_strided", "-", "vs strided"),
                                        ("speedup_vs_cusparse_interleaved", "--", "vs interleaved")):
                points = sorted((r["systems"], r[column]) for r in mine
                                if series_name(r) == name and int(r["size"]) == n and r[column] is not None)
                if points:
                    ax.plot([p[0] for p in points], [p[1] for p in points], style, marker="o", color=colour,
                            label="%s n=%d %s" % (name, n, what))
        ax.set_xscale("log")
        ax.axhline(1.0, color="grey", linewidth=0.8, linestyle=":")
        ax.set_title(precision)
        ax.set_xlabel("systems")
        ax.set_ylabel("speedup vs cuSPARSE")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=6, ncol=2)
    finish(fig, "speedup vs cuSPARSE (solid: gtsv2StridedBatch, dashed: best gtsvInterleavedBatch)", subtitle, path)
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


def plot_hines(rows, precision, path, subtitle):
    """Rows per second (useful bytes / 5 values) per kernel/layout, batches side by side."""
    data = [r for r in rows if r["precision"] == precision and r["useful_GBps"] is not None]
    if not data:
        return False
    batches = []  # CSV order: same-morphology batches first, then the mixed ones
    for r in data:
        batch = split_layout(r["layout"])[1]
        if batch not in batches:
            batches.append(batch)
    names = []
    for r in data:
        name = r["algorithm"] + "/" + split_layout(r["layout"])[0]
        if name not in names:
            names.append(name)
    systems = sorted({int(r["systems"]) for r in data})
    fig, axes = plt.subplots(len(systems), 1, figsize=(max(10.0, 0.22 * len(names) * len(batches) + 3), 4.2 * len(systems)),
                             squeeze=False)
    width = 0.85 / max(1, len(names))
    per_row = 5.0 * BYTES.get(precision, 8)
    for ax, count in zip([a[0] for a in axes], systems):
        for k, name in enumerate(names):
            heights = []
            for batch in batches:
                values = [r["useful_GBps"] / per_row for r in data if int(r["systems"]) == count and
                          split_layout(r["layout"])[1] == batch and
                          r["algorithm"] + "/" + split_layout(r["layout"])[0] == name]
                heights.append(values[0] if values else 0)
            ax.bar([i + (k - (len(names) - 1) / 2) * width for i in range(len(batches))], heights, width,
                   label=name, color="C%d" % (k % 10), hatch="//" if k >= 10 else None)
        mixed = [i for i, b in enumerate(batches) if "," in b]
        if mixed and mixed[0] > 0:
            ax.axvline(mixed[0] - 0.5, color="grey", linewidth=0.8, linestyle=":")
        ax.set_xticks(range(len(batches)))
        ax.set_xticklabels(batches, rotation=20, fontsize=8)
        ax.set_ylabel("G rows / s (useful)")
        ax.set_title("%d neurons (left of the dotted line: one morphology per batch; right: mixed)" % count,
                     fontsize=9)
        ax.grid(True, axis="y", alpha=0.3)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=7)
    finish(fig, "Hines throughput per compartment, %s" % precision, subtitle, path)
    return True


def main(argv):
    parser = argparse.ArgumentParser(description="PNG figures from a tridiag-bench CSV")
    parser.add_argument("csv", help="CSV written by tridiag-bench --csv")
    parser.add_argument("--out", help="folder for the PNG files (default: the CSV's folder)")
    args = parser.parse_args(argv)
    rows, comments = read_csv(args.csv)
    out = args.out or os.path.dirname(os.path.abspath(args.csv))
    os.makedirs(out, exist_ok=True)
    subtitle = "%s | commit %s | %s" % (header_value(comments, "device"), header_value(comments, "commit"),
                                        header_value(comments, "date"))
    tridiag = [r for r in rows if r.get("sweep") == "tridiag"]
    hines = [r for r in rows if r.get("sweep") == "hines"]
    if not tridiag and not hines:
        print("%s: no tridiag or hines rows: nothing to plot" % args.csv, file=sys.stderr)
        return 1
    written = 0
    for precision in [p for p in ("float", "double") if any(r["precision"] == p for r in hines)]:
        if plot_hines(hines, precision, os.path.join(out, "hines_%s.png" % precision), subtitle):
            written += 1
    if not tridiag:
        return 0 if written else 1
    precisions = [p for p in ("float", "double") if any(r["precision"] == p for r in tridiag)]
    for precision in precisions:
        if plot_per_size(tridiag, "speedup_vs_sequential", precision, "speedup vs sequential",
                         os.path.join(out, "speedup_vs_sequential_%s.png" % precision), subtitle, 1.0):
            written += 1
        else:
            print("skipped speedup_vs_sequential_%s.png: the column is empty" % precision)
        if plot_per_size(tridiag, "pct_of_copy_bw", precision, "useful bandwidth [% of copy]",
                         os.path.join(out, "bandwidth_%s.png" % precision), subtitle, 100.0):
            written += 1
        else:
            print("skipped bandwidth_%s.png: the column is empty" % precision)
        if plot_memory(tridiag, precision, os.path.join(out, "memory_%s.png" % precision), subtitle):
            written += 1
        else:
            print("skipped memory_%s.png: the column is empty" % precision)
    if plot_cusparse(tridiag, os.path.join(out, "speedup_vs_cusparse.png"), subtitle):
        written += 1
    else:
        print("skipped speedup_vs_cusparse.png: no cuSPARSE columns (host run)")
    return 0 if written else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

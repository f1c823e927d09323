#!/usr/bin/env python3
"""Plots tridiag-neurons' traces.csv (t_ms, then one soma-voltage column per recorded neuron,
named <morphology>_n<neuron>_<amplitude>nA) into a PNG: one panel per morphology, one line per
recorded neuron. Exits 3, saying so, when matplotlib is missing (the caller still succeeds)."""

import csv
import sys


def main(argv):
    if len(argv) < 3:
        print("usage: plot_traces.py TRACES.csv OUT.png [--title-suffix TEXT]", file=sys.stderr)
        return 2
    csv_path, png_path = argv[1], argv[2]
    suffix = argv[argv.index("--title-suffix") + 1] if "--title-suffix" in argv else ""
    try:
        import matplotlib
        matplotlib.use("Agg")  # no display needed
        import matplotlib.pyplot as plt
    except ImportError as error:
        print(f"plot_traces.py: matplotlib is not available ({error}); no PNG written", file=sys.stderr)
        return 3

    with open(csv_path, newline="") as f:
        rows = list(csv.reader(f))
    header, data = rows[0], rows[1:]
    t = [float(r[0]) for r in data]
    columns = header[1:]
    # Morphology = the name up to "_n<neuron>_" (names may contain underscores).
    panels = {}
    for c, name in enumerate(columns, start=1):
        morphology, _, rest = name.rpartition("_n")
        panels.setdefault(morphology, []).append((c, "n" + rest.replace("_", ", ")))
    n = max(1, len(panels))
    cols = 3 if n > 4 else min(n, 2)
    rows_ = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows_, cols, figsize=(5 * cols, 2.6 * rows_), sharex=True, squeeze=False)
    for ax, (morphology, lines) in zip(axes.flat, panels.items()):
        for c, label in lines:
            ax.plot(t, [float(r[c]) for r in data], lw=0.8, label=label)
        ax.ticklabel_format(axis="y", useOffset=False)
        low, high = ax.get_ylim()
        if high - low < 2:  # a resting trace: show it flat, not its rounding noise
            mid = (low + high) / 2
            ax.set_ylim(mid - 1, mid + 1)
        ax.set_title(morphology, fontsize=9)
        ax.set_ylabel("soma V (mV)", fontsize=8)
        ax.tick_params(labelsize=7)
        ax.legend(fontsize=6, loc="upper right")
    for ax in axes.flat[len(panels):]:
        ax.axis("off")
    # The lowest drawn panel of each column carries the time axis (sharex hides the tick labels
    # of every row but the last, whose panels may be switched off).
    for column in range(cols):
        drawn = [r for r in range(rows_) if r * cols + column < len(panels)]
        if drawn:
            ax = axes[drawn[-1], column]
            ax.tick_params(labelbottom=True)
            ax.set_xlabel("t (ms)", fontsize=8)
    title = "tridiag-neurons: soma voltage of recorded neurons"
    fig.suptitle(title + (f" ({suffix})" if suffix else ""), fontsize=10)
    fig.tight_layout()
    fig.savefig(png_path, dpi=110)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

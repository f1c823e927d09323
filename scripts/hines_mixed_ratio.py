#!/usr/bin/env python3
"""Issue 6's strict ratio of a mixed Hines batch, from tridiag-bench hines CSVs (perf_tests/).

usage: scripts/hines_mixed_ratio.py CSV [CSV ...] [--device TEXT] [--expect COMMIT:BATCH:SYSTEMS:RATIO ...]

For every mixed batch of the CSVs (layout cells "<layout>[mixed6,grouped]", "<layout>[shared11,
padded]", ...), every commit (rows of different commits are never compared), precision and number
of neurons N: the time its neurons take as batches of
one morphology each, N_c neurons of morphology c at the rate of the fastest row (any kernel, any
layout) of the single-morphology batch of c with N neurons, summed, over the mixed batch's fastest
time. That is the figure docs/performance.md calls the strict ratio; the bench's own notes compare
each kernel and layout with itself instead. N_c follows the bench's round-robin (neuron k has
morphology k mod C): N // C, plus one for the first N % C morphologies. The morphologies of mixed6
are the six size classes in the order of algorithms/hines/size_classes.hpp; those of sharedC the
shared cells' names (file stems; X.CNG for X.CNG.swc beside X.swc), sorted, as the bench lists them (every single-cell batch of the same N
in the CSVs whose name is not a size class, C of them). A ratio whose single-morphology batches
are missing is reported as such. Only rows of devices whose name contains --device (default:
NVIDIA) count.

--expect COMMIT:BATCH:SYSTEMS:RATIO (e.g. 5028263:mixed6,grouped:25600:0.678): exits 1 unless that
ratio, rounded to three decimals, is printed (any precision): the check of a published figure.
"""
import csv
import sys

SIZE_CLASSES = ["small-low", "small-high", "medium-low", "medium-high", "big-low", "big-high"]


def read_rows(paths):
    rows = []
    for path in paths:
        with open(path, newline="") as f:
            rows.extend(csv.DictReader(line for line in f if not line.startswith("#")))
    return rows


def batch_of(layout_cell):
    """'interleaved[mixed6,grouped]' -> 'mixed6,grouped'; '' where there is no batch."""
    if "[" not in layout_cell or not layout_cell.endswith("]"):
        return ""
    return layout_cell[layout_cell.index("[") + 1 : -1]


def fastest(rows):
    """{(commit, batch, precision, systems): (time_ms, algorithm, layout)} of the fastest row of each."""
    best = {}
    for r in rows:
        batch = batch_of(r["layout"])
        if r.get("sweep") != "hines" or not batch:
            continue
        key = (r.get("commit", ""), batch, r["precision"], int(r["systems"]))
        t = float(r["time_ms"])
        if key not in best or t < best[key][0]:
            best[key] = (t, r["algorithm"], r["layout"].split("[")[0])
    return best


def members(commit, mixed, precision, systems, best):
    """The morphologies of a mixed batch, in the bench's order, or None if it cannot tell."""
    kind = mixed.split(",")[0]
    if kind == "mixed6":
        return SIZE_CLASSES
    if kind.startswith("shared"):
        count = int(kind[len("shared") :])
        stems = sorted(
            b
            for (k, b, p, n) in best
            if k == commit and p == precision and n == systems and "," not in b and b not in SIZE_CLASSES
        )
        return stems if len(stems) == count else None
    return None


def ratios(best):
    out = []
    for (commit, batch, precision, systems), (t_mixed, algorithm, layout) in sorted(best.items()):
        if "," not in batch:
            continue
        names = members(commit, batch, precision, systems, best)
        run = (commit, batch, precision, systems)
        if names is None:
            out.append(run + (None, t_mixed, algorithm, layout, "single-cell batches missing"))
            continue
        alone, missing = 0.0, []
        for c, name in enumerate(names):
            neurons = systems // len(names) + (1 if c < systems % len(names) else 0)
            single = best.get((commit, name, precision, systems))
            if single is None:
                missing.append(name)
                continue
            alone += single[0] * neurons / systems
        note = "missing: " + ", ".join(missing) if missing else ""
        out.append(run + (None if missing else alone, t_mixed, algorithm, layout, note))
    return out


def main(argv):
    paths, expects, device = [], [], "NVIDIA"
    i = 0
    while i < len(argv):
        if argv[i] in ("-h", "--help"):
            print(__doc__)
            return 0
        if argv[i] in ("--device", "--expect"):
            if i + 1 >= len(argv):
                print(f"{argv[i]} needs a value", file=sys.stderr)
                return 2
            if argv[i] == "--device":
                device = argv[i + 1]
            else:
                expects.append(argv[i + 1])
            i += 2
            continue
        paths.append(argv[i])
        i += 1
    if not paths:
        print(__doc__, file=sys.stderr)
        return 2
    rows = [r for r in read_rows(paths) if device in r.get("device", "")]
    printed = set()
    for commit, batch, precision, systems, alone, t_mixed, algorithm, layout, note in ratios(fastest(rows)):
        what = f"{commit} {batch} {precision} {systems}"
        if alone is None:
            print(f"{what}: mixed {t_mixed:.4f} ms ({algorithm}, {layout}); no ratio: {note}")
            continue
        ratio = alone / t_mixed
        printed.add((commit, batch, systems, f"{ratio:.3f}"))
        print(
            f"{what}: morphologies alone {alone:.4f} ms, mixed {t_mixed:.4f} ms "
            f"({algorithm}, {layout}), strict ratio {ratio:.3f}"
        )
    failed = False
    for expect in expects:
        parts = expect.split(":")
        if len(parts) != 4 or not parts[2].isdigit() or (parts[0], parts[1], int(parts[2]), parts[3]) not in printed:
            print(f"expected {expect}: not found", file=sys.stderr)
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

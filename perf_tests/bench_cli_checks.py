#!/usr/bin/env python3
"""Checks of tridiag-bench's command line and CSV that need a run and a look at its output (ctest
entries tridiag.perf.cli.<case>, perf_tests/CMakeLists.txt). Standard library only.

usage: bench_cli_checks.py BENCH WORKDIR CASE [CMAKE SCRIPT]

BENCH: the tridiag-bench binary (tridiag-bench-faults for the injected_* cases); WORKDIR: a scratch folder (emptied first); CASE: one of CASES;
CMAKE SCRIPT: cmake and perf_tests/bench_commit.cmake (case commit_string).
Exit 0 when the case holds, 1 with the reason on stderr otherwise, 77 when it cannot run here.
"""
import csv
import os
import re
import shutil
import subprocess
import sys
import tempfile

BENCH = ""
WORK = ""
SMALL = ["--reps", "1", "--copy-mib", "1"]


class CheckFailed(Exception):
    pass


def expect(condition, why):
    if not condition:
        raise CheckFailed(why)


def run(args, expect_status, fault=None):
    """Runs the bench with args (and TRIDIAG_BENCH_FAULT=fault: BENCH is then tridiag-bench-faults);
    returns (stdout, stderr); checks the exit status."""
    env = dict(os.environ, OMP_PROC_BIND="false", OMP_NUM_THREADS=os.environ.get("OMP_NUM_THREADS", "2"))
    env.pop("TRIDIAG_BENCH_FAULT", None)
    if fault is not None:
        env["TRIDIAG_BENCH_FAULT"] = fault
    done = subprocess.run([BENCH] + args, capture_output=True, text=True, env=env, timeout=280)
    if done.returncode == 77:
        sys.exit(77)
    expect(done.returncode == expect_status,
           "tridiag-bench %s: exit status %d, expected %d\nstdout:\n%s\nstderr:\n%s" %
           (" ".join(args), done.returncode, expect_status, done.stdout[-4000:], done.stderr[-4000:]))
    return done.stdout, done.stderr


def read_csv(path):
    """(comment lines, rows as dicts) of a tridiag-bench CSV."""
    with open(path, newline="") as f:
        lines = f.read().splitlines()
    comments = [line[2:] for line in lines if line.startswith("#")]
    rows = list(csv.DictReader(line for line in lines if not line.startswith("#")))
    return comments, rows


def hines_rows(rows):
    return [r for r in rows if r["sweep"] == "hines"]


def write_swc(path, dendrite_um, radius=1.0):
    """A soma point of radius 5 um and one straight dendrite of dendrite_um in 10 um steps, of
    `radius` um (a cable of dendrite_um / 20 compartments at the default discretisation)."""
    lines = ["1 1 0 0 0 5 -1"]
    steps = max(1, int(dendrite_um // 10))
    for k in range(steps):
        lines.append("%d 3 %g 0 0 %g %d" % (k + 2, 10.0 * (k + 1), radius, k + 1))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def morphology_dir(name, cells):
    """A folder WORK/name with the cells {file: (dendrite_um, radius)}."""
    folder = os.path.join(WORK, name)
    os.makedirs(folder)
    for file, (length, radius) in cells.items():
        write_swc(os.path.join(folder, file), length, radius)
    return folder


# ---- cases ----------------------------------------------------------------------------------------


def wrong_solve_not_in_csv():
    """A solve that fails (a radius of 1e22 overflows float: every neuron returns a nonzero status)
    is reported, exits 1 and writes no row; the sound batch of the same run keeps its rows, and no
    speedup is taken from a failed baseline."""
    folder = morphology_dir("overflow", {"good.swc": (200, 1.0), "huge.swc": (200, 1e22)})
    path = os.path.join(WORK, "w.csv")
    _, err = run(["hines", "--morphologies", folder, "--batches", "good,huge,mixed-shared", "--systems", "8",
                  "--precision", "float", "--csv", path] + SMALL, 1)
    expect("returned a nonzero status" in err, "no nonzero status reported:\n" + err[-3000:])
    expect("not written to the CSV" in err, "the console does not say the failed rows were left out")
    comments, rows = read_csv(path)
    rows = hines_rows(rows)
    batches = {r["layout"].split("[", 1)[1].rstrip("]") for r in rows}
    expect("good" in batches, "the sound batch has no rows: %s" % sorted(batches))
    expect(batches == {"good"}, "rows of failed solves were written: batches %s" % sorted(batches))
    for r in rows:
        expect(r["time_ms"] not in ("", "nan") and r["max_rel_error"] not in ("", "nan"),
               "row with a failed check: %s" % r)
    expect(any("left out" in c for c in comments), "the CSV notes do not say that failed rows are left out")


def bad_batches_keep_csv():
    """A bad --batches (unknown name, missing file or folder) exits 2 before the CSV is opened:
    an existing file keeps its content."""
    keep = os.path.join(WORK, "keep.csv")
    content = "# an earlier run\nsweep,algorithm\nhines,hines\n"
    with open(keep, "w") as f:
        f.write(content)
    empty = os.path.join(WORK, "empty")
    os.makedirs(empty)
    for args in (["--batches", "smal-low"],
                 ["--batches", "small-low,NoSuchCell"],
                 ["--batches", "mixed-shared", "--morphologies", empty],
                 ["--batches", "BG001", "--morphologies", os.path.join(WORK, "missing")]):
        _, err = run(["hines", "--csv", keep] + args + SMALL, 2)
        expect("--batches" in err, "%s: the message does not name --batches:\n%s" % (args, err))
        with open(keep) as f:
            expect(f.read() == content, "%s: the existing CSV was changed" % args)
    run(["all", "--batches", "smal-low", "--csv", keep] + SMALL, 2)
    with open(keep) as f:
        expect(f.read() == content, "all --batches smal-low: the existing CSV was changed")


def no_host_baselines():
    """--no-host-baselines leaves the speedup columns empty on a host space too (the flat row is
    no baseline then), and prints no speedup."""
    for space in ("default", "serial"):
        path = os.path.join(WORK, "nhb_%s.csv" % space)
        out, _ = run(["hines", "--batches", "small-low", "--systems", "16", "--precision", "double",
                      "--exec", space, "--no-host-baselines", "--csv", path] + SMALL, 0)
        rows = hines_rows(read_csv(path)[1])
        expect(rows, "no hines rows")
        for r in rows:
            expect(r["speedup_vs_sequential"] == "" and r["speedup_vs_openmp"] == "",
                   "--exec %s: speedup in %s %s" % (space, r["algorithm"], r["layout"]))
            expect(not r["algorithm"].startswith("hines-"), "a host baseline ran: %s" % r["algorithm"])
        expect(" vs sequential" not in out and " vs OpenMP" not in out, "--exec %s: a speedup printed" % space)


def options_for_other_sweeps():
    """An option the named sweep does not use exits 2, naming the option and the sweep."""
    cases = [
        (["hines", "--n", "7"], "--n"),
        (["hines", "--ranges", "1-2"], "--ranges"),
        (["hines", "--partitioned-rows", "3"], "--partitioned-rows"),
        (["tridiag", "--batches", "mixed6"], "--batches"),
        (["tridiag", "--morphologies", "/nonexistent"], "--morphologies"),
        (["tridiag", "--no-host-baselines"], "--no-host-baselines"),
        (["vbatch", "--n", "7"], "--n"),
        (["constant", "--ranges", "1-2"], "--ranges"),
        (["copy", "--systems", "8"], "--systems"),
    ]
    for args, option in cases:
        path = os.path.join(WORK, "other.csv")
        _, err = run(args + ["--csv", path, "--reps", "1"], 2)
        expect(option in err and args[0] in err, "%s: the message names neither %s nor the sweep:\n%s" %
               (args, option, err))
        expect(not os.path.exists(path), "%s: the CSV was created" % args)


def ncp_baselines():
    """On a mixed batch the rows that skip pad rows are compared with baselines that skip them too
    (hines-sequential_ncp, hines-openmp_ncp), the others with the padded baselines."""
    path = os.path.join(WORK, "ncp.csv")
    run(["hines", "--batches", "mixed6", "--systems", "24", "--precision", "double", "--exec", "openmp",
         "--csv", path] + SMALL, 0)
    rows = [r for r in hines_rows(read_csv(path)[1]) if r["layout"].endswith("[mixed6,grouped]")]
    by_name = {(r["algorithm"], r["layout"].split("[")[0]): r for r in rows}
    for baseline in ("hines-sequential", "hines-sequential_ncp", "hines_ncp"):
        expect((baseline, "flat") in by_name, "no %s row on flat: %s" % (baseline, sorted(by_name)))
    padded_seq = float(by_name[("hines-sequential", "flat")]["time_ms"])
    ncp_seq = float(by_name[("hines-sequential_ncp", "flat")]["time_ms"])
    # OpenMP: the flat rows of the space itself are its baselines.
    padded_omp = float(by_name[("hines", "flat")]["time_ms"])
    ncp_omp = float(by_name[("hines_ncp", "flat")]["time_ms"])
    for r in rows:
        skips = r["algorithm"].endswith("_ncp")
        t = float(r["time_ms"])
        for column, reference in (("speedup_vs_sequential", ncp_seq if skips else padded_seq),
                                  ("speedup_vs_openmp", ncp_omp if skips else padded_omp)):
            expect(r[column] != "", "%s %s: %s empty" % (r["algorithm"], r["layout"], column))
            got, want = float(r[column]), reference / t
            expect(abs(got - want) <= 2e-3 * want + 1e-9,
                   "%s %s: %s = %g, expected %g" % (r["algorithm"], r["layout"], column, got, want))


def duplicate_stems():
    """X.swc and X.CNG.swc are two cells: mixed-shared holds both, the second named X.CNG, and
    --batches X.CNG names it."""
    folder = morphology_dir("dup", {"A.swc": (100, 1.0), "A.CNG.swc": (400, 1.0), "B.swc": (200, 1.0)})
    path = os.path.join(WORK, "dup.csv")
    run(["hines", "--morphologies", folder, "--batches", "A,A.CNG,B,mixed-shared", "--systems", "6",
         "--precision", "double", "--no-host-baselines", "--csv", path] + SMALL, 0)
    rows = hines_rows(read_csv(path)[1])
    size = {}
    for r in rows:
        size.setdefault(r["layout"].split("[", 1)[1].rstrip("]"), set()).add(int(r["size"]))
    expect(set(size) == {"A", "A.CNG", "B", "shared3,padded", "shared3,grouped"},
           "batches: %s" % sorted(size))
    expect(size["A.CNG"] != size["A"], "A and A.CNG have the same size %s: one file read twice" % size["A"])
    expect(size["shared3,padded"] == size["A.CNG"], "shared3 is padded to %s, not to A.CNG's %s" %
           (size["shared3,padded"], size["A.CNG"]))


def partitioned_rows_said():
    """--partitioned-rows R is never dropped silently: its rows are in the CSV or stderr says they
    were skipped (on a host space the partitioned solver is not timed; the option was accepted and
    nothing said where its rows went)."""
    for sweep, args, row in (("tridiag", ["--systems", "64", "--n", "16"], "partitioned(rows=4)"),
                             ("vbatch", ["--systems", "100", "--ranges", "1-40"], "partitioned-ncp(rows=4)")):
        path = os.path.join(WORK, "%s.csv" % sweep)
        _, err = run([sweep, "--partitioned-rows", "4", "--precision", "double", "--exec", "openmp",
                      "--csv", path] + args + SMALL, 0)
        names = {r["algorithm"] for r in sweep_rows(path, sweep)}
        expect(row in names or any(row in line and "skipped" in line for line in err.splitlines()),
               "%s --partitioned-rows 4: no %s row and stderr does not say it was skipped:\n%s\nrows: %s"
               % (sweep, row, err[-3000:], sorted(names)))


def serial_flat_is_thomas_solve():
    """--exec serial: the flat thomas row is thomas::solve, like every other layout's, and the
    textbook baseline has its own thomas-sequential row (the flat row used to time the baseline
    under the name thomas: 1.73 ms against auto(thomas)/flat's 0.68 ms at 2560 x 64)."""
    path = os.path.join(WORK, "serial.csv")
    run(["tridiag", "--exec", "serial", "--systems", "64", "--n", "16", "--precision", "double", "--csv", path]
        + SMALL, 0)
    rows = sweep_rows(path, "tridiag")
    flat = {r["algorithm"]: r for r in rows if r["layout"] == "flat"}
    expect("thomas" in flat and "thomas-sequential" in flat, "flat rows on Serial: %s" % sorted(flat))
    expect(flat["thomas-sequential"]["speedup_vs_sequential"] == "1",
           "thomas-sequential: speedup %s" % flat["thomas-sequential"]["speedup_vs_sequential"])


def row_bytes(r):
    """The useful bytes behind a row: useful_GBps x time_ms (GB/s x ms = 1e6 bytes)."""
    return float(r["useful_GBps"]) * float(r["time_ms"]) * 1e6


def constant_useful_bytes():
    """The constant sweep counts d read and x written per unknown plus a, b, c once per triple: per
    system on thomas, thomas-constant(-factored), once for the batch on the *-shared rows (which
    were credited with 3 scalars per system, bytes their problem does not have)."""
    path = os.path.join(WORK, "constant.csv")
    systems, n = 256, 4
    run(["constant", "--systems", str(systems), "--n", str(n), "--precision", "float,double", "--csv", path]
        + SMALL, 0)
    rows = [r for r in read_csv(path)[1] if r["sweep"] == "constant"]
    expect(len(rows) == 20, "%d constant rows, expected 5 algorithms x 2 layouts x 2 precisions" % len(rows))
    for r in rows:
        scalar = 4 if r["precision"] == "float" else 8
        triples = 1 if "-shared" in r["algorithm"] else systems
        want = (2 * systems * n + 3 * triples) * scalar
        got = row_bytes(r)
        expect(abs(got - want) <= 1e-4 * want, "%s/%s %s: useful bytes %.0f, expected %d (2 x %d x %d + 3 x %d "
               "triples, x %d bytes)" % (r["algorithm"], r["layout"], r["precision"], got, want, systems, n,
                                          triples, scalar))
    # memory_bytes: the thomas row holds a full matrix (a, b, c: 3 x systems x n scalars) where
    # thomas-constant holds one triple per system; both hold d, x, a workspace and the status.
    # (The thomas row left its status out.)
    memory = {(r["algorithm"], r["layout"], r["precision"]): int(r["memory_bytes"]) for r in rows}
    for (algorithm, layout, precision), thomas in memory.items():
        if algorithm != "thomas":
            continue
        scalar = 4 if precision == "float" else 8
        want = 3 * (systems * n - systems) * scalar
        got = thomas - memory[("thomas-constant", layout, precision)]
        expect(got == want, "%s %s: thomas holds %d bytes more than thomas-constant, expected %d"
               % (layout, precision, got, want))


def hines_useful_bytes():
    """Hines rows count 5 values per real matrix row of each neuron: its compartments plus one
    zero-area end node per section plus the root (NEURON's matrix, what the solver reads and
    writes), pad rows of a mixed batch not; and the CSV says matrix rows, not compartments (it
    said 'G real rows (compartments) per second': 9 rows and 6 compartments for a 100 um cell)."""
    # write_swc: a point soma (1 segment) and a dendrite of L / 20 um segments, odd count:
    # 100 um -> 5 + 1 = 6 compartments, 2 sections, 9 rows; 200 um -> 11 + 1 = 12, 15 rows.
    folder = morphology_dir("rows", {"c100.swc": (100, 1.0), "c200.swc": (200, 1.0)})
    path = os.path.join(WORK, "rows.csv")
    run(["hines", "--morphologies", folder, "--batches", "c100,c200,mixed-shared", "--systems", "4",
         "--precision", "float", "--no-host-baselines", "--csv", path] + SMALL, 0)
    comments, rows = read_csv(path)
    rows = hines_rows(rows)
    real_rows = {"c100": 4 * 9, "c200": 4 * 15, "shared2,padded": 2 * 9 + 2 * 15, "shared2,grouped": 2 * 9 + 2 * 15}
    seen = set()
    for r in rows:
        batch = r["layout"].split("[", 1)[1].rstrip("]")
        seen.add(batch)
        want = 5 * real_rows[batch] * 4
        got = row_bytes(r)
        expect(abs(got - want) <= 1e-4 * want, "%s/%s: useful bytes %.0f, expected %d (5 x %d real matrix rows x 4)"
               % (r["algorithm"], r["layout"], got, want, real_rows[batch]))
    expect(seen == set(real_rows), "batches: %s" % sorted(seen))
    hines_notes = [c for c in comments if c.startswith("traffic model hines") or c.startswith("hines: size")]
    expect(len(hines_notes) == 2 and all("matrix row" in c and not re.search(r"rows? \(compartments?\)", c)
                                         for c in hines_notes),
           "the hines notes do not say that useful bytes count matrix rows:\n" + "\n".join(hines_notes))


# The injected_* cases run tridiag-bench-faults (bench_faults.hpp): each makes one check fail on
# purpose and asserts that the failed measurement is reported, leaves no row and is no baseline.


def expect_left_out(err, what):
    expect("WRONG RESULT" in err, "%s: no wrong result reported:\n%s" % (what, err[-3000:]))
    expect("not written to the CSV" in err, "%s: the console does not say the row was left out:\n%s" %
           (what, err[-3000:]))


def sweep_rows(path, sweep):
    return [r for r in read_csv(path)[1] if r["sweep"] == sweep]


def injected_wrong_tridiag():
    """tridiag sweep: a wrong sampled solution of the sequential baseline, then of thomas (every
    layout; the flat one is OpenMP's baseline) leaves those rows out, and their speedup columns
    empty in every other row; the other rows stay. Without the fault: every row, exit 0."""
    args = ["tridiag", "--systems", "64", "--n", "16", "--precision", "double", "--exec", "openmp"] + SMALL
    clean = os.path.join(WORK, "clean.csv")
    run(args + ["--csv", clean], 0, fault="")
    names = {r["algorithm"] for r in sweep_rows(clean, "tridiag")}
    expect({"thomas", "thomas-sequential", "cr"} <= names, "unfaulted run: rows %s" % sorted(names))
    for algorithm, column in (("thomas-sequential", "speedup_vs_sequential"), ("thomas", "speedup_vs_openmp")):
        path = os.path.join(WORK, "%s.csv" % algorithm)
        _, err = run(args + ["--csv", path], 1, fault="wrong-solution:" + algorithm)
        expect_left_out(err, algorithm)
        rows = sweep_rows(path, "tridiag")
        left = {r["algorithm"] for r in rows}
        expect(algorithm not in left, "%s: its rows were written" % algorithm)
        expect(left == names - {algorithm}, "%s: rows %s, expected %s" % (algorithm, sorted(left),
                                                                           sorted(names - {algorithm})))
        for r in rows:
            expect(r[column] == "", "%s failed, yet %s %s has %s = %s" % (algorithm, r["algorithm"], r["layout"],
                                                                         column, r[column]))
    comments, _ = read_csv(clean)
    expect(any("left out" in c for c in comments), "the CSV notes do not say that failed rows are left out")


def injected_unwritten_tridiag():
    """tridiag sweep: a solver that writes status 0 but no solution is caught (exit 1, no row),
    also when an earlier measurement of the same data left its right solution in x (cr, pcr,
    cr_pcr, auto and the host baselines reuse the x that thomas wrote, which passed for theirs
    until x was reset to NaN before every measurement)."""
    args = ["tridiag", "--systems", "64", "--n", "16", "--precision", "double", "--exec", "openmp"] + SMALL
    clean = os.path.join(WORK, "clean.csv")
    run(args + ["--csv", clean], 0, fault="")
    names = {r["algorithm"] for r in sweep_rows(clean, "tridiag")}
    for algorithm in ("cr", "thomas-sequential"):
        expect(algorithm in names, "unfaulted run: rows %s" % sorted(names))
        path = os.path.join(WORK, "%s.csv" % algorithm)
        _, err = run(args + ["--csv", path], 1, fault="unwritten-solution:" + algorithm)
        expect_left_out(err, "unwritten-solution:" + algorithm)
        left = {r["algorithm"] for r in sweep_rows(path, "tridiag")}
        expect(left == names - {algorithm}, "%s: rows %s, expected %s" % (algorithm, sorted(left),
                                                                           sorted(names - {algorithm})))


def injected_wrong_vbatch_constant():
    """vbatch and constant sweeps: a wrong sampled solution of one algorithm leaves its rows out
    (exit 1) and keeps the others."""
    cases = [(["vbatch", "--systems", "100", "--ranges", "1-40"], "vbatch", "thomas-cp"),
             (["vbatch", "--systems", "100", "--ranges", "1-40"], "vbatch", "thomas-size-aware"),
             (["constant", "--systems", "64", "--n", "16"], "constant", "thomas-constant-factored")]
    for args, sweep, algorithm in cases:
        args = args + ["--precision", "double"] + SMALL
        clean, path = os.path.join(WORK, "clean_%s.csv" % sweep), os.path.join(WORK, "%s.csv" % algorithm)
        run(args + ["--csv", clean], 0, fault="")
        names = {r["algorithm"] for r in sweep_rows(clean, sweep)}
        expect(algorithm in names and len(names) > 1, "%s unfaulted: rows %s" % (sweep, sorted(names)))
        _, err = run(args + ["--csv", path], 1, fault="wrong-solution:" + algorithm)
        expect_left_out(err, algorithm)
        left = {r["algorithm"] for r in sweep_rows(path, sweep)}
        expect(left == names - {algorithm}, "%s %s: rows %s" % (sweep, algorithm, sorted(left)))


def injected_hines():
    """hines sweep: device inputs that differ from the generated ones, and a wrong sampled solution
    of the sequential baseline, each leave the measurement out (exit 1); no speedup is taken from
    the failed baseline."""
    args = ["hines", "--batches", "small-low", "--systems", "16", "--precision", "double", "--exec", "openmp"] + SMALL
    clean = os.path.join(WORK, "clean.csv")
    run(args + ["--csv", clean], 0, fault="")
    names = {r["algorithm"] for r in hines_rows(read_csv(clean)[1])}
    expect({"hines", "hines-sequential"} <= names, "unfaulted run: rows %s" % sorted(names))
    path = os.path.join(WORK, "inputs.csv")
    _, err = run(args + ["--csv", path], 1, fault="changed-inputs:hines")
    expect_left_out(err, "changed-inputs")
    expect("input" in err, "the message does not say that an input changed:\n%s" % err[-3000:])
    left = {r["algorithm"] for r in hines_rows(read_csv(path)[1])}
    expect(left == names - {"hines"}, "changed inputs: rows %s" % sorted(left))
    path = os.path.join(WORK, "sequential.csv")
    _, err = run(args + ["--csv", path], 1, fault="wrong-solution:hines-sequential")
    expect_left_out(err, "wrong-solution")
    rows = hines_rows(read_csv(path)[1])
    expect({r["algorithm"] for r in rows} == names - {"hines-sequential"}, "wrong baseline: rows %s" %
           sorted({r["algorithm"] for r in rows}))
    for r in rows:
        expect(r["speedup_vs_sequential"] == "", "%s %s: a speedup against the failed baseline" %
               (r["algorithm"], r["layout"]))


def injected_copy():
    """copy sweep: copies that differ from their source are no rows (exit 1), and the rows of the
    next sweep have no pct_of_copy_bw; an unknown fault exits 2."""
    path = os.path.join(WORK, "copy.csv")
    _, err = run(["copy", "--csv", path] + SMALL, 1, fault="unverified-copy")
    expect_left_out(err, "unverified-copy")
    expect(not sweep_rows(path, "copy"), "unverified copies were written")
    path = os.path.join(WORK, "tridiag.csv")
    run(["tridiag", "--systems", "64", "--n", "16", "--precision", "double", "--csv", path] + SMALL, 1,
        fault="unverified-copy")
    rows = sweep_rows(path, "tridiag")
    expect(rows, "no tridiag rows")
    for r in rows:
        expect(r["pct_of_copy_bw"] == "", "%s %s: pct_of_copy_bw against an unverified copy" %
               (r["algorithm"], r["layout"]))
    _, err = run(["copy", "--csv", os.path.join(WORK, "unknown.csv")] + SMALL, 2, fault="wrong-solutions:thomas")
    expect("TRIDIAG_BENCH_FAULT" in err, "an unknown fault is not named:\n%s" % err)


def commit_string():
    """bench_commit.cmake: the short hash, '-dirty' for changed tracked files only, 'unknown'
    outside git; a file is rewritten only when its text changes. Args: CMAKE SCRIPT."""
    cmake, script = sys.argv[4], sys.argv[5]  # after BENCH WORKDIR CASE
    git = shutil.which("git")
    if git is None:
        print("no git here", file=sys.stderr)
        sys.exit(77)
    # The scratch repository outside the build folder, which may lie inside a checkout.
    scratch = tempfile.TemporaryDirectory(prefix="bench_commit_")
    repo, out = os.path.join(scratch.name, "repo"), os.path.join(WORK, "out")
    os.makedirs(repo)

    def git_run(*args):
        subprocess.run([git, "-C", repo, "-c", "user.name=t", "-c", "user.email=t@t", *args], check=True,
                       capture_output=True)

    def recorded(source=repo):
        subprocess.run([cmake, "-DSOURCE_DIR=" + source, "-DOUTPUT_DIR=" + out, "-P", script], check=True)
        with open(os.path.join(out, "bench_commit.txt")) as f:
            text = f.read().strip()
        with open(os.path.join(out, "bench_commit.hpp")) as f:
            expect('#define TRIDIAG_BENCH_COMMIT "%s"' % text in f.read(), "header and text file disagree")
        return text

    expect(recorded() == "unknown", "outside a git checkout: not 'unknown'")
    git_run("init", "-q")
    with open(os.path.join(repo, "f.txt"), "w") as f:
        f.write("one\n")
    git_run("add", "f.txt")
    git_run("commit", "-q", "-m", "one")
    head = subprocess.run([git, "-C", repo, "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                          check=True).stdout.strip()
    expect(recorded() == head, "clean checkout: not %s" % head)
    header = os.path.join(out, "bench_commit.hpp")
    before = os.stat(header).st_mtime_ns
    os.utime(header, ns=(before - 10**9, before - 10**9))  # an older time stamp that a rewrite would change
    stamp = os.stat(header).st_mtime_ns
    expect(recorded() == head and os.stat(header).st_mtime_ns == stamp, "unchanged commit: header rewritten")
    with open(os.path.join(repo, "untracked.txt"), "w") as f:
        f.write("x\n")
    expect(recorded() == head, "an untracked file made it dirty")
    with open(os.path.join(repo, "f.txt"), "w") as f:
        f.write("two\n")
    expect(recorded() == head + "-dirty", "changed tracked file: not %s-dirty" % head)
    git_run("commit", "-q", "-am", "two")
    head2 = subprocess.run([git, "-C", repo, "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                           check=True).stdout.strip()
    expect(head2 != head and recorded() == head2, "new commit: not %s" % head2)
    shutil.rmtree(os.path.join(repo, ".git"))
    expect(recorded() == "unknown", "without .git: not 'unknown'")


CASES = {f.__name__: f for f in (wrong_solve_not_in_csv, bad_batches_keep_csv, no_host_baselines, options_for_other_sweeps,
                                 ncp_baselines, duplicate_stems, constant_useful_bytes, hines_useful_bytes,
                                 partitioned_rows_said, serial_flat_is_thomas_solve,
                                 commit_string, injected_wrong_tridiag, injected_unwritten_tridiag,
                                 injected_wrong_vbatch_constant, injected_hines, injected_copy)}


def main():
    global BENCH, WORK
    if len(sys.argv) < 4 or sys.argv[3] not in CASES:
        print(__doc__ + "\nCASES: " + ", ".join(CASES), file=sys.stderr)
        return 2
    BENCH, WORK = sys.argv[1], sys.argv[2]
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    try:
        CASES[sys.argv[3]]()
    except CheckFailed as e:
        print("FAILED: %s: %s" % (sys.argv[3], e), file=sys.stderr)
        return 1
    print("passed: %s" % sys.argv[3])
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Test of the command-line tool tridiag-swc (algorithms/hines/tools/tridiag_swc.cpp).

usage: test_tridiag_swc.py TRIDIAG_SWC MORPHOLOGY_DIR

- Every shared morphology: one JSON object per file, in the order given, whose statistics are
  those of MORPHOLOGY_DIR/README.md's table and whose compartments and matrix size are NEURON
  8.2.2's (sections and segments at 20 um, the table of unit_tests/hines/test_discretization.cpp;
  matrix size = segments + sections + 1).
- A malformed file among good ones: exit status 1, the reader's message naming the file and the
  line on stderr, the good files still printed.
- A file that reads but cannot be discretised: its statistics with null sizes, the message
  prefixed with the file name, exit status 1.
- No argument: the usage on stderr, exit status 2; --help: the usage on stdout, exit status 0; an
  unknown option: exit status 2; a file whose name starts with '-' after "--"; a directory: its
  message, exit status 1; a file name that is not UTF-8: valid JSON; an output that cannot be
  written: exit status 1.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

# NEURON 8.2.2: file -> (sections, segments with max_length 20 um).
NEURON = {
    "mp_ma_40984_gc2.CNG.swc": (29, 119), "HSN-fluoro02.CNG.swc": (364, 600), "tc200.CNG.swc": (204, 548),
    "HSN-fluoro01.CNG.swc": (446, 654), "control-1-wt.CNG.swc": (147, 365), "BG001.CNG.swc": (198, 472),
    "10-2012-02-09-001.CNG.swc": (784, 894), "AA0013.swc": (322, 3712), "nrn_ordering.swc": (123, 351),
    "C220498B-I4.CNG.swc": (500, 1690), "C080400A3.CNG.swc": (845, 1529),
}

failures = []


def check(condition, what):
    if not condition:
        failures.append(what)


def readme_table(folder):
    """file -> (points, branch points, tips, max depth, soma word) from the README's table."""
    table = {}
    with open(os.path.join(folder, "README.md"), encoding="utf-8") as f:
        for line in f:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) > 5 and cells[0].endswith(".swc"):
                table[cells[0]] = (int(cells[1]), int(cells[2]), int(cells[3]), int(cells[4]), cells[5].split(" ")[0])
    return table


def run(tool, *files):
    return subprocess.run([tool, *files], capture_output=True, text=True, timeout=300)


def main():
    tool, folder = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    table = readme_table(folder)
    check(set(table) == set(NEURON), f"README table lists {sorted(table)}")
    files = [os.path.join(folder, name) for name in sorted(NEURON)]
    done = run(tool, *files)
    check(done.returncode == 0, f"exit status {done.returncode} on the shared cells: {done.stderr}")
    lines = done.stdout.splitlines()
    check(len(lines) == len(files), f"{len(lines)} lines for {len(files)} files")
    for path, line in zip(files, lines):
        name = os.path.basename(path)
        got = json.loads(line)
        points, branch_points, tips, depth, soma = table[name]
        sections, segments = NEURON[name]
        expected = {"file": path, "points": points, "branch_points": branch_points, "tips": tips,
                    "max_depth": depth, "soma": soma, "compartments": segments,
                    "matrix_size": segments + sections + 1}
        check(got == expected, f"{name}: {got} != {expected}")

    with tempfile.TemporaryDirectory() as tmp:
        bad = os.path.join(tmp, "missing_parent.swc")
        with open(bad, "w") as f:
            f.write("# a dendrite whose parent does not exist\n1 1 0 0 0 5 -1\n2 3 10 0 0 1 1\n3 3 20 0 0 1 9\n")
        good = files[0]
        done = run(tool, good, bad, good)
        check(done.returncode == 1, f"malformed file: exit status {done.returncode}")
        check(re.search(r"missing_parent\.swc:4: sample 3: .*9", done.stderr) is not None,
              f"malformed file: stderr {done.stderr!r}")
        check(len(done.stdout.splitlines()) == 2, f"malformed file: stdout {done.stdout!r}")

        flat = os.path.join(tmp, "zero_length.swc")
        with open(flat, "w") as f:  # a three-point soma's far end and a dendrite of zero length from it
            f.write("1 1 0 0 0 5 -1\n2 1 0 -5 0 5 1\n3 1 0 5 0 5 1\n4 3 0 5 0 1 3\n5 3 0 5 0 1 4\n")
        done = run(tool, flat)
        check(done.returncode == 1, f"zero-length section: exit status {done.returncode}, stderr {done.stderr!r}")
        lines = done.stdout.splitlines()
        check(len(lines) == 1, f"zero-length section: stdout {done.stdout!r}")
        if lines:
            got = json.loads(lines[0])
            check(got["points"] == 5 and got["compartments"] is None and got["matrix_size"] is None,
                  f"zero-length section: {got}")
        check(done.stderr.startswith("tridiag-swc: " + flat + ": "), f"zero-length section: stderr {done.stderr!r}")

        dashed = os.path.join(tmp, "-dashed.swc")
        with open(dashed, "w") as f:
            f.write("1 1 0 0 0 5 -1\n2 3 10 0 0 1 1\n")
        os.chdir(tmp)  # the name as given, "-dashed.swc", starts with '-'
        done = run(tool, "--", "-dashed.swc")
        check(done.returncode == 0 and json.loads(done.stdout)["points"] == 2,
              f"-dashed.swc after --: {done.returncode} {done.stdout!r} {done.stderr!r}")
        done = run(tool, "-dashed.swc")
        check(done.returncode == 2 and "unknown option -dashed.swc" in done.stderr,
              f"-dashed.swc without --: {done.returncode} {done.stderr!r}")
        done = run(tool, tmp)
        check(done.returncode == 1 and done.stderr == f"tridiag-swc: {tmp}: is a directory, not a file\n",
              f"a directory: {done.returncode} {done.stderr!r}")

        # A name that is not UTF-8: still one valid JSON line, the bad bytes as U+FFFD.
        odd = os.path.join(os.fsencode(tmp), b"\xff\xfe\xc3.swc")
        with open(odd, "wb") as f:
            f.write(b"1 1 0 0 0 5 -1\n2 3 10 0 0 1 1\n")
        done = subprocess.run([tool, odd], capture_output=True, timeout=300)
        try:
            got = json.loads(done.stdout.decode("utf-8"))
            check(done.returncode == 0 and got["file"] == tmp + "/\ufffd\ufffd\ufffd.swc" and got["points"] == 2,
                  f"non-UTF-8 name: {done.returncode} {got}")
        except (UnicodeDecodeError, ValueError) as error:
            check(False, f"non-UTF-8 name: not valid JSON ({error}): {done.stdout!r}")
        os.chdir("/")

    # An output that cannot be written (a full disk): exit status 1 and a message, not 0.
    if os.path.exists("/dev/full"):
        with open("/dev/full", "w") as full:
            done = subprocess.run([tool, files[0]], stdout=full, stderr=subprocess.PIPE, text=True, timeout=300)
        check(done.returncode == 1 and "cannot write" in done.stderr, f"/dev/full: {done.returncode} {done.stderr!r}")

    done = run(tool)
    check(done.returncode == 2 and "usage" in done.stderr, f"no argument: {done.returncode} {done.stderr!r}")
    for flag in ("--help", "-h"):
        done = run(tool, flag)
        check(done.returncode == 0 and done.stdout.startswith("usage: tridiag-swc") and not done.stderr,
              f"{flag}: {done.returncode} {done.stdout!r} {done.stderr!r}")
    done = run(tool, "--frobnicate", files[0])
    check(done.returncode == 2 and "unknown option --frobnicate" in done.stderr and not done.stdout,
          f"unknown option: {done.returncode} {done.stdout!r} {done.stderr!r}")

    for f in failures:
        print("FAILED:", f)
    print(f"tridiag-swc: {len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

"""A wrong tridiag for the checker's self-tests: runs cable_trace (or any program with its
output format) and damages its output, so that compare_with_neuron.py is seen to fail.

usage: corrupt_trace.py MODE PROGRAM [ARGUMENTS...]
  nan         every soma voltage after t = 0 becomes NaN (NaN compares false: a check
              `worst > tolerance` passed it)
  shift       the dendritic tip's voltage (the last column) + 0.15 mV after t = 0 (beyond the
              0.1 mV tolerance)
  area        the first segment with membrane gets 1e-3 more area (beyond the geometry tolerance)
  refinement  every voltage after t = 0 + 1e-4 mV per segment: an error that grows as the cell
              is refined, so refinement stops converging
  no-device   runs nothing: says "no GPU" on stderr and exits 77, as cable_trace does in a CUDA
              build on a machine with no GPU
Exit status and stderr: the program's.
"""
import subprocess
import sys


def damage(mode, lines):
    segments = next(int(line.split()[2]) for line in lines if line.startswith("# segments"))
    damaged, area_done = [], False
    for line in lines:
        words = line.split()
        if line.startswith("# geometry") and mode == "area" and not area_done and float(words[4]) > 0:
            words[4] = repr(float(words[4]) * (1 + 1e-3))
            area_done = True
        elif not line.startswith("#") and float(words[0]) > 0:
            values = [float(w) for w in words]
            if mode == "nan":
                values[1] = float("nan")
            elif mode == "shift":
                values[-1] += 0.15
            elif mode == "refinement":
                values[1:] = [v + 1e-4 * segments for v in values[1:]]
            words = [repr(v) for v in values]
        damaged.append(" ".join(words))
    return damaged


def main():
    mode, command = sys.argv[1], sys.argv[2:]
    if mode not in ("nan", "shift", "area", "refinement", "no-device"):
        sys.exit("corrupt_trace.py: unknown mode " + mode)
    if mode == "no-device":
        sys.stderr.write("no GPU\n")
        return 77
    run = subprocess.run(command, capture_output=True, text=True)
    sys.stderr.write(run.stderr)
    if run.returncode == 0:
        print("\n".join(damage(mode, run.stdout.splitlines())))
    return run.returncode


if __name__ == "__main__":
    sys.exit(main())

"""Runs a command that must fail in a given way: passes (0) when it exits with STATUS and its
output contains TEXT, fails (1) otherwise; skips (77) when the command skipped (77) and STATUS is
not 77. For the self-tests of the NEURON comparison, which show that each check can fail.

usage: expect_failure.py STATUS TEXT COMMAND...
"""
import subprocess
import sys

SKIP = 77


def main():
    status, text, command = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
    run = subprocess.run(command, capture_output=True, text=True)
    output = run.stdout + run.stderr
    print(output)
    if run.returncode == SKIP and status != SKIP:
        print("skipped: the command skipped (exit status 77)")
        return SKIP
    if run.returncode == status and text in output:
        print("ok: exit status %d and %r in the output, as expected" % (status, text))
        return 0
    print("FAIL: expected exit status %d and %r in the output; got exit status %d"
          % (status, text, run.returncode))
    return 1


if __name__ == "__main__":
    sys.exit(main())

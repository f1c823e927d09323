"""tridiag against NEURON itself: the same SWC cell, passive parameters, nseg rule and dt, a
current step into the soma; the soma and distal-tip voltage traces must agree.

NEURON (Debian python3-neuron, run with /usr/bin/python3) loads the cell with Import3d and runs it
here; tridiag's side is the command given by --trace-program (cable_trace.cpp, or a wrapper of
it), run with the same parameters. Every value of every trace must be finite. Exit status: 0 agree, 1 differ, 77 skipped (python3-neuron or the SWC file missing;
CTest's SKIP_RETURN_CODE), 2 bad usage. How NEURON's compartments are matched:
docs/hines_vs_neuron.md.

usage: compare_with_neuron.py --swc FILE [--solver batched|reference]
                              [--scheme backward_euler|crank_nicolson]
                              [--rules max_length,d_lambda] [--refine] [--amp NA]
                              [--tolerance MV] [--match-tolerance FRACTION]
                              --trace-program COMMAND...
"""
import argparse
import math
import os
import subprocess
import sys

SKIP = 77

# One set of parameters for both simulators. Deliberately not NEURON's defaults (Ra 35.4,
# cm 1, g_pas 0.001, e_pas -70), so that a parameter tridiag ignored would show; v_init differs
# from e_pas so that the leak is exercised before the step.
PARAMETERS = {
    "ra": 120.0,        # ohm cm
    "cm": 0.9,          # uF/cm^2
    "g-pas": 5e-5,      # S/cm^2 (membrane time constant 18 ms)
    "e-pas": -68.0,     # mV
    "v-init": -65.0,    # mV
    "amp": 0.1,         # nA, IClamp at soma(0.5) (--amp overrides)
    "delay": 5.0,       # ms
    "dur": 20.0,        # ms
    "dt": 0.025,        # ms
    "tstop": 40.0,      # ms
    "max-length": 20.0, # um, max_length rule
    "d-lambda": 0.1,    # d_lambda rule, fraction of the AC length constant at...
    "frequency": 100.0, # ...this frequency, Hz
}


def run_tridiag(program, swc, rule, params):
    """program: the command that runs cable_trace.cpp, as a list."""
    command = program + [swc, "--rule", rule]
    for key, value in params.items():
        command += ["--" + key, repr(value)]
    # A batch of one neuron is one thread's work (one thread per neuron): more OpenMP threads
    # would only spin against NEURON and the other tests for the cores. OMP_PROC_BIND set keeps
    # Kokkos 3.4's warning about it out of the trace.
    environment = dict(os.environ, OMP_NUM_THREADS="1", OMP_PROC_BIND="false")
    out = subprocess.run(command, check=True, capture_output=True, text=True,
                         env=environment).stdout
    header, times, soma, tip = {}, [], [], []
    for line in out.splitlines():
        if line.startswith("#"):
            words = line[1:].split()
            header[words[0]] = words[1:]
        else:
            t, vs, vt = map(float, line.split())
            times.append(t); soma.append(vs); tip.append(vt)
    return {"soma": header["soma"][0], "tip": header["tip"][0],
            "tip_path_um": float(header["tip"][3]), "segments": int(header["segments"][0]),
            "t": times, "v_soma": soma, "v_tip": tip}


def load_neuron_cell(h, swc):
    """Import3d, exactly as a NEURON user loads an SWC file; returns {name: section}."""
    reader = h.Import3d_SWC_read()
    reader.quiet = 1
    reader.input(swc)
    h.Import3d_GUI(reader, False).instantiate(None)
    return {sec.name(): sec for sec in h.allsec()}


def set_neuron_discretisation(h, sections, rule, p):
    for sec in sections.values():
        sec.Ra = p["ra"]
        sec.cm = p["cm"]
    for sec in sections.values():
        if rule == "d_lambda":
            # stdlib.hoc's d_lambda rule (fixnseg / The NEURON Book 5.6)
            sec.nseg = int((sec.L / (p["d-lambda"] * h.lambda_f(p["frequency"], sec=sec))
                            + 0.9) / 2) * 2 + 1
        else:
            n = max(1, int(math.ceil(sec.L / p["max-length"])))
            sec.nseg = n + 1 if n % 2 == 0 else n
        sec.insert("pas")
        for seg in sec:
            seg.pas.g = p["g-pas"]
            seg.pas.e = p["e-pas"]


def run_neuron(h, sections, soma_name, tip_name, p, scheme):
    soma, tip = sections[soma_name], sections[tip_name]
    clamp = h.IClamp(soma(0.5))
    clamp.delay, clamp.dur, clamp.amp = p["delay"], p["dur"], p["amp"]
    # 0: backward Euler; 1: Crank-Nicolson (tridiag's time_scheme.hpp does what NEURON does: the
    # backward-Euler system over dt/2, then V += 2 dV).
    h.secondorder = 1 if scheme == "crank_nicolson" else 0
    h.dt = p["dt"]
    h.finitialize(p["v-init"])
    v_soma, v_tip = [soma(0.5).v], [tip(1).v]
    for _ in range(round(p["tstop"] / p["dt"])):
        h.fadvance()
        v_soma.append(soma(0.5).v)
        v_tip.append(tip(1).v)
    return v_soma, v_tip


def max_difference(a, b, times):
    """max |a - b| and where; both lists finite (checked before: NaN compares false, so a NaN
    would never be the maximum)."""
    worst = max(range(len(a)), key=lambda k: abs(a[k] - b[k]))
    return abs(a[worst] - b[worst]), times[worst]


def compare(h, sections, program, swc, rule, p, scheme, tolerance, match_tolerance):
    """Runs both simulators on one discretisation and checks the traces; returns (the worst
    difference in mV, the problems found, tridiag's traces)."""
    label = rule if rule != "max_length" else "max_length %g um" % p["max-length"]
    if scheme != "backward_euler":
        label += " " + scheme
    ours = run_tridiag(program, swc, rule, p)
    set_neuron_discretisation(h, sections, rule, p)
    problems = []
    segments = sum(sec.nseg for sec in sections.values())
    if segments != ours["segments"]:
        problems.append("segments: NEURON %d, tridiag %d" % (segments, ours["segments"]))
    # The tip is tridiag's choice; NEURON must agree that no leaf is farther (ties to 1e-3 um).
    soma = sections[ours["soma"]]
    farthest = max(h.distance(soma(0.5), sec(1)) for sec in sections.values()
                   if len(sec.children()) == 0)
    tip_path = h.distance(soma(0.5), sections[ours["tip"]](1))
    if abs(tip_path - farthest) > 1e-3 or abs(tip_path - ours["tip_path_um"]) > 1e-3:
        problems.append("tip %s: path %.4f um (tridiag %.4f), NEURON's farthest leaf %.4f um"
                        % (ours["tip"], tip_path, ours["tip_path_um"], farthest))
    v_soma, v_tip = run_neuron(h, sections, ours["soma"], ours["tip"], p, scheme)
    if len(v_soma) != len(ours["t"]):
        problems.append("trace lengths: NEURON %d, tridiag %d" % (len(v_soma), len(ours["t"])))
        return math.inf, problems, ours
    for side, traces in (("NEURON", (v_soma, v_tip)), ("tridiag", (ours["v_soma"], ours["v_tip"]))):
        for site, trace in zip(("soma", "tip"), traces):
            bad = [k for k, v in enumerate(trace) if not math.isfinite(v)]
            if bad:
                problems.append("%s: %s's %s trace is not finite at %d of %d steps (first t = %.3f ms)"
                                % (label, side, site, len(bad), len(trace), ours["t"][bad[0]]))
    if problems:
        return math.inf, problems, ours
    d_soma, t_soma = max_difference(v_soma, ours["v_soma"], ours["t"])
    d_tip, t_tip = max_difference(v_tip, ours["v_tip"], ours["t"])
    swing = max(max(v_soma) - min(v_soma), max(v_tip) - min(v_tip))
    print("%-24s %-17s segments %5d  soma %s max|dV| %.2e mV (t=%.3f ms)  tip %s (%.0f um) "
          "max|dV| %.2e mV (t=%.3f ms)  swing soma %.2f mV, tip %.2f mV"
          % (os.path.basename(swc), label, segments, ours["soma"], d_soma, t_soma, ours["tip"],
             tip_path, d_tip, t_tip, max(v_soma) - min(v_soma), max(v_tip) - min(v_tip)))
    worst = max(d_soma, d_tip)
    # A flat trace would let any comparison pass. (At a far tip the swing may be the leak's
    # relaxation from v_init to e_pas alone: AA0013's axon tip, 14 mm out, barely sees the step.)
    if not (min(max(v_soma) - min(v_soma), max(v_tip) - min(v_tip)) >= 1.0):
        problems.append("%s: a trace moves by less than 1 mV: raise --amp" % label)
    # Written as not (x <= bound): a NaN must fail.
    if not (worst <= tolerance):
        problems.append("%s: traces differ by %.3g mV > %g mV" % (label, worst, tolerance))
    elif not (worst <= match_tolerance * swing):
        problems.append("%s: traces differ by %.3g mV = %.2g of the %.3g mV swing > %g: within "
                        "the requirement, but the discretisations no longer match as documented"
                        % (label, worst, worst / swing, swing, match_tolerance))
    return worst, problems, ours


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trace-program", required=True, nargs="+",
                        help="tridiag's side: cable_trace's path, or a command that wraps it")
    parser.add_argument("--solver", choices=("batched", "reference"), default="batched",
                        help="tridiag's side: hines::solve, or the sequential test oracle")
    parser.add_argument("--swc", required=True)
    parser.add_argument("--scheme", choices=("backward_euler", "crank_nicolson"),
                        default="backward_euler", help="NEURON's secondorder 0 or 1")
    parser.add_argument("--rules", default="max_length,d_lambda")
    parser.add_argument("--amp", type=float, default=PARAMETERS["amp"],
                        help="step amplitude, nA")
    parser.add_argument("--tolerance", type=float, default=0.1,
                        help="max |V_tridiag - V_NEURON| allowed, mV (issue 6: 0.1)")
    parser.add_argument("--match-tolerance", type=float, default=1e-6,
                        help="max |V_tridiag - V_NEURON| / voltage swing that matched "
                             "discretisations achieve (NEURON's float 3-D points; measured "
                             "<= 1.3e-7, docs/hines_vs_neuron.md)")
    parser.add_argument("--refine", action="store_true",
                        help="max_length 80, 40, 20, 10, 5 um instead of --rules: tridiag vs "
                             "NEURON at each, against the change that refinement itself makes")
    args = parser.parse_args()

    try:
        from neuron import h
    except ImportError as error:
        print("SKIPPED: python3-neuron is not importable by %s (%s); "
              "scripts/install_packages.sh installs it" % (sys.executable, error))
        return SKIP
    if not os.path.isfile(args.swc):
        print("SKIPPED: no morphology %s (TRIDIAG_SHARED_DIR)" % args.swc)
        return SKIP
    h.load_file("stdrun.hoc")
    h.load_file("import3d.hoc")
    sections = load_neuron_cell(h, args.swc)
    parameters = dict(PARAMETERS, amp=args.amp)
    program = args.trace_program + ["--solver", args.solver, "--scheme", args.scheme]
    check = dict(scheme=args.scheme, tolerance=args.tolerance,
                 match_tolerance=args.match_tolerance)

    worst, problems = 0.0, []
    if args.refine:
        # The traces agree at every resolution, while refining moves them by orders of magnitude
        # more than they differ: the agreement is not an artefact of one coarse discretisation,
        # and the comparison would see a mismatch much smaller than the discretisation error.
        previous, smallest_change = None, math.inf
        for max_length in (80.0, 40.0, 20.0, 10.0, 5.0):
            p = dict(parameters, **{"max-length": max_length})
            print("max_length %g um:" % max_length)
            difference, found, ours = compare(h, sections, program, args.swc,
                                              "max_length", p, **check)
            worst, problems = max(worst, difference), problems + found
            if previous is not None:
                change = max(abs(a - b) for key in ("v_soma", "v_tip")
                             for a, b in zip(ours[key], previous[key]))
                smallest_change = min(smallest_change, change)
                print("    change of tridiag's traces from max_length %g um: %.2e mV"
                      % (2 * max_length, change))
            previous = ours
        if not (smallest_change >= 100 * worst):
            problems.append("refinement changes the traces by %.2g mV, not 100x more than "
                            "tridiag and NEURON differ (%.2g mV)" % (smallest_change, worst))
    else:
        for rule in args.rules.split(","):
            difference, found, _ = compare(h, sections, program, args.swc, rule,
                                           parameters, **check)
            worst, problems = max(worst, difference), problems + found

    print("worst max|dV| %.2e mV (tolerance %g mV; matched discretisations: %g of the swing)"
          % (worst, args.tolerance, args.match_tolerance))
    for problem in problems:
        print("FAIL:", problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

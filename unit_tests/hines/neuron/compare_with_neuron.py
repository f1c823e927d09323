"""tridiag against NEURON itself: the same SWC cell, membrane, nseg rule and dt, a current step
into soma(0.5); the segments' areas and axial resistances and the voltage traces at three sites
(soma, distal tip, dendritic tip) must agree.

NEURON (Debian python3-neuron, run with /usr/bin/python3) loads the cell with Import3d and runs it
here; tridiag's side is the command given by --trace-program (cable_trace.cpp, or a wrapper of
it), run with the same parameters. Exit status: 0 agree, 1 differ (or tridiag failed), 77 skipped
(python3-neuron or the SWC file missing: CTest's SKIP_RETURN_CODE; with --require-neuron that is
a failure, 1; the trace program exiting with 77, a CUDA build on a machine with no GPU: 77
either way), 2 bad usage. How NEURON's compartments are matched: docs/hines_vs_neuron.md.

usage: compare_with_neuron.py --swc FILE [--scheme backward_euler|crank_nicolson]
                              [--rules max_length,d_lambda] [--refine] [--amp NA]
                              [--soma pas|hh] [--celsius C] [--require-neuron]
                              [--tolerance MV] [--match-tolerance F] [--geometry-tolerance F]
                              [--solver batched|reference] --trace-program COMMAND...
"""
import argparse
import math
import os
import subprocess
import sys

SKIP = 77

# One set of parameters for both simulators, none of them a default of NEURON (Ra 35.4, cm 1,
# g_pas 0.001, e_pas -70, v_init -65, dt 0.025) or of cable_trace.cpp / DiscretizationOptions
# (cable_trace has none: it requires every one), so that a parameter ignored on one side shows.
# v_init differs from e_pas, so the leak moves every trace before the step; the step response
# is measured against a run without the step (step_response).
PARAMETERS = {
    "ra": 120.0,        # ohm cm
    "cm": 0.9,          # uF/cm^2
    "g-pas": 5e-5,      # S/cm^2 (membrane time constant 18 ms)
    "e-pas": -68.0,     # mV
    "v-init": -63.0,    # mV
    "amp": 0.12,        # nA, IClamp at soma(0.5) (--amp overrides)
    "delay": 5.0,       # ms
    "dur": 20.0,        # ms
    "dt": 0.02,         # ms
    "tstop": 40.0,      # ms
}
# Each nseg rule's own parameters (passed to tridiag only with that rule).
RULES = {
    "max_length": {"max-length": 17.0},                 # um
    "d_lambda": {"d-lambda": 0.07, "frequency": 120.0},  # of lambda_f at this frequency, Hz
}
# Hodgkin-Huxley on the soma sections (--soma hh; celsius from --celsius), none hh.mod's default
# (gnabar 0.12, gkbar 0.036, gl 0.0003, el -54.3; NEURON's ena 50, ek -77).
HH = {
    "gnabar": 0.13,     # S/cm^2
    "gkbar": 0.04,      # S/cm^2
    "gl": 0.0002,       # S/cm^2
    "ena": 52.0,        # mV
    "ek": -80.0,        # mV
    "el": -60.0,        # mV
}
# Refinement (--refine): each rule's parameter, coarse to fine.
REFINEMENT = {
    "max_length": ("max-length", (80.0, 40.0, 20.0, 10.0, 5.0)),
    "d_lambda": ("d-lambda", (0.4, 0.2, 0.1, 0.05, 0.025)),
}
SITES = ("soma", "tip", "dendrite")
SITE_NAMES = {"soma": "soma", "tip": "tip", "dendrite": "dendritic tip"}
# The step must move the voltage by this much (against a run without it) at these sites, or the
# comparison there would test the leak's relaxation only: no axial current, so no area and no Ra.
# Not at the tip: on AA0013 it is an axon 14 mm out, which the step does not reach.
STEP_RESPONSE_MV = 1.0
STEP_RESPONSE_SITES = ("soma", "dendrite")


class TridiagFailed(Exception):
    pass


class TridiagSkipped(Exception):
    """The trace program exited with 77: this build cannot run here (a CUDA build, no GPU)."""


def run_tridiag(program, swc, rule, params):
    """program: the command that runs cable_trace.cpp, as a list. Returns its sites, segment
    count, geometry ({section: [(x, area, ri)]}) and traces."""
    command = program + [swc, "--rule", rule, "--geometry"]
    for key, value in params.items():
        command += ["--" + key, value if isinstance(value, str) else repr(value)]
    # A batch of one neuron is one thread's work (one thread per neuron): more OpenMP threads
    # would only spin against NEURON and the other tests for the cores. OMP_PROC_BIND set keeps
    # Kokkos 3.4's warning about it out of the trace.
    environment = dict(os.environ, OMP_NUM_THREADS="1", OMP_PROC_BIND="false")
    run = subprocess.run(command, capture_output=True, text=True, env=environment)
    if run.returncode == SKIP:
        raise TridiagSkipped(run.stderr.strip())
    if run.returncode != 0:
        raise TridiagFailed("tridiag exited with status %d: %s" % (run.returncode, run.stderr.strip()))
    header, geometry, traces = {}, {}, {"t": [], "soma": [], "tip": [], "dendrite": []}
    for line in run.stdout.splitlines():
        words = line[1:].split() if line.startswith("#") else line.split()
        if line.startswith("# geometry"):
            geometry.setdefault(words[1], []).append(tuple(map(float, words[2:5])))
        elif line.startswith("#"):
            header[words[0]] = words[1:]
        else:
            for key, value in zip(("t",) + SITES, map(float, words)):
                traces[key].append(value)
    return {"sections": {site: header[site][0] for site in SITES},
            "path_um": {site: float(header[site][3]) for site in ("tip", "dendrite")},
            "segments": int(header["segments"][0]), "geometry": geometry, "traces": traces}


def load_neuron_cell(h, swc):
    """Import3d, exactly as a NEURON user loads an SWC file; returns {name: section}."""
    reader = h.Import3d_SWC_read()
    reader.quiet = 1
    reader.input(swc)
    h.Import3d_GUI(reader, False).instantiate(None)
    return {sec.name(): sec for sec in h.allsec()}


def is_soma(name):
    # Import3d names a section by its SWC type: soma (1), axon (2), dend (3), apic (4), dend_<t>.
    return name.startswith("soma[")


def is_dendrite(name):
    return name.startswith("dend[") or name.startswith("apic[")


def set_neuron_cell(h, sections, rule, p, hh):
    """nseg by the rule, cable and membrane parameters; hh: HH on the soma sections (the
    equivalent of `forsec "soma" insert hh`), pas elsewhere."""
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
        if hh is not None and is_soma(sec.name()):
            sec.insert("hh")
            for seg in sec:
                seg.hh.gnabar, seg.hh.gkbar, seg.hh.gl, seg.hh.el = (
                    hh["gnabar"], hh["gkbar"], hh["gl"], hh["el"])
                seg.ena, seg.ek = hh["ena"], hh["ek"]
        else:
            sec.insert("pas")
            for seg in sec:
                seg.pas.g = p["g-pas"]
                seg.pas.e = p["e-pas"]
    if hh is not None:
        # Exact rates: NEURON's rate tables (the default) move a spike by up to 0.6 mV.
        h.usetable_hh = 0
        h.celsius = hh["celsius"]


def run_neuron(h, segments, p, amp, scheme):
    """Traces (lists, t = 0 first) at the given segments {site: segment}."""
    clamp = h.IClamp(segments["soma"])
    clamp.delay, clamp.dur, clamp.amp = p["delay"], p["dur"], amp
    # 0: backward Euler; 1: Crank-Nicolson (tridiag's time_scheme.hpp does what NEURON does: the
    # backward-Euler system over dt/2, then V += 2 dV).
    h.secondorder = 1 if scheme == "crank_nicolson" else 0
    h.dt = p["dt"]
    vectors = {site: h.Vector().record(segment._ref_v) for site, segment in segments.items()}
    h.finitialize(p["v-init"])
    for _ in range(round(p["tstop"] / p["dt"])):
        h.fadvance()
    return {site: list(vector) for site, vector in vectors.items()}


def max_difference(a, b, times):
    """max |a - b| and where; both lists finite (checked before)."""
    worst = max(range(len(a)), key=lambda k: abs(a[k] - b[k]))
    return abs(a[worst] - b[worst]), times[worst]


def relative_difference(a, b):
    scale = max(abs(a), abs(b))
    return abs(a - b) / scale if scale > 0 else 0.0


def compare_geometry(h, sections, ours, tolerance):
    """Every segment's and section end's area and axial resistance against NEURON's seg.area()
    and seg.ri(). Returns (worst relative difference, problems)."""
    problems, worst = [], 0.0
    if set(ours) != set(sections):
        return math.inf, ["sections: only NEURON has %s, only tridiag %s"
                          % (sorted(set(sections) - set(ours))[:5], sorted(set(ours) - set(sections))[:5])]
    for name, sec in sections.items():
        theirs = [(seg.x, seg.area(), seg.ri()) for seg in sec] + [(1.0, sec(1).area(), sec(1).ri())]
        if len(theirs) != len(ours[name]):
            problems.append("%s: NEURON has %d segments, tridiag %d"
                            % (name, len(theirs) - 1, len(ours[name]) - 1))
            continue
        for (x, area, ri), (our_x, our_area, our_ri) in zip(theirs, ours[name]):
            if not (abs(x - our_x) <= 1e-12):
                problems.append("%s: segment at x = %r in NEURON, %r in tridiag" % (name, x, our_x))
                break
            for what, a, b in (("area", area, our_area), ("ri", ri, our_ri)):
                difference = relative_difference(a, b)
                worst = max(worst, difference) if not math.isnan(difference) else math.inf
                if not (difference <= tolerance):
                    problems.append("%s(%.6g).%s: NEURON %.10g, tridiag %.10g (relative %.2g > %g)"
                                    % (name, x, what, a, b, difference, tolerance))
    return worst, problems[:10] + (["... %d more" % (len(problems) - 10)] if len(problems) > 10 else [])


def check_sites(h, sections, ours):
    """tridiag chose the sites; NEURON must agree that no leaf (no dendritic leaf) is farther
    from soma(0.5) than its tip (dendritic tip), ties to 1e-3 um."""
    problems = []
    soma = sections[ours["sections"]["soma"]]
    if not (soma.parentseg() is None and is_soma(soma.name())):
        problems.append("soma %s is not NEURON's root soma section" % soma.name())
    leaves = [sec for sec in sections.values() if len(sec.children()) == 0]
    dendrites = [sec for sec in leaves if is_dendrite(sec.name())] or leaves
    for site, candidates in (("tip", leaves), ("dendrite", dendrites)):
        name = ours["sections"][site]
        farthest = max(h.distance(soma(0.5), sec(1)) for sec in candidates)
        path = h.distance(soma(0.5), sections[name](1))
        if not (abs(path - farthest) <= 1e-3 and abs(path - ours["path_um"][site]) <= 1e-3
                and sections[name] in candidates):
            problems.append("%s %s: path %.4f um (tridiag %.4f), NEURON's farthest candidate %.4f um"
                            % (SITE_NAMES[site], name, path, ours["path_um"][site], farthest))
    return problems


def compare(h, sections, program, swc, rule, p, scheme, hh, tolerance, match_tolerance,
            geometry_tolerance):
    """Runs both simulators on one discretisation and checks geometry and traces. Returns (the
    worst trace difference in mV, the problems found, tridiag's traces or None)."""
    label = ("max_length %g um" % p["max-length"] if rule == "max_length"
             else "d_lambda %g at %g Hz" % (p["d-lambda"], p["frequency"]))
    label = "%s, %s%s" % (label, scheme, ", hh at %g C" % hh["celsius"] if hh else "")
    try:
        ours = run_tridiag(program, swc, rule, dict(p, soma="hh" if hh else "pas", **(hh or {})))
    except TridiagFailed as failure:
        return math.inf, ["%s: %s" % (label, failure)], None
    set_neuron_cell(h, sections, rule, p, hh)
    problems = []
    segments = sum(sec.nseg for sec in sections.values())
    if segments != ours["segments"]:
        problems.append("%s: segments: NEURON %d, tridiag %d" % (label, segments, ours["segments"]))
    geometry_worst, found = compare_geometry(h, sections, ours["geometry"], geometry_tolerance)
    problems += ["%s: %s" % (label, problem) for problem in found]
    problems += ["%s: %s" % (label, problem) for problem in check_sites(h, sections, ours)]

    at = {site: sections[ours["sections"][site]](0.5 if site == "soma" else 1.0) for site in SITES}
    theirs = run_neuron(h, at, p, p["amp"], scheme)
    unstimulated = run_neuron(h, at, p, 0.0, scheme)
    times = ours["traces"]["t"]
    for site in SITES:
        for side, trace in (("NEURON", theirs[site]), ("tridiag", ours["traces"][site])):
            if len(trace) != len(times):
                problems.append("%s: %s's %s trace has %d values, not %d"
                                % (label, side, SITE_NAMES[site], len(trace), len(times)))
            bad = [k for k, v in enumerate(trace) if not math.isfinite(v)]
            if bad:
                problems.append("%s: %s's %s trace is not finite at %d of %d steps (first t = %.3f ms)"
                                % (label, side, SITE_NAMES[site], len(bad), len(trace), times[bad[0]]))
    if problems:
        return math.inf, problems, None

    difference = {site: max_difference(theirs[site], ours["traces"][site], times) for site in SITES}
    swing = {site: max(theirs[site]) - min(theirs[site]) for site in SITES}
    response = {site: max(abs(a - b) for a, b in zip(theirs[site], unstimulated[site]))
                for site in SITES}
    print("%s %s: segments %d, geometry max relative difference %.1e"
          % (os.path.basename(swc), label, segments, geometry_worst))
    for site in SITES:
        name = ours["sections"][site]
        where = " (%.0f um)" % ours["path_um"][site] if site != "soma" else ""
        print("    %-13s %-10s%-10s max|dV| %.2e mV (t=%.3f ms)  swing %.3g mV, step response %.3g mV"
              % (SITE_NAMES[site], name, where, difference[site][0], difference[site][1],
                 swing[site], response[site]))
    for site in STEP_RESPONSE_SITES:
        if not (response[site] >= STEP_RESPONSE_MV):
            problems.append("%s: the step moves the %s by %.3g mV < %g mV (against amp = 0): raise --amp"
                            % (label, SITE_NAMES[site], response[site], STEP_RESPONSE_MV))
    if hh and not (max(theirs["soma"]) > 0):
        problems.append("%s: the HH soma does not spike (peak %.1f mV): raise --amp"
                        % (label, max(theirs["soma"])))
    worst = max(d for d, _ in difference.values())
    largest_swing = max(swing.values())
    if not (worst <= tolerance):
        problems.append("%s: traces differ by %.3g mV > %g mV" % (label, worst, tolerance))
    elif not (worst <= match_tolerance * largest_swing):
        problems.append("%s: traces differ by %.3g mV = %.2g of the %.3g mV swing > %g: within "
                        "the requirement, but the discretisations no longer match as documented"
                        % (label, worst, worst / largest_swing, largest_swing, match_tolerance))
    return worst, problems, ours["traces"]


def refine(h, sections, program, swc, parameters, check):
    """Both simulators refined together, by each rule: they agree at every resolution, each
    refinement moves every trace less than the one before (both converge), and by far more than
    tridiag and NEURON differ. Returns (worst difference, problems)."""
    worst, problems = 0.0, []
    for rule, (key, values) in REFINEMENT.items():
        changes, previous = [], None
        for value in values:
            p = dict(parameters, **RULES[rule])
            p[key] = value
            difference, found, traces = compare(h, sections, program, swc, rule, p, **check)
            worst, problems = max(worst, difference), problems + found
            if traces is None:
                return worst, problems
            if previous is not None:
                change = {site: max(abs(a - b) for a, b in zip(traces[site], previous[site]))
                          for site in SITES}
                changes.append(change)
                print("    change of tridiag's traces from the coarser %s: %s"
                      % (rule, ", ".join("%s %.2e mV" % (SITE_NAMES[s], change[s]) for s in SITES)))
            previous = traces
        for site in SITES:
            sequence = [change[site] for change in changes]
            if not all(finer < coarser for coarser, finer in zip(sequence, sequence[1:])):
                problems.append("%s: refinement changes the %s trace by %s mV: not decreasing"
                                % (rule, SITE_NAMES[site], ", ".join("%.2g" % c for c in sequence)))
        smallest = min(min(change.values()) for change in changes)
        if not (smallest >= 100 * worst):
            problems.append("%s: refinement changes the traces by %.2g mV, not 100x more than "
                            "tridiag and NEURON differ (%.2g mV)" % (rule, smallest, worst))
    return worst, problems


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
    parser.add_argument("--soma", choices=("pas", "hh"), default="pas",
                        help="the soma sections' membrane (hh: tridiag's hines::Population)")
    parser.add_argument("--celsius", type=float, help="temperature for --soma hh, deg C")
    parser.add_argument("--tolerance", type=float, default=0.1,
                        help="max |V_tridiag - V_NEURON| allowed, mV (issue 6: 0.1)")
    parser.add_argument("--match-tolerance", type=float, default=1e-6,
                        help="max |V_tridiag - V_NEURON| / voltage swing that matched "
                             "discretisations achieve (NEURON's float 3-D points; "
                             "docs/hines_vs_neuron.md)")
    parser.add_argument("--geometry-tolerance", type=float, default=1e-4,
                        help="max relative difference of a segment's area or axial resistance "
                             "(NEURON's float 3-D points; docs/hines_vs_neuron.md)")
    parser.add_argument("--refine", action="store_true",
                        help="each rule at five resolutions instead of --rules: tridiag vs NEURON "
                             "at each, against the change that refinement itself makes")
    parser.add_argument("--require-neuron", action="store_true",
                        help="fail (exit 1) instead of skipping when NEURON or the SWC file is "
                             "missing (CI: CMake's TRIDIAG_REQUIRE_NEURON)")
    args = parser.parse_args()
    if (args.soma == "hh") != (args.celsius is not None):
        parser.error("--celsius goes with --soma hh, and only with it")

    missing = SKIP if not args.require_neuron else 1
    try:
        from neuron import h
    except ImportError as error:
        print("%s: python3-neuron is not importable by %s (%s); scripts/install_packages.sh "
              "installs it" % ("SKIPPED" if missing == SKIP else "FAIL", sys.executable, error))
        return missing
    if not os.path.isfile(args.swc):
        print("%s: no morphology %s (TRIDIAG_SHARED_DIR)"
              % ("SKIPPED" if missing == SKIP else "FAIL", args.swc))
        return missing
    h.load_file("stdrun.hoc")
    h.load_file("import3d.hoc")
    sections = load_neuron_cell(h, args.swc)
    parameters = dict(PARAMETERS, amp=args.amp)
    program = args.trace_program + ["--solver", args.solver, "--scheme", args.scheme]
    hh = dict(HH, celsius=args.celsius) if args.soma == "hh" else None
    check = dict(scheme=args.scheme, hh=hh, tolerance=args.tolerance,
                 match_tolerance=args.match_tolerance, geometry_tolerance=args.geometry_tolerance)

    worst, problems = 0.0, []
    try:
        if args.refine:
            worst, problems = refine(h, sections, program, args.swc, parameters, check)
        else:
            for rule in args.rules.split(","):
                p = dict(parameters, **RULES[rule])
                difference, found, _ = compare(h, sections, program, args.swc, rule, p, **check)
                worst, problems = max(worst, difference), problems + found
    except TridiagSkipped as skipped:
        print("SKIPPED: tridiag's trace program cannot run on this machine: %s" % skipped)
        return SKIP

    print("worst max|dV| %.2e mV (tolerance %g mV; matched discretisations: %g of the swing)"
          % (worst, args.tolerance, args.match_tolerance))
    for problem in problems:
        print("FAIL:", problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

import sys, json, math
from neuron import h
h.load_file("stdlib.hoc"); h.load_file("import3d.hoc")
path, rule = sys.argv[1], sys.argv[2]
maxlen = float(sys.argv[3]) if len(sys.argv) > 3 else 20.0
r = h.Import3d_SWC_read(); r.quiet = 1
r.input(path)
h.Import3d_GUI(r, False).instantiate(None)
for sec in h.allsec():
    sec.Ra = 35.4; sec.cm = 1.0
for sec in h.allsec():
    if rule == "dlambda":
        sec.nseg = int((sec.L/(0.1*h.lambda_f(100, sec=sec)) + 0.9)/2)*2 + 1
    else:
        n = max(1, int(math.ceil(sec.L/maxlen)))
        if n % 2 == 0: n += 1
        sec.nseg = n
for sec in h.allsec():
    ps = sec.parentseg()
    d = {"name": sec.name(), "parent": ps.sec.name() if ps is not None else "",
         "px": ps.x if ps is not None else -1.0, "nseg": sec.nseg, "L": sec.L, "n3d": int(sec.n3d()),
         "area": [seg.area() for seg in sec], "ri": [seg.ri() for seg in sec] + [sec(1).ri()]}
    print(json.dumps(d))

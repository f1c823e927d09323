import sys, math
from neuron import h
h.load_file("stdrun.hoc"); h.load_file("import3d.hoc")
path, rule, other = sys.argv[1], sys.argv[2], sys.argv[3]
r = h.Import3d_SWC_read(); r.quiet = 1; r.input(path)
h.Import3d_GUI(r, False).instantiate(None)
for sec in h.allsec():
    sec.Ra = 35.4; sec.cm = 1.0
    sec.insert("pas")
for sec in h.allsec():
    if rule == "dlambda":
        sec.nseg = int((sec.L/(0.1*h.lambda_f(100, sec=sec)) + 0.9)/2)*2 + 1
    else:
        n = max(1, int(math.ceil(sec.L/20.0))); n += (n % 2 == 0); sec.nseg = n
    for seg in sec: seg.pas.g = 1e-4; seg.pas.e = -65
soma = h.soma[0]
osec = [s for s in h.allsec() if s.name() == other][0]
st = h.IClamp(soma(0.5)); st.delay = 0; st.dur = 1e9; st.amp = 0.1
h.secondorder = 0; h.dt = 0.025; h.finitialize(-65)
for step in range(1, 401):
    h.fadvance()
    if step % 40 == 0: print("%g %.15g %.15g" % (step*0.025, soma(0.5).v, osec(0.5).v))

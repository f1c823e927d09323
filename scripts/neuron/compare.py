import sys, json
def load(p):
    return {d["name"]: d for d in map(json.loads, open(p))}
a, b = load(sys.argv[1]), load(sys.argv[2])
tol = float(sys.argv[3]) if len(sys.argv) > 3 else 1e-5
bad = 0; worst = 0.0
if set(a) != set(b):
    print("section names differ:", sorted(set(a) ^ set(b))[:10], len(a), len(b)); bad += 1
for k in sorted(set(a) & set(b)):
    x, y = a[k], b[k]
    for f in ("parent", "px", "nseg", "n3d"):
        if x[f] != y[f]:
            if bad < 15: print(k, f, x[f], y[f])
            bad += 1
    def rel(u, v): return abs(u - v) / max(abs(u), abs(v), 1e-300)
    e = rel(x["L"], y["L"]); worst = max(worst, e)
    if len(x["area"]) == len(y["area"]):
        for u, v in zip(x["area"] + x["ri"], y["area"] + y["ri"]):
            e = rel(u, v); worst = max(worst, e)
            if e > tol:
                if bad < 15: print(k, "value", u, v, e)
                bad += 1
print("sections", len(a), len(b), "segments", sum(d["nseg"] for d in a.values()), sum(d["nseg"] for d in b.values()), "mismatches", bad, "worst rel", worst)

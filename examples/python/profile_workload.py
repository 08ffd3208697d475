"""Profiles a small workload on two streams and writes its Chrome trace.

    python3 examples/python/profile_workload.py [trace.json]

Runs on the GPU when there is one, else on the CPU; prints the summary table.
Open the trace in ui.perfetto.dev, or draw it with scripts/plot_trace.py.
"""

import sys

import ek

device = "cuda" if ek.device_count("cuda") > 0 else "cpu"
n = 2048 if device == "cuda" else 256
a = ek.randn(n, n, device=device)
b = ek.randn(n, n, device=device)
v = ek.randn(n * n * 4, device=device)
side = ek.Stream(device)



def step():
    logits = a @ b                                 # default stream: a model step
    top = logits.softmax(dim=-1).max(dim=-1)
    with side:                                     # meanwhile, on another stream
        total = (v * 0.5).exp().clamp(max=4.0).sum()
    return top, total


step()  # the first call loads cuBLAS and the kernels: keep it out of the picture
ek.synchronize(device)
side.synchronize()
with ek.profile(device) as prof:
    for _ in range(4):
        top, total = step()
    ek.synchronize(device)
    side.synchronize()

print(prof.summary())
print(f"sum of the last side result: {float(total.item()):.1f}; "
      f"mean row max: {float(top.values.mean().item()):.4f}")
path = sys.argv[1] if len(sys.argv) > 1 else "trace.json"
prof.export_chrome_trace(path)
print(f"{len(prof.records())} calls on {device}; trace written to {path}")

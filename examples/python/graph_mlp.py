"""libek CUDA graphs from Python: capture one step of a small MLP once,
replay it on new inputs (as torch.cuda.graph).

    y = gelu(x @ W + b).sum(1)   for x [64,512], W [512,512], b [512]

On the CPU backend (no GPU, or EK_DEVICE=cpu) capture is not supported: the
program says so and runs the same step eagerly.

    python3 graph_mlp.py
"""

import os

import ek

device = "cuda" if ek.device_count("cuda") > 0 and os.environ.get("EK_DEVICE") != "cpu" else "cpu"
x = ek.full((64, 512), 0.5, device=device)
w = ek.full((512, 512), 0.01, device=device)
b = ek.full((512,), 0.25, device=device)


def step():
    return ek.gelu(x @ w + b).sum(1)


g = ek.cuda.CUDAGraph()
try:
    with ek.cuda.graph(g, stream=ek.current_stream(device)):
        y = step()
    print(f"captured the step on {device}")
except ek.NotSupportedError as e:
    print(f"capture is not supported here ({e}); running eagerly")
    g = None

for i in range(3):
    x.copy_(ek.full((64, 512), 0.25 * i, device=device))  # new inputs, in place
    if g is not None:
        g.replay()
    else:
        y = step()
    print(f"step {i}: y[0] = {y[0].item():.4f}")

"""libek quickstart in Python: the forward pass of a two-layer perceptron,

    h = relu(x @ W1 + b1),  y = softmax(h @ W2 + b2, dim -1),

with x [64,128], W1 [128,256], b1 [256], W2 [256,10], b2 [10] drawn from
N(0, 0.1^2) by the context's generator seeded with 0 (in that order), on the
GPU when there is one, else on the CPU (EK_DEVICE=cpu or --cpu forces the
CPU). The same workload as examples/{c,rust,go} with the same seed: the same
numbers on every device and in every language. Checked against the same
computation in NumPy (float64, from the same inputs).

    EK_LIBRARY=build/libek.so.0 PYTHONPATH=bindings/python python3 examples/python/quickstart.py
"""
import os
import sys

import numpy as np

import ek

force_cpu = "--cpu" in sys.argv[1:] or os.environ.get("EK_DEVICE") == "cpu"
device = "cuda" if ek.cuda.is_available() and not force_cpu else "cpu"
print(f"libek {ek.version()} on {ek.device_info(device)['name']} "
      f"({'cuda:0' if device == 'cuda' else 'cpu'})")

ek.manual_seed(0)
x = ek.normal(0.0, 0.1, (64, 128), device=device)
w1 = ek.normal(0.0, 0.1, (128, 256), device=device)
b1 = ek.normal(0.0, 0.1, (256,), device=device)
w2 = ek.normal(0.0, 0.1, (256, 10), device=device)
b2 = ek.normal(0.0, 0.1, (10,), device=device)

h = x @ w1
h += b1          # in place, as the C quickstart
h.relu_()
y = (h @ w2 + b2).softmax(dim=-1)

print(f"y = softmax(relu(x @ W1 + b1) @ W2 + b2): shape [{y.shape[0]}, {y.shape[1]}]")
print(f"sum(y) = {y.sum().item():.6f}")
row = y[0].tolist()
print(f"y[0][0:3] = {row[0]:.6f} {row[1]:.6f} {row[2]:.6f}")

# The same forward pass in NumPy, in float64.
xs, w1s, b1s, w2s, b2s = (t.numpy().astype(np.float64) for t in (x, w1, b1, w2, b2))
z = np.maximum(xs @ w1s + b1s, 0) @ w2s + b2s
e = np.exp(z - z.max(axis=1, keepdims=True))
ref = e / e.sum(axis=1, keepdims=True)
sums = y.sum(dim=1)
diff = float(np.abs(y.numpy() - ref).max())
print(f"row sums: min {sums.min().item():.6f} max {sums.max().item():.6f}")
print(f"max |y - numpy| = {diff:.3e}")
sys.exit(0 if y.shape == (64, 10) and diff < 1e-5 else 1)

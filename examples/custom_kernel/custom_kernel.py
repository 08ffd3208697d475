"""libek custom kernels from Python, in the style of CuPy:

1. ek.RawModule: a saxpy kernel, y = a * x + y, written in CUDA C++ and
   compiled at run time by NVRTC (then kept in the memory and disk caches),
   launched with an explicit grid and block, then with an autotuned block;
2. ek.ElementwiseKernel: z = x * y + max(x, 0) from a one-line body, with
   broadcasting.

Each result is checked against NumPy. Custom kernels need a CUDA device: on a
machine without one this prints so and exits 0.

    EK_LIBRARY=build/libek.so.0 PYTHONPATH=bindings/python \\
        python3 examples/custom_kernel/custom_kernel.py
"""
import sys

import numpy as np

import ek

if not ek.cuda.is_available():
    print("custom kernels need a CUDA device; none found, nothing to do")
    sys.exit(0)

SAXPY = r'''
extern "C" __global__ void saxpy(float a, const float *x, float *y, unsigned long long n) {
  unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
'''

n = 1 << 20
rng = np.random.default_rng(0)
x_h = rng.standard_normal(n).astype(np.float32)
y_h = rng.standard_normal(n).astype(np.float32)
x = ek.from_numpy(x_h, device="cuda")
y = ek.from_numpy(y_h, device="cuda")

# 1. RawModule / RawKernel. Scalars are passed as NumPy (or ctypes) scalars of
#    the parameter's type; tensors as their device pointers.
with ek.RawModule(SAXPY, name="saxpy.cu", device="cuda") as mod:
    saxpy = mod.get_function("saxpy")
    print(f"module: {mod.origin}; saxpy uses {saxpy.attributes['num_regs']} registers")
saxpy((n + 255) // 256, 256, (np.float32(2), x, y, np.uint64(n)))
expected = 2 * x_h + y_h
err = float(np.abs(y.numpy() - expected).max())
print(f"saxpy, block 256: max |error| = {err:.2e}")
assert err < 1e-5

# launch_auto times the candidate block sizes at its first launch, running the
# kernel several times: it must give the same result each time, so this one
# writes y from a separate y0 instead of updating y in place as saxpy does.
y0 = ek.from_numpy(y_h, device="cuda")
y = ek.empty(n, device="cuda")
axpy_to = ek.RawModule(r'''
extern "C" __global__ void axpy_to(float a, const float *x, const float *y0, float *y,
                                   unsigned long long n) {
  unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y0[i];
}''', device="cuda").get_function("axpy_to")
block = axpy_to.launch_auto(n, (np.float32(2), x, y0, y, np.uint64(n)))
err = float(np.abs(y.numpy() - expected).max())
print(f"axpy_to, autotuned block {block}: max |error| = {err:.2e}")
assert err < 1e-5
saxpy.close()
axpy_to.close()

# 2. ElementwiseKernel: the body sees each parameter as one element; inputs
#    broadcast as in NumPy; the output is allocated unless given.
fma_relu = ek.ElementwiseKernel("float32 x, float32 y", "float32 z",
                                "z = x * y + max(x, 0.0f)", "fma_relu")
a_h = rng.standard_normal((512, 256)).astype(np.float32)
b_h = rng.standard_normal((1, 256)).astype(np.float32)
z = fma_relu(ek.from_numpy(a_h, device="cuda"), ek.from_numpy(b_h, device="cuda"))
err = float(np.abs(z.numpy() - (a_h * b_h + np.maximum(a_h, 0))).max())
print(f"fma_relu over {z.shape}: max |error| = {err:.2e}")
assert err < 1e-5
fma_relu.close()
print("ok")

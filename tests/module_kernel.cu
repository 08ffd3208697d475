// Built ahead of time by meson (tests/meson.build) into a cubin (sm_90), a
// fatbin (sm_80, sm_90, compute_90) and PTX (compute_80) for test_module's
// ek_module_from_image cases.
extern "C" __global__ void scale(unsigned long long n, float a, const float *x, float *y) {
  unsigned long long i = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
  if (i < n) y[i] = a * x[i];
}

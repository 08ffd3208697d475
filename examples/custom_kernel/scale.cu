// y = a * x over n floats: the kernel static.c loads from the fatbin meson
// builds of this file (sm_80 and sm_90 code, plus compute_90 PTX that the
// driver compiles for newer GPUs):
//
//   nvcc -fatbin -gencode arch=compute_80,code=sm_80 \
//        -gencode arch=compute_90,code=[sm_90,compute_90] -o scale.fatbin scale.cu
//
// extern "C" keeps the symbol name "scale", which ek_module_get_kernel looks up.
extern "C" __global__ void scale(unsigned long long n, float a, const float *x, float *y) {
  unsigned long long i = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
  if (i < n) y[i] = a * x[i];
}

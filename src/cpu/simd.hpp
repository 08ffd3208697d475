// The CPU backend's hot loops, built once per x86-64 ISA level (baseline
// SSE2, AVX2, AVX-512: meson.build compiles src/cpu/simd_kernels.cpp three
// times) and picked at run time, so a distributed library runs the best
// loops the CPU has. Every level runs the same C++ with -ffp-contract=off
// and no reassociation: vector lanes do what the scalar code says, in the
// same order, so all levels give the same bits (tests/test_cpu_simd.cpp).
//
// EK_CPU_ISA=baseline|avx2|avx512 forces a level, read once per process (an
// unknown one, or one the CPU lacks, is ignored: the best available is used).
#pragma once
#include <cstdint>

namespace ek {
namespace cpu {
namespace simd {

enum Isa : int { kBaseline = 0, kAvx2 = 1, kAvx512 = 2, kIsaCount = 3 };

// The summation order of every float sum (ek_reduce's sum, mean, norms, var,
// std), whatever the layout and the thread count: pairwise over the n
// elements of a line - a range longer than kLeaf splits at lo + (hi - lo) / 2,
// its halves summed recursively and added (left + right) - and a leaf of at
// most kLeaf elements sums element k (from the leaf's start) into lane
// k % kLanes, each lane in order, the lanes then added as a balanced tree of
// adjacent pairs (combine_lanes). Sums in double, each element first mapped
// (v, |v|, v^2 or (v - c)^2).
constexpr int64_t kLanes = 16;
constexpr int64_t kLeaf = 1024;

// Reduction kinds with a leaf kernel (ops/reduce_plan.hpp: kRSum..kRSumSqDev)
// and dtypes (0: f32, 1: f64, 2: f16, 3: bf16; dtype_slot()).
constexpr int kSumKinds = 4, kSumDtypes = 4;

// A leaf of a contiguous line: n <= kLeaf elements from in.
using LeafFn = double (*)(const char *in, int64_t n, double c);
// Leaves of w lines side by side (a reduction over a non-innermost dim):
// rows <= kLeaf rows row_stride bytes apart, w contiguous elements each;
// res[i] is line i's leaf sum. acc: scratch of kLanes * w doubles; c: w
// centers (read by kRSumSqDev only).
using RowsLeafFn = void (*)(const char *in, int64_t row_stride, int64_t rows, int64_t w, const double *c,
                            double *acc, double *res);
// Ops whose whole output is at least this large write it with streaming
// (non-temporal) stores (the `stream` argument below): an output that size
// leaves the last-level cache behind it anyway, and a normal store would
// first read each output line from memory (a third of an exp's memory
// traffic, a quarter of an add's). Smaller outputs stay in cache for the
// next op.
constexpr int64_t kStreamBytes = int64_t(16) << 20;

// out[i] = exp(in[i]) in float32 (vecmath.hpp: the error bound); stream:
// streaming stores (kStreamBytes).
using ExpF32Fn = void (*)(float *out, const float *in, int64_t n, bool stream);

// Softmax (log_softmax != 0: log-softmax) of one contiguous float32 row of
// n elements; out may be in.
using SoftmaxF32Fn = void (*)(float *out, const float *in, int64_t n, int log_softmax);

// out = a op b over n float32 elements (op: add, sub, mul, div), a and b
// runs or, where the table's step slot says so, the single values va / vb;
// stream: streaming stores (kStreamBytes).
using BinaryF32Fn = void (*)(char *out, const char *a, const char *b, float va, float vb, int64_t n, bool stream);
constexpr int kBinaryOps = 4;  // add, sub, mul, div
constexpr int kBinarySteps = 3;  // (run, run), (run, value), (value, run)

struct Kernels {
  LeafFn leaf[kSumDtypes][kSumKinds];
  RowsLeafFn rows_leaf[kSumDtypes][kSumKinds];
  ExpF32Fn exp_f32;
  SoftmaxF32Fn softmax_f32;
  BinaryF32Fn binary_f32[kBinaryOps][kBinarySteps];
};

// The level in use (EK_CPU_ISA or the best the CPU supports; decided once).
Isa isa();
// The kernels of that level; of another one (tests) when the CPU has it,
// else nullptr.
const Kernels &kernels();
const Kernels *kernels_for(Isa level);
bool cpu_has(Isa level);
const char *isa_name(Isa level);

// The slot of a float dtype in the tables, -1 for others.
int dtype_slot(int dtype);

}  // namespace simd
}  // namespace cpu
}  // namespace ek

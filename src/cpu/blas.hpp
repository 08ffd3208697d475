// A CBLAS (OpenBLAS, the system's libblas.so.3, ...) opened at run time, as
// cuBLAS is on CUDA: libek links none, so it loads and runs without one, and
// the packed loops of matmul.cpp stay the fallback.
#pragma once
#include <string>

#include "ops/gemm_plan.hpp"

namespace ek {
namespace cpu {
namespace blas {

// CBLAS's gemm: (layout, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb,
// beta, c, ldc) with CBLAS's 32-bit ints (the LP64 interface).
template <typename T>
using GemmFn = void (*)(int, int, int, int, int, int, T, const T *, int, const T *, int, T, T *,
                        int);

// The entry points of the BLAS in use, or none (usable() false). `what` names
// the file loaded, or says why none was.
struct Library {
  GemmFn<float> sgemm = nullptr;
  GemmFn<double> dgemm = nullptr;
  std::string what;
  bool override_failed = false;  // EK_BLAS_LIBRARY named a file that did not load
  bool usable() const { return sgemm && dgemm; }
};

// The library for these values of EK_BLAS ("0" or "off": none) and
// EK_BLAS_LIBRARY (a file to load instead of the default list); either may
// be null. Libraries stay open for the life of the process.
Library load(const char *enable, const char *file);

// The process's, loaded at the first call from the environment.
const Library &library();

// Whether lib runs p: a float32 or float64 plan whose sizes fit CBLAS's int.
bool accepts(const Library &lib, const GemmPlan &p);

// Runs a valid plan that lib accepts: one gemm per problem of the batch.
void gemm(const Library &lib, const GemmPlan &p);

}  // namespace blas
}  // namespace cpu
}  // namespace ek

// CBLAS through dlopen. Plans are column-major with transpose flags and
// leading dims already (ops/gemm_plan.hpp), so they pass to cblas_?gemm as
// they are; no operand is copied.
#include "cpu/blas.hpp"

#include <dlfcn.h>
#include <strings.h>

#include <climits>
#include <cstdlib>
#include <cstring>

#include "util/dynlib.hpp"

namespace ek {
namespace cpu {
namespace blas {
namespace {

// CBLAS's enum values (cblas.h).
constexpr int kColMajor = 102, kNoTrans = 111, kTrans = 112;

// OpenBLAS first; then Debian's alternatives link (OpenBLAS, BLIS or the
// reference BLAS, which all export CBLAS); then a separate CBLAS.
const char *const kDefaultFiles[] = {"libopenblas.so.0", "libblas.so.3", "libcblas.so.3",
                                     "libcblas.so"};

bool disabled(const char *enable) {
  return enable && (std::strcmp(enable, "0") == 0 || strcasecmp(enable, "off") == 0);
}

// Opens file and takes both gemms from it; false (the library closed, *why
// saying so) when it does not open or lacks one.
bool try_file(const char *file, Library *lib, std::string *why) {
  void *handle = dlopen(file, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *e = dlerror();
    *why = e ? e : "dlopen failed";
    return false;
  }
  if (resolve(handle, "cblas_sgemm", &lib->sgemm) && resolve(handle, "cblas_dgemm", &lib->dgemm)) {
    lib->what = file;
    return true;
  }
  lib->sgemm = nullptr;
  lib->dgemm = nullptr;
  *why = std::string(file) + " has no cblas_sgemm/cblas_dgemm";
  dlclose(handle);
  return false;
}

}  // namespace

Library load(const char *enable, const char *file) {
  Library lib;
  if (disabled(enable)) {
    lib.what = "none (EK_BLAS=" + std::string(enable) + "): the built-in loops";
    return lib;
  }
  std::string tried, why;
  const bool given = file && *file;
  const char *const *files = given ? &file : kDefaultFiles;
  const size_t count = given ? 1 : sizeof kDefaultFiles / sizeof kDefaultFiles[0];
  for (size_t i = 0; i < count; ++i) {
    if (try_file(files[i], &lib, &why)) return lib;
    tried += std::string(i == 0 ? "" : ", ") + files[i];
  }
  lib.override_failed = given;
  lib.what = "none loaded (tried " + tried + "; last error: " + why + "): the built-in loops";
  return lib;
}

const Library &library() {
  static const Library lib = load(std::getenv("EK_BLAS"), std::getenv("EK_BLAS_LIBRARY"));
  return lib;
}

bool accepts(const Library &lib, const GemmPlan &p) {
  if (!lib.usable() || (p.dtype != kF32 && p.dtype != kF64)) return false;
  for (int64_t v : {p.m, p.n, p.k, p.lda, p.ldb, p.ldc})
    if (v > INT_MAX) return false;
  return true;
}

// beta == 0 never reads C (NaN there included): the reference BLAS and
// OpenBLAS zero C first, as the BLAS standard asks ("C need not be set on
// input"); tests/test_cpu_blas.cpp checks it on the library in use.
void gemm(const Library &lib, const GemmPlan &p) {
  const int ta = p.trans_a ? kTrans : kNoTrans, tb = p.trans_b ? kTrans : kNoTrans;
  const int m = static_cast<int>(p.m), n = static_cast<int>(p.n), k = static_cast<int>(p.k);
  const int lda = static_cast<int>(p.lda), ldb = static_cast<int>(p.ldb);
  const int ldc = static_cast<int>(p.ldc);
  for (int64_t q = 0; q < p.batch; ++q) {
    if (p.dtype == kF32) {
      lib.sgemm(kColMajor, ta, tb, m, n, k, static_cast<float>(p.alpha),
                static_cast<const float *>(p.a) + q * p.stride_a, lda,
                static_cast<const float *>(p.b) + q * p.stride_b, ldb, static_cast<float>(p.beta),
                static_cast<float *>(p.c) + q * p.stride_c, ldc);
    } else {
      lib.dgemm(kColMajor, ta, tb, m, n, k, p.alpha, static_cast<const double *>(p.a) + q * p.stride_a,
                lda, static_cast<const double *>(p.b) + q * p.stride_b, ldb, p.beta,
                static_cast<double *>(p.c) + q * p.stride_c, ldc);
    }
  }
}

}  // namespace blas
}  // namespace cpu
}  // namespace ek

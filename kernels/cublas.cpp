// cuBLAS through dlopen: the header gives the types only (nothing here is
// linked), the entry points come from dlsym on first use.
#include "kernels/cublas.hpp"

#include "core/gpu.hpp"

#include <cublas_api.h>

#include <climits>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>

#include "util/dynlib.hpp"

namespace ek::blas {
namespace {

using CreateFn = cublasStatus_t (*)(cublasHandle_t *);
using DestroyFn = cublasStatus_t (*)(cublasHandle_t);
using SetStreamFn = cublasStatus_t (*)(cublasHandle_t, cudaStream_t);
using SetMathModeFn = cublasStatus_t (*)(cublasHandle_t, cublasMath_t);
using StatusNameFn = const char *(*)(cublasStatus_t);
using SetWorkspaceFn = cublasStatus_t (*)(cublasHandle_t, void *, size_t);
template <typename Int>
using GemmFn = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, Int, Int,
                                  Int, const void *, const void *, cudaDataType, Int,
                                  const void *, cudaDataType, Int, const void *, void *,
                                  cudaDataType, Int, cublasComputeType_t, cublasGemmAlgo_t);
template <typename Int>
using BatchedFn = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, Int,
                                     Int, Int, const void *, const void *, cudaDataType, Int,
                                     long long, const void *, cudaDataType, Int, long long,
                                     const void *, void *, cudaDataType, Int, long long, Int,
                                     cublasComputeType_t, cublasGemmAlgo_t);

// The entry points of the loaded library; `error` says why loading failed.
struct Library {
  CreateFn create = nullptr;
  DestroyFn destroy = nullptr;
  SetStreamFn set_stream = nullptr;
  SetMathModeFn set_math_mode = nullptr;
  GemmFn<int> gemm = nullptr;
  BatchedFn<int> batched = nullptr;
  GemmFn<int64_t> gemm64 = nullptr;     // optional (cuBLAS 12+): sizes beyond INT_MAX
  BatchedFn<int64_t> batched64 = nullptr;
  StatusNameFn status_name = nullptr;   // optional
  SetWorkspaceFn set_workspace = nullptr;  // optional (cuBLAS 11.4+): captures' workspaces
  std::string error;
};

Library load() {
  static const char *const kFiles[] = {"libcublas.so.13", "libcublas.so.12", "libcublas.so"};
  Library l;
  const char *file = nullptr;
  void *lib = open_first(kFiles, "cuBLAS", "install cuBLAS or add its directory to LD_LIBRARY_PATH",
                         &file, &l.error);
  if (!lib) return l;
  const char *missing = nullptr;
  if (!resolve(lib, "cublasCreate_v2", &l.create)) missing = "cublasCreate_v2";
  else if (!resolve(lib, "cublasDestroy_v2", &l.destroy)) missing = "cublasDestroy_v2";
  else if (!resolve(lib, "cublasSetStream_v2", &l.set_stream)) missing = "cublasSetStream_v2";
  else if (!resolve(lib, "cublasSetMathMode", &l.set_math_mode)) missing = "cublasSetMathMode";
  else if (!resolve(lib, "cublasGemmEx", &l.gemm)) missing = "cublasGemmEx";
  else if (!resolve(lib, "cublasGemmStridedBatchedEx", &l.batched))
    missing = "cublasGemmStridedBatchedEx";
  if (missing) {
    l.error = std::string(file) + " lacks " + missing + " (cuBLAS 11 or newer is needed)";
    return l;
  }
  resolve(lib, "cublasGemmEx_64", &l.gemm64);
  resolve(lib, "cublasGemmStridedBatchedEx_64", &l.batched64);
  resolve(lib, "cublasGetStatusName", &l.status_name);
  resolve(lib, "cublasSetWorkspace_v2", &l.set_workspace);
  return l;  // lib stays open for the life of the process
}

const Library &library() {
  static const Library lib = load();
  return lib;
}

ek_status check(cublasStatus_t st, const char *call) {
  if (st == CUBLAS_STATUS_SUCCESS) return EK_SUCCESS;
  ek_status status = EK_ERROR_DEVICE;
  if (st == CUBLAS_STATUS_ALLOC_FAILED) status = EK_ERROR_OUT_OF_MEMORY;
  if (st == CUBLAS_STATUS_NOT_SUPPORTED || st == CUBLAS_STATUS_ARCH_MISMATCH)
    status = EK_ERROR_NOT_SUPPORTED;
  if (st == CUBLAS_STATUS_INVALID_VALUE) status = EK_ERROR_INTERNAL;  // our arguments
  const char *name = library().status_name ? library().status_name(st) : nullptr;
  return fail(status, "%s failed: %s (%d)", call, name ? name : "cuBLAS error",
              static_cast<int>(st));
}

// A context's handle. cuBLAS keeps the stream in the handle, so one op at a
// time sets it and enqueues under the mutex.
struct Handle {
  std::mutex mutex;
  cublasHandle_t handle = nullptr;
  cudaStream_t stream = nullptr;  // a new handle runs on the legacy stream 0
};

std::mutex g_create_mutex;  // two threads' first products on one context

void release(ek_context ctx) {
  auto *h = static_cast<Handle *>(ctx->blas.exchange(nullptr));
  if (!h) return;
  // The last stream the handle ran on may be destroyed already: detach first.
  library().set_stream(h->handle, nullptr);
  library().destroy(h->handle);
  delete h;
}

ek_status create_handle(ek_context ctx, Handle **out) {
  const Library &lib = library();
  EK_CHECK(lib.error.empty(), EK_ERROR_LIBRARY, "%s", lib.error.c_str());
  std::lock_guard<std::mutex> lock(g_create_mutex);
  if (void *h = ctx->blas.load()) {
    *out = static_cast<Handle *>(h);
    return EK_SUCCESS;
  }
  auto h = std::make_unique<Handle>();
  {
    gpu::RelaxedWhileCapturing relaxed;  // the first product may be captured
    EK_FORWARD(check(lib.create(&h->handle), "cublasCreate"));
  }
  // f16/bf16 keep f32 partial sums even in split-k reductions, as documented.
  auto mode = static_cast<cublasMath_t>(CUBLAS_DEFAULT_MATH |
                                        CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION);
  ek_status st = check(lib.set_math_mode(h->handle, mode), "cublasSetMathMode");
  if (st != EK_SUCCESS) {
    lib.destroy(h->handle);
    return st;
  }
  ctx->release_blas = &release;
  *out = h.get();
  ctx->blas.store(h.release(), std::memory_order_release);
  return EK_SUCCESS;
}

ek_status handle_of(ek_context ctx, Handle **out) {
  if (void *h = ctx->blas.load(std::memory_order_acquire)) {
    *out = static_cast<Handle *>(h);
    return EK_SUCCESS;
  }
  return create_handle(ctx, out);
}

// Data type, compute type and alpha/beta in the compute type's precision;
// {re, im} pairs, which complex types read whole and real ones by their
// first element (im is 0 for them). Aligned as cuComplex (float2) and
// cuDoubleComplex (double2): cuBLASLt's zgemm loads alpha and beta with
// 16-byte aligned moves, and an 8-aligned pair crashed it (SIGSEGV) whenever
// the stack put it there.
struct Types {
  cudaDataType data;
  cublasComputeType_t compute;
  alignas(8) float falpha[2];
  alignas(8) float fbeta[2];
  alignas(16) double dalpha[2];
  alignas(16) double dbeta[2];
  bool f64() const { return compute == CUBLAS_COMPUTE_64F; }
  const void *alpha() const { return f64() ? static_cast<const void *>(dalpha) : falpha; }
  const void *beta() const { return f64() ? static_cast<const void *>(dbeta) : fbeta; }
};

Types types_of(const GemmPlan &p) {
  Types t{CUDA_R_64F, CUBLAS_COMPUTE_64F, {static_cast<float>(p.alpha), static_cast<float>(p.alpha_im)},
          {static_cast<float>(p.beta), static_cast<float>(p.beta_im)}, {p.alpha, p.alpha_im}, {p.beta, p.beta_im}};
  switch (p.dtype) {
    case kF16: t.data = CUDA_R_16F; t.compute = CUBLAS_COMPUTE_32F; break;
    case kBF16: t.data = CUDA_R_16BF; t.compute = CUBLAS_COMPUTE_32F; break;
    case kF32:
      t.data = CUDA_R_32F;
      t.compute = p.tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
      break;
    case kC64: t.data = CUDA_C_32F; t.compute = CUBLAS_COMPUTE_32F; break;  // cgemm
    case kC128: t.data = CUDA_C_64F; break;                                  // zgemm
    default: break;  // kF64
  }
  return t;
}

// One call through the 32-bit or the 64-bit entry points.
template <typename Int>
cublasStatus_t call(GemmFn<Int> gemm, BatchedFn<Int> batched, cublasHandle_t h,
                    const GemmPlan &p, const Types &t) {
  const cublasOperation_t ta = p.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t tb = p.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  const auto m = static_cast<Int>(p.m), n = static_cast<Int>(p.n), k = static_cast<Int>(p.k);
  const auto lda = static_cast<Int>(p.lda), ldb = static_cast<Int>(p.ldb);
  const auto ldc = static_cast<Int>(p.ldc);
  if (p.batch == 1)
    return gemm(h, ta, tb, m, n, k, t.alpha(), p.a, t.data, lda, p.b, t.data, ldb, t.beta(), p.c,
                t.data, ldc, t.compute, CUBLAS_GEMM_DEFAULT);
  return batched(h, ta, tb, m, n, k, t.alpha(), p.a, t.data, lda, p.stride_a, p.b, t.data, ldb,
                 p.stride_b, t.beta(), p.c, t.data, ldc, p.stride_c, static_cast<Int>(p.batch),
                 t.compute, CUBLAS_GEMM_DEFAULT);
}

bool fits_int(const GemmPlan &p) {
  for (int64_t v : {p.m, p.n, p.k, p.lda, p.ldb, p.ldc, p.batch})
    if (v > INT_MAX) return false;
  return true;
}

// "cublasGemmEx (m=.. n=.. k=.. batch=.., float32)", built only for a message.
std::string describe(const GemmPlan &p) {
  char text[160];
  std::snprintf(text, sizeof text, "cublasGemm%sEx (m=%lld n=%lld k=%lld batch=%lld, %s)",
                p.batch == 1 ? "" : "StridedBatched", static_cast<long long>(p.m),
                static_cast<long long>(p.n), static_cast<long long>(p.k),
                static_cast<long long>(p.batch), ek_dtype_name(static_cast<ek_dtype>(p.dtype)));
  return text;
}

ek_status enqueue(cublasHandle_t h, const GemmPlan &p) {
  const Library &lib = library();
  const Types t = types_of(p);
  cublasStatus_t st = CUBLAS_STATUS_SUCCESS;
  if (fits_int(p)) {
    st = call<int>(lib.gemm, lib.batched, h, p, t);
  } else {
    EK_CHECK(lib.gemm64 && lib.batched64, EK_ERROR_NOT_SUPPORTED,
             "%s: a size exceeds 2^31-1 and this cuBLAS has no 64-bit entry points (cuBLAS 12+)",
             describe(p).c_str());
    st = call<int64_t>(lib.gemm64, lib.batched64, h, p, t);
  }
  return st == CUBLAS_STATUS_SUCCESS ? EK_SUCCESS : check(st, describe(p).c_str());
}

}  // namespace

ek_status gemm(ek_context ctx, void *stream, const GemmPlan &p, void *workspace,
               size_t workspace_bytes) {
  Handle *h = nullptr;
  EK_FORWARD(handle_of(ctx, &h));
  std::lock_guard<std::mutex> lock(h->mutex);
  auto s = static_cast<cudaStream_t>(stream);
  if (s != h->stream) {
    EK_FORWARD(check(library().set_stream(h->handle, s), "cublasSetStream"));
    h->stream = s;
  }
  if (!workspace || !library().set_workspace) return enqueue(h->handle, p);
  EK_FORWARD(check(library().set_workspace(h->handle, workspace, workspace_bytes),
                   "cublasSetWorkspace"));
  ek_status st = enqueue(h->handle, p);
  // The block goes back to its pool after this call: the next call's
  // cublasSetStream puts the handle back on its default workspace.
  h->stream = nullptr;
  return st;
}

}  // namespace ek::blas

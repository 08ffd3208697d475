// cuBLAS behind a narrow interface. The library is opened with dlopen on first
// use (libcublas.so.13, then .so.12, then .so), so libek neither links it nor
// needs it for CPU contexts; each context gets its own handle on first use,
// destroyed with the context. Built only with CUDA (meson.build).
#pragma once

#include "ops/gemm_plan.hpp"
#include "core/internal.hpp"

namespace ek::blas {

// Enqueues the plan on `stream` (a cudaStream_t) with ctx's handle; ctx's
// device must be current (activate). Never synchronizes. f16/bf16 and f32
// compute in f32 (TF32 tensor cores for f32 only when p.tf32), f64 in f64.
// EK_ERROR_LIBRARY naming the files tried when cuBLAS cannot be loaded.
// workspace (may be NULL): cuBLAS's workspace for this product, which a
// captured product needs from the capture's pool (cuBLAS must not allocate).
ek_status gemm(ek_context ctx, void *stream, const GemmPlan &p, void *workspace = nullptr,
               size_t workspace_bytes = 0);

}  // namespace ek::blas

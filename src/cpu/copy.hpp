// CPU backend of the data-movement ops: the reference the CUDA kernels are
// checked against. All return 0 on success, nonzero on invalid arguments
// (unknown dtype, ndim out of range, negative size, shape mismatch).
#pragma once
#include <cstdint>

#include "ops/tensor_desc.hpp"

namespace ek {
struct RangePlan;
namespace cpu {

// dst[idx] = cast(src[idx]); shapes must match (broadcasts already expanded to
// stride 0). dst must not partially overlap src. stream is ignored; threads:
// as cpu::unary's (cpu/elementwise.hpp).
int copy(const TensorDesc &dst, const TensorDesc &src, void *stream = nullptr, int threads = 1);

// Every element of dst = elem, one element's bytes in elem's low bytes (the
// caller converts the value: detail::scalar_element).
int fill(const TensorDesc &dst, uint64_t elem, void *stream = nullptr);

// Element i (C order of dst's shape) = detail::range_scalar(p, i): arange, linspace.
int arange(const TensorDesc &dst, const RangePlan &p, void *stream = nullptr);

}  // namespace cpu
}  // namespace ek

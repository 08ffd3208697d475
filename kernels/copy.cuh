// CUDA backend of the data-movement ops. Plain-C++ includable: no CUDA headers;
// `stream` is a cudaStream_t passed as void* (nullptr = legacy default stream).
// Each returns a cudaError_t value (0 = cudaSuccess); launches are asynchronous.
// Semantics match ek::cpu (src/cpu/copy.hpp) byte for byte.
#pragma once
#include <cstdint>

#include "ops/tensor_desc.hpp"

namespace ek {
struct RangePlan;
namespace cuda {

// dst[idx] = cast(src[idx]), same shape, any strides/dtypes. Paths: contiguous
// same dtype -> 16-byte vectorised copy; permuted 2-D/3-D same dtype -> tiled
// shared-memory transpose; otherwise a strided (and/or casting) kernel.
int copy(const TensorDesc &dst, const TensorDesc &src, void *stream);

// Every element of dst = elem, one element's bytes in elem's low bytes (the
// caller converts the value: detail::scalar_element).
int fill(const TensorDesc &dst, uint64_t elem, void *stream);

// Element i (C order of dst's shape) = detail::range_scalar(p, i): arange, linspace.
int arange(const TensorDesc &dst, const RangePlan &p, void *stream);

}  // namespace cuda
}  // namespace ek

// Copies, casts and fills of the complex dtypes, through the backends' real
// ones (complex -> bool through the complex kernel's not_equal): a complex layout is two float layouts (its parts, strides doubled) or,
// with a dim to spare, one float layout with a last dim of 2 (which coalesces
// to the plain copy of contiguous data). The backends never see a complex
// dtype here.
#include "core/backend.hpp"
#include "core/internal.hpp"
#include "ops/complex_plan.hpp"

namespace ek {
namespace {

// d viewed as floats with a last dim of two (the parts); needs ndim < kMaxDims.
TensorDesc as_real(const TensorDesc &d) {
  TensorDesc r = d;
  r.dtype = complex_part_dtype(d.dtype);
  for (int i = 0; i < d.ndim; ++i) r.strides[i] = 2 * d.strides[i];
  r.shape[d.ndim] = 2;
  r.strides[d.ndim] = 1;
  r.ndim = d.ndim + 1;
  return r;
}

ek_scalar float_scalar(double f) {
  ek_scalar v{};
  v.kind = EK_SCALAR_FLOAT64;
  v.f = f;
  return v;
}

}  // namespace

TensorDesc complex_part(const TensorDesc &d, int part) {
  TensorDesc r = d;
  r.dtype = complex_part_dtype(d.dtype);
  for (int i = 0; i < d.ndim; ++i) r.strides[i] = 2 * d.strides[i];
  r.data = static_cast<char *>(d.data) + part * dtype_size(r.dtype);
  return r;
}

ek_status check_cast(ek_dtype from, ek_dtype to) {
  EK_CHECK(!dtype_is_complex(from) || dtype_is_complex(to) || to == EK_BOOL, EK_ERROR_DTYPE,
           "cannot cast %s to %s: the imaginary part would be lost (take ek_view_real, ek_view_imag or "
           "abs explicitly)",
           ek_dtype_name(from), ek_dtype_name(to));
  return EK_SUCCESS;
}

ek_status complex_device_copy(ek_context ctx, ek_stream s, const TensorDesc &dst, const TensorDesc &src) {
  EK_FORWARD(check_cast(static_cast<ek_dtype>(src.dtype), static_cast<ek_dtype>(dst.dtype)));
  const Backend &b = *ctx->backend;
  if (dst.dtype == kBool) {  // x != 0, as NumPy: the complex kernel's not_equal stores bool
    cx::Args g{};
    g.op = EK_BINARY_NE;
    g.binary = true;
    g.scalar = 2;
    g.out = dst;
    g.a = src;
    return b.complex_elementwise(ctx, s, g);
  }
  if (!dtype_is_complex(src.dtype)) {  // (x, 0)
    EK_FORWARD(b.copy(ctx, s, complex_part(dst, 0), src));
    return fill_value(ctx, s, complex_part(dst, 1), int_scalar(0));
  }
  if (dst.ndim < kMaxDims) return b.copy(ctx, s, as_real(dst), as_real(src));
  EK_FORWARD(b.copy(ctx, s, complex_part(dst, 0), complex_part(src, 0)));
  return b.copy(ctx, s, complex_part(dst, 1), complex_part(src, 1));
}

ek_status fill_value(ek_context ctx, ek_stream s, const TensorDesc &d, const ek_scalar &value) {
  if (!dtype_is_complex(d.dtype)) {
    uint64_t elem = 0;
    EK_FORWARD(scalar_to_element(value, static_cast<ek_dtype>(d.dtype), &elem));
    return ctx->backend->fill(ctx, s, d, elem);
  }
  EK_FORWARD(check_scalar_or_complex(value, "value"));
  const bool cx = value.kind == EK_SCALAR_COMPLEX;
  EK_FORWARD(fill_value(ctx, s, complex_part(d, 0), cx ? float_scalar(value.f) : value));
  return fill_value(ctx, s, complex_part(d, 1), float_scalar(cx ? value.imag : 0.0));
}

}  // namespace ek

// The host layer shared by the ops along one dim (src/ops/softmax.cpp,
// src/ops/scan.cpp): argument checks, the output convention, and the layout the
// backends see, a contiguous (outer, n, inner) block (src/ops/dim_plan.hpp).
//
// x is used as it is when it is contiguous in the op's dtype, else one copy
// kernel packs (and casts) it into pool scratch; out is written directly when
// it is contiguous, else through scratch and one copy into its strides. So the
// common contiguous cases - last dim or not - read x once and write out once.
#pragma once

#include "ops/dim_plan.hpp"
#include "core/internal.hpp"

namespace ek {
namespace dimop {

inline TensorDesc contiguous_like(void *data, int dtype, const TensorDesc &shape_of) {
  TensorDesc d = shape_of;
  d.data = data;
  d.dtype = dtype;
  contiguous_strides(d.ndim, d.shape, d.strides);
  return d;
}

inline size_t bytes_of(const TensorDesc &d) {
  return static_cast<size_t>(desc_numel(d)) * dtype_size(d.dtype);
}

// x's shape as (outer, n, inner) around dim (already wrapped; 0-d: 1, 1, 1).
inline void block_shape(const ek_tensor_s *x, int dim, DimPlan *p) {
  p->outer = p->n = p->inner = 1;
  for (int d = 0; d < x->ndim; ++d) {
    if (d < dim) p->outer *= x->shape[d];
    else if (d == dim) p->n = x->shape[d];
    else p->inner *= x->shape[d];
  }
}

// Runs launch(plan) for x along dim into out (x's shape, the op's dtype).
// out == x exactly is in place (each backend reads an element before writing
// it); any other overlap is refused, as PyTorch does.
template <typename Launch>  // Launch: ek_status(const DimPlan &)
ek_status run(ek_context ctx, ek_stream s, const ek_tensor_s *x, int dim, ek_tensor out,
              Launch launch) {
  const TensorDesc xd = tensor_desc(x), od = tensor_desc(out);
  if (desc_numel(od) == 0) return EK_SUCCESS;
  EK_CHECK(same_layout(od, xd) || !ranges_overlap(od, xd), EK_ERROR_INVALID_ARGUMENT,
           "out partially overlaps x (only exact aliasing, out == x, is allowed)");
  DimPlan p;
  p.dtype = out->dtype;
  block_shape(x, dim, &p);
  Scratch packed(ctx, s), result(ctx, s);
  p.in = tensor_data(x);
  if (x->dtype != out->dtype || !tensor_contiguous(x)) {
    TensorDesc dst = contiguous_like(nullptr, out->dtype, xd);
    EK_FORWARD(packed.allocate(bytes_of(dst)));
    dst.data = packed.get();
    EK_FORWARD(device_copy(ctx, s, dst, xd));
    p.in = packed.get();
  }
  const bool direct_out = tensor_contiguous(out);
  p.out = tensor_data(out);
  if (!direct_out) {
    EK_FORWARD(result.allocate(bytes_of(od)));
    p.out = result.get();
  }
  EK_FORWARD(launch(p));
  if (direct_out) return EK_SUCCESS;
  return device_copy(ctx, s, od, contiguous_like(result.get(), out->dtype, od));
}

// A whole public entry after the op's own dtype check: dim, stream, out.
template <typename Launch>  // Launch: ek_status(ek_context, ek_stream, const DimPlan &)
ek_status entry(ek_stream stream, ek_tensor x, int dim, ek_dtype out_dtype, ek_tensor *out,
                Launch launch) {
  int d = 0;
  EK_FORWARD(wrap_dim(dim, x->ndim, "dim", &d));
  ek_context ctx = x->storage->ctx;
  ek_stream s = nullptr;
  EK_FORWARD(resolve_stream(ctx, stream, &s));
  return fill_out(ctx, s, x->ndim, x->shape, out_dtype, out, [&](ek_tensor o) {
    return run(ctx, s, x, d, o, [&](const DimPlan &p) { return launch(ctx, s, p); });
  });
}

}  // namespace dimop
}  // namespace ek

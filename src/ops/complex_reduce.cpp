// prod and cumprod of the complex dtypes, composed from the complex multiply
// (ek_binary over strided views): no kernel of their own, so the CPU and CUDA
// run the same products in the same order and agree bit for bit. A product
// does not split into its parts as sum does; a sequential chain would leave
// a GPU idle, so both run as trees of elementwise launches (log2 n of them),
// in complex128 whatever the input (complex64 rounds once, at the end, as
// the real CPU prod of float32 accumulates in double).
#include "core/internal.hpp"
#include "ops/complex.hpp"
#include "ops/matmul.hpp"

namespace ek {
namespace {

ek_tensor owned_view(ek_status *st, ek_tensor t, int dim, int64_t start, int64_t stop) {
  ek_tensor v = nullptr;
  if (*st == EK_SUCCESS) *st = ek_view_slice(t, dim, start, stop, 1, &v);
  return v;
}

// out = a * b into a view of `into` (dim's [start, stop)), or a plain copy of a when b is NULL.
ek_status mul_into(ek_stream s, ek_tensor a, ek_tensor b, ek_tensor into, int dim, int64_t start, int64_t stop) {
  ek_status st = EK_SUCCESS;
  OwnedTensor o(owned_view(&st, into, dim, start, stop));
  EK_FORWARD(st);
  ek_tensor t = o.get();
  return b ? ek_binary(s, EK_BINARY_MUL, a, b, &t) : ek_copy(s, a, t);
}

// A new contiguous complex128 tensor of x's shape; with copy, x's values.
ek_status wide_like(ek_stream s, ek_tensor x, bool copy, OwnedTensor *out) {
  ek_tensor w = nullptr;
  EK_FORWARD(new_tensor(x->storage->ctx, x->ndim, x->shape, EK_COMPLEX128, s, &w));
  out->reset(w);
  return copy ? ek_copy(s, x, w) : EK_SUCCESS;
}

// cur[:, :n/2] * cur[:, ceil(n/2):] into next's first n/2 columns, the odd
// middle column copied after them: cur [m, n] becomes [m, ceil(n/2)].
ek_status halve(ek_stream s, ek_tensor cur, OwnedTensor *next) {
  const int64_t n = cur->shape[1], h = (n + 1) / 2, f = n / 2;
  const int64_t shape[2] = {cur->shape[0], h};
  ek_tensor t = nullptr;
  EK_FORWARD(new_tensor(cur->storage->ctx, 2, shape, EK_COMPLEX128, s, &t));
  next->reset(t);
  ek_status st = EK_SUCCESS;
  OwnedTensor a(owned_view(&st, cur, 1, 0, f)), b(owned_view(&st, cur, 1, h, n));
  EK_FORWARD(st);
  EK_FORWARD(mul_into(s, a.get(), b.get(), t, 1, 0, f));
  if (h == f) return EK_SUCCESS;
  OwnedTensor mid(owned_view(&st, cur, 1, f, h));
  EK_FORWARD(st);
  return mul_into(s, mid.get(), nullptr, t, 1, f, h);
}

// One Hillis-Steele step along dim d: next[i] = cur[i - k] * cur[i] for i >= k, cur[i] below.
ek_status scan_step(ek_stream s, ek_tensor cur, int d, int64_t k, ek_tensor next) {
  const int64_t n = cur->shape[d];
  ek_status st = EK_SUCCESS;
  OwnedTensor head(owned_view(&st, cur, d, 0, k)), early(owned_view(&st, cur, d, 0, n - k)),
      late(owned_view(&st, cur, d, k, n));
  EK_FORWARD(st);
  EK_FORWARD(mul_into(s, head.get(), nullptr, next, d, 0, k));
  return mul_into(s, early.get(), late.get(), next, d, k, n);
}

}  // namespace

ek_status complex_prod(ek_stream s, ek_tensor x, const bool *reduced, int out_ndim, const int64_t *out_shape,
                       ek_tensor *out) {
  int perm[EK_MAX_DIMS], k = 0;
  int64_t m = 1, r = 1;
  for (int d = 0; d < x->ndim; ++d)
    if (!reduced[d]) perm[k++] = d, m *= x->shape[d];
  for (int d = 0; d < x->ndim; ++d)
    if (reduced[d]) perm[k++] = d, r *= x->shape[d];
  return fill_out(x->storage->ctx, s, out_ndim, out_shape, x->dtype, out, [&](ek_tensor o) {
    if (r == 0) return ek_fill(s, ek_scalar_complex(1, 0), o);  // the empty product
    ek_tensor v = nullptr;
    EK_FORWARD(ek_view_permute(x, x->ndim, perm, &v));
    OwnedTensor xv(v), cur;
    EK_FORWARD(wide_like(s, xv.get(), true, &cur));
    const int64_t flat[2] = {m, r};
    EK_FORWARD(ek_view_reshape(cur.get(), 2, flat, &v));
    cur.reset(v);
    while (cur->shape[1] > 1) {
      OwnedTensor next;
      EK_FORWARD(halve(s, cur.get(), &next));
      cur = std::move(next);
    }
    EK_FORWARD(ek_view_reshape(cur.get(), out_ndim, out_shape, &v));
    OwnedTensor result(v);
    return ek_copy(s, result.get(), o);
  });
}

ek_status complex_cumprod(ek_stream stream, ek_tensor x, int dim, ek_tensor *out) {
  int d = 0;
  EK_FORWARD(wrap_dim(dim, x->ndim, "dim", &d));
  ek_stream s = nullptr;
  EK_FORWARD(resolve_stream(x->storage->ctx, stream, &s));
  return fill_out(x->storage->ctx, s, x->ndim, x->shape, x->dtype, out, [&](ek_tensor o) {
    const int64_t n = x->ndim == 0 ? 1 : x->shape[d];
    if (n <= 1) return ek_copy(s, x, o);
    OwnedTensor cur, next;
    EK_FORWARD(wide_like(s, x, true, &cur));
    EK_FORWARD(wide_like(s, x, false, &next));  // the other buffer of the ping-pong
    for (int64_t k = 1; k < n; k *= 2) {
      EK_FORWARD(scan_step(s, cur.get(), d, k, next.get()));
      std::swap(cur, next);
    }
    return ek_copy(s, cur.get(), o);
  });
}

}  // namespace ek

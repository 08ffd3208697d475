// ek_tensordot, ek_vecdot, ek_outer: composed from views of the operands
// (permute, moveaxis, unsqueeze, reshape) and ek_matmul / ek_binary, so
// nothing is copied unless a reshape has no view (ek_reshape then copies)
// or a given *out is not contiguous (the product goes through a temporary).
// Every argument is checked here, so messages name these functions.
#include <algorithm>

#include "core/internal.hpp"
#include "ops/matmul.hpp"
#include "ops/promote.hpp"

namespace ek {
namespace {

using Owned = OwnedTensor;

// a and b on one context, of dtypes whose promotion a product takes.
ek_status check_operands(const ek_tensor_s *a, const ek_tensor_s *b, ek_dtype *dt) {
  EK_CHECK(a->storage->ctx == b->storage->ctx, EK_ERROR_INVALID_ARGUMENT,
           "the operands belong to different contexts");
  *dt = promote(a->dtype, b->dtype);
  return dtype_is_complex(*dt) ? EK_SUCCESS : check_product_dtype(*dt);  // complex: ek_matmul's own path
}

ek_status check_disjoint(const ek_tensor_s *o, const ek_tensor_s *x, const char *name) {
  if (tensor_numel(o) == 0 || tensor_numel(x) == 0) return EK_SUCCESS;
  EK_CHECK(!ranges_overlap(tensor_desc(o), tensor_desc(x)), EK_ERROR_INVALID_ARGUMENT,
           "out overlaps %s: the result must not share memory with an operand", name);
  return EK_SUCCESS;
}

// *out (shape[ndim], dtype dt) = a2 @ b2, whose matmul result has shape
// rshape[rndim] with the same elements in C order. A new or contiguous *out
// is written directly through a view; another through a temporary.
ek_status product_as(ek_stream stream, ek_tensor a, ek_tensor b, const char *const names[2],
                     ek_tensor a2, ek_tensor b2,
                     ek_dtype dt, int ndim, const int64_t *shape, int rndim,
                     const int64_t *rshape, ek_tensor *out) {
  ek_context ctx = a->storage->ctx;
  ek_stream s = nullptr;
  EK_FORWARD(resolve_stream(ctx, stream, &s));
  const bool given = *out != nullptr;
  return fill_out(ctx, s, ndim, shape, dt, out, [&](ek_tensor o) {
    if (given) {
      EK_FORWARD(check_disjoint(o, a, names[0]));
      EK_FORWARD(check_disjoint(o, b, names[1]));
    }
    ek_tensor v = nullptr;
    if (tensor_contiguous(o)) {
      EK_FORWARD(ek_view_reshape(o, rndim, rshape, &v));
      Owned view(v);
      return ek_matmul(s, a2, b2, &v);
    }
    EK_FORWARD(ek_matmul(s, a2, b2, &v));
    Owned tmp(v);
    ek_tensor r = nullptr;
    EK_FORWARD(ek_view_reshape(v, ndim, shape, &r));
    Owned reshaped(r);
    return ek_copy(s, r, o);
  });
}

// The dims of t not in used[], in order, and the product of their sizes.
int free_dims(const ek_tensor_s *t, const bool *used, int *dims, int64_t *sizes) {
  int n = 0;
  for (int d = 0; d < t->ndim; ++d)
    if (!used[d]) {
      dims[n] = d;
      sizes[n++] = t->shape[d];
    }
  return n;
}

// The contracted dims of a and b as non-negative lists (the count form: a's
// last n with b's first n), checked: in range, distinct, equal sizes.
ek_status contracted_dims(const ek_tensor_s *a, const ek_tensor_s *b, int n, const int *a_dims,
                          const int *b_dims, int *da, int *db) {
  EK_CHECK(n == 0 || (a_dims == nullptr) == (b_dims == nullptr), EK_ERROR_INVALID_ARGUMENT,
           "a_dims and b_dims must both be given or both be NULL");
  EK_CHECK(n >= 0 && n <= std::min(a->ndim, b->ndim), EK_ERROR_INVALID_ARGUMENT,
           "ndims = %d must be in [0, %d] for %s and %s", n, std::min(a->ndim, b->ndim),
           format_shape(a->ndim, a->shape).c_str(), format_shape(b->ndim, b->shape).c_str());
  bool used_a[EK_MAX_DIMS] = {}, used_b[EK_MAX_DIMS] = {};
  for (int i = 0; i < n; ++i) {
    if (a_dims) {
      EK_FORWARD(wrap_dim(a_dims[i], a->ndim, "a_dims entry", &da[i]));
      EK_FORWARD(wrap_dim(b_dims[i], b->ndim, "b_dims entry", &db[i]));
    } else {
      da[i] = a->ndim - n + i;
      db[i] = i;
    }
    EK_CHECK(!used_a[da[i]] && !used_b[db[i]], EK_ERROR_INVALID_ARGUMENT,
             "a dim is listed twice (a's %d, b's %d)", da[i], db[i]);
    used_a[da[i]] = used_b[db[i]] = true;
    EK_CHECK(a->shape[da[i]] == b->shape[db[i]], EK_ERROR_SHAPE,
             "a's dim %d (size %lld) and b's dim %d (size %lld) differ: %s and %s", da[i],
             static_cast<long long>(a->shape[da[i]]), db[i],
             static_cast<long long>(b->shape[db[i]]), format_shape(a->ndim, a->shape).c_str(),
             format_shape(b->ndim, b->shape).c_str());
  }
  return EK_SUCCESS;
}

// t with dims perm, reshaped to [rows, cols] (a view when one exists).
ek_status as_matrix(ek_stream s, ek_tensor t, const int *perm, int64_t rows, int64_t cols,
                    Owned *m) {
  ek_tensor p = nullptr, r = nullptr;
  EK_FORWARD(ek_view_permute(t, t->ndim, perm, &p));
  Owned permuted(p);
  const int64_t shape[2] = {rows, cols};
  EK_FORWARD(ek_reshape(s, p, 2, shape, &r));
  m->reset(r);
  return EK_SUCCESS;
}

ek_status tensordot_entry(ek_stream s, ek_tensor a, ek_tensor b, int n, const int *a_dims,
                          const int *b_dims, ek_tensor *out) {
  ek_dtype dt = EK_FLOAT32;
  EK_FORWARD(check_operands(a, b, &dt));
  int da[EK_MAX_DIMS], db[EK_MAX_DIMS];
  EK_FORWARD(contracted_dims(a, b, n, a_dims, b_dims, da, db));
  const int ndim = a->ndim + b->ndim - 2 * n;
  EK_CHECK(ndim <= EK_MAX_DIMS, EK_ERROR_SHAPE, "the result of %s and %s would have %d dims (at most %d)",
           format_shape(a->ndim, a->shape).c_str(), format_shape(b->ndim, b->shape).c_str(), ndim,
           EK_MAX_DIMS);
  bool used_a[EK_MAX_DIMS] = {}, used_b[EK_MAX_DIMS] = {};
  int64_t ksizes[EK_MAX_DIMS];
  for (int i = 0; i < n; ++i) {
    used_a[da[i]] = used_b[db[i]] = true;
    ksizes[i] = a->shape[da[i]];
  }
  // a as [free dims of a, contracted], b as [contracted, free dims of b].
  int perm_a[EK_MAX_DIMS], perm_b[EK_MAX_DIMS];
  int64_t shape[EK_MAX_DIMS];
  const int na = free_dims(a, used_a, perm_a, shape);
  const int nb = free_dims(b, used_b, perm_b + n, shape + na);
  std::copy(da, da + n, perm_a + na);
  std::copy(db, db + n, perm_b);
  int64_t m = 1, k = 1, nn = 1;
  EK_CHECK(checked_numel(na, shape, &m) && checked_numel(n, ksizes, &k) &&
               checked_numel(nb, shape + na, &nn),
           EK_ERROR_OVERFLOW, "a size of the product of %s and %s overflows int64",
           format_shape(a->ndim, a->shape).c_str(), format_shape(b->ndim, b->shape).c_str());
  Owned a2, b2;
  EK_FORWARD(as_matrix(s, a, perm_a, m, k, &a2));
  EK_FORWARD(as_matrix(s, b, perm_b, k, nn, &b2));
  const int64_t rshape[2] = {m, nn};
  static const char *const kNames[2] = {"a", "b"};
  return product_as(s, a, b, kNames, a2.get(), b2.get(), dt, ndim, shape, 2, rshape, out);
}

// x's dim d moved last, then a size-1 dim inserted at `at` (-2: a row
// vector per batch, -1: a column vector).
ek_status vector_view(ek_tensor x, int d, int at, Owned *v) {
  const int src = d, dst = -1;
  ek_tensor moved = nullptr, u = nullptr;
  EK_FORWARD(ek_view_moveaxis(x, 1, &src, &dst, &moved));
  Owned m(moved);
  EK_FORWARD(ek_view_unsqueeze(moved, at, &u));
  v->reset(u);
  return EK_SUCCESS;
}

// The complex vecdot, sum(conj(x) * y) over dim d (the array API's vecdot
// conjugates x), by the elementwise and reduction kernels.
ek_status conj_dot(ek_stream s, ek_tensor x, ek_tensor y, int d, ek_tensor *out) {
  ek_tensor c = nullptr, prod = nullptr;
  EK_FORWARD(ek_conj(s, x, &c));
  Owned conj(c);
  EK_FORWARD(ek_binary(s, EK_BINARY_MUL, c, y, &prod));
  Owned product(prod);
  return ek_reduce(s, EK_REDUCE_SUM, prod, 1, &d, 0, out);
}

ek_status vecdot_entry(ek_stream s, ek_tensor x, ek_tensor y, int dim, ek_tensor *out) {
  ek_dtype dt = EK_FLOAT32;
  EK_FORWARD(check_operands(x, y, &dt));
  EK_CHECK(x->ndim >= 1 && y->ndim >= 1, EK_ERROR_SHAPE,
           "x %s and y %s need at least one dim", format_shape(x->ndim, x->shape).c_str(),
           format_shape(y->ndim, y->shape).c_str());
  int nd = 0, d = 0;
  int64_t bshape[EK_MAX_DIMS];
  EK_FORWARD(broadcast_shapes(x, y, &nd, bshape));
  EK_FORWARD(wrap_dim(dim, nd, "dim", &d));
  const int dx = d - (nd - x->ndim), dy = d - (nd - y->ndim);
  EK_CHECK(dx >= 0 && dy >= 0 && x->shape[dx] == y->shape[dy], EK_ERROR_SHAPE,
           "dim %d of x %s and y %s must exist in both with one size (it is not broadcast)",
           dim, format_shape(x->ndim, x->shape).c_str(), format_shape(y->ndim, y->shape).c_str());
  if (dtype_is_complex(dt)) return conj_dot(s, x, y, d, out);
  Owned xv, yv;
  EK_FORWARD(vector_view(x, dx, -2, &xv));
  EK_FORWARD(vector_view(y, dy, -1, &yv));
  int64_t shape[EK_MAX_DIMS], rshape[EK_MAX_DIMS + 1];
  int ndim = 0;
  for (int i = 0; i < nd; ++i)
    if (i != d) shape[ndim++] = bshape[i];
  std::copy(shape, shape + ndim, rshape);
  rshape[ndim] = rshape[ndim + 1] = 1;
  static const char *const kNames[2] = {"x", "y"};
  return product_as(s, x, y, kNames, xv.get(), yv.get(), dt, ndim, shape, ndim + 2, rshape, out);
}

ek_status outer_entry(ek_stream s, ek_tensor a, ek_tensor b, ek_tensor *out) {
  EK_CHECK(a->ndim == 1 && b->ndim == 1, EK_ERROR_SHAPE, "a %s and b %s must be 1-D",
           format_shape(a->ndim, a->shape).c_str(), format_shape(b->ndim, b->shape).c_str());
  ek_tensor col = nullptr, row = nullptr;
  EK_FORWARD(ek_view_unsqueeze(a, 1, &col));
  Owned c(col);
  EK_FORWARD(ek_view_unsqueeze(b, 0, &row));
  Owned r(row);
  return ek_binary(s, EK_BINARY_MUL, col, row, out);
}

}  // namespace
}  // namespace ek

using namespace ek;

extern "C" {

EK_API ek_status ek_tensordot(ek_stream stream, ek_tensor a, ek_tensor b, int ndims,
                              const int *a_dims, const int *b_dims, ek_tensor *out) {
  EK_API_ENTRY;
  EK_CHECK_TENSOR(a);
  EK_CHECK_TENSOR(b);
  EK_CHECK_NULL(out);
  return tensordot_entry(stream, a, b, ndims, a_dims, b_dims, out);
}

EK_API ek_status ek_vecdot(ek_stream stream, ek_tensor x, ek_tensor y, int dim, ek_tensor *out) {
  EK_API_ENTRY;
  EK_CHECK_TENSOR(x);
  EK_CHECK_TENSOR(y);
  EK_CHECK_NULL(out);
  return vecdot_entry(stream, x, y, dim, out);
}

EK_API ek_status ek_outer(ek_stream stream, ek_tensor a, ek_tensor b, ek_tensor *out) {
  EK_API_ENTRY;
  EK_CHECK_TENSOR(a);
  EK_CHECK_TENSOR(b);
  EK_CHECK_NULL(out);
  return outer_entry(stream, a, b, out);
}

}  // extern "C"

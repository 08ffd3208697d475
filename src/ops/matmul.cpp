// ek_matmul, ek_gemm: shape rules (NumPy matmul, batch broadcasting), dtype
// rules (ek_matmul promotes mixed operands by casting one) and the mapping of row-major tensors onto BLAS's column-major
// products; the loops live in src/cpu/matmul.cpp, cuBLAS behind kernels/cublas.cpp.
//
// An operand whose matrices are row-major (strides (ld, 1)) or column-major
// ((1, ld): a transposed view) is passed as it is, with a transpose flag and
// a leading dim; only other layouts (stepped last dim, broadcast matrix dims,
// negative strides) are first copied to a contiguous tensor. Row-major
// C = A B runs as column-major C^T = B^T A^T. The trailing batch dims that one
// stride per operand describes (0 for a broadcast operand) make one
// strided-batched call; leading batch dims that do not are looped over.
#include <algorithm>
#include <memory>

#include "core/backend.hpp"
#include "ops/gemm_plan.hpp"
#include "ops/complex.hpp"
#include "ops/matmul.hpp"
#include "ops/promote.hpp"
#include "core/internal.hpp"
#include "core/profiler.hpp"

namespace ek {

ek_status check_product_dtype(ek_dtype dt) {
  EK_CHECK(dtype_is_float(dt) || gemm_int_dtype(dt), EK_ERROR_DTYPE,
           "%s operands are not supported (uint8, int8, int16, int32, int64, float16, bfloat16, "
           "float32 or float64)",
           ek_dtype_name(dt));
  return EK_SUCCESS;
}

namespace {

using Owned = OwnedTensor;

// The product as a batch of [m, k] @ [k, n] over the batch dims `batch`.
struct Product {
  int nb = 0;
  int64_t batch[EK_MAX_DIMS] = {};
  int64_t m = 1, k = 1, n = 1;
  bool a_vector = false, b_vector = false;  // 1-D operands of ek_matmul
};

// A strided matrix: element (i, j) at data + (i * rs + j * cs) elements.
struct Matrix {
  char *data = nullptr;
  int64_t rows = 0, cols = 0, rs = 0, cs = 0;
  Matrix t() const { return {data, cols, rows, cs, rs}; }
};

// A tensor as a batch of matrices over a Product's batch dims: the matrix of
// batch 0 and, per batch dim, the stride to the next (0 where it broadcasts).
struct Operand {
  Matrix mat;
  int64_t bstride[EK_MAX_DIMS] = {};
};

// row_dim/col_dim: t's dims holding rows and cols, or -1 for a size-1 dim t
// lacks (1-D operands, and matmul results of them). t's other dims are batch
// dims, aligned on the right with p's.
Operand operand_of(const ek_tensor_s *t, const Product &p, int64_t rows, int64_t cols,
                   int row_dim, int col_dim) {
  Operand o;
  o.mat = {static_cast<char *>(tensor_data(t)), rows, cols, row_dim >= 0 ? t->strides[row_dim] : 0,
           col_dim >= 0 ? t->strides[col_dim] : 0};
  const int lead = p.nb - (t->ndim - (row_dim >= 0) - (col_dim >= 0));
  for (int d = 0; d < p.nb; ++d) {
    const int td = d - lead;
    o.bstride[d] = td >= 0 && t->shape[td] != 1 ? t->strides[td] : 0;
  }
  return o;
}

Operand left_operand(const ek_tensor_s *a, const Product &p) {
  return operand_of(a, p, p.m, p.k, p.a_vector ? -1 : a->ndim - 2, a->ndim - 1);
}

Operand right_operand(const ek_tensor_s *b, const Product &p) {
  return operand_of(b, p, p.k, p.n, p.b_vector ? 0 : b->ndim - 2, p.b_vector ? -1 : b->ndim - 1);
}

Operand result_operand(const ek_tensor_s *c, const Product &p) {
  return operand_of(c, p, p.m, p.n, p.a_vector ? -1 : p.nb, p.b_vector ? -1 : c->ndim - 1);
}

// How BLAS reads x: stored column-major (trans false, ld = column stride) or
// as the transpose of a column-major matrix (x row-major, ld = row stride).
// Size-1 dims take any stride. False for any other layout.
bool blas_layout(const Matrix &x, bool *trans, int64_t *ld) {
  const int64_t col_ld = std::max<int64_t>(1, x.rows), row_ld = std::max<int64_t>(1, x.cols);
  if ((x.rows <= 1 || x.rs == 1) && (x.cols <= 1 || x.cs >= col_ld)) {
    *trans = false;
    *ld = x.cols <= 1 ? col_ld : x.cs;
    return true;
  }
  if ((x.cols <= 1 || x.cs == 1) && x.rs >= row_ld) {  // rows > 1 here: else column-major fits
    *trans = true;
    *ld = x.rs;
    return true;
  }
  return false;
}

bool blas_readable(const Matrix &x) {
  bool trans = false;
  int64_t ld = 0;
  return blas_layout(x, &trans, &ld);
}

bool column_major(const Matrix &x, int64_t *ld) {
  bool trans = true;
  return blas_layout(x, &trans, ld) && !trans;
}

// The plan of batch 0: C = A B, as column-major C^T = B^T A^T when C is
// row-major (`swapped`), else as C = A B. A and B must be blas_readable.
GemmPlan plan_of(const Matrix &a, const Matrix &b, const Matrix &c, bool *swapped) {
  GemmPlan pl;
  Matrix first = a, second = b, out = c;
  *swapped = column_major(c.t(), &pl.ldc);
  if (*swapped) {
    first = b.t();
    second = a.t();
    out = c.t();
  } else {
    column_major(c, &pl.ldc);
  }
  pl.m = out.rows;
  pl.n = out.cols;
  pl.k = first.cols;
  pl.a = first.data;
  pl.b = second.data;
  pl.c = out.data;
  blas_layout(first, &pl.trans_a, &pl.lda);
  blas_layout(second, &pl.trans_b, &pl.ldb);
  return pl;
}

// The trailing batch dims [split, nb) that one stride per operand covers
// (a, b, c in that order): `count` problems in one strided-batched call.
struct BatchSplit {
  int split = 0;
  int64_t count = 1;
  int64_t stride[3] = {0, 0, 0};
};

BatchSplit split_batch(const Product &p, const Operand *const ops[3]) {
  BatchSplit s;
  s.split = p.nb;
  bool started = false;
  for (int d = p.nb - 1; d >= 0; --d) {
    if (p.batch[d] != 1) {
      bool fits = true;
      for (int x = 0; x < 3; ++x) {
        int64_t want = 0;
        fits = fits && (started ? !__builtin_mul_overflow(s.stride[x], s.count, &want) &&
                                      ops[x]->bstride[d] == want
                                : ops[x]->bstride[d] >= 0);
      }
      if (!fits) break;
      if (!started)
        for (int x = 0; x < 3; ++x) s.stride[x] = ops[x]->bstride[d];
      started = true;
      s.count *= p.batch[d];
    }
    s.split = d;
  }
  return s;
}

ek_status launch(ek_context ctx, ek_stream s, const GemmPlan &pl) {
  return ctx->backend->gemm(ctx, s, pl);
}

// One plan per index of the looped batch dims [0, split).
ek_status run_batches(ek_context ctx, ek_stream s, const Product &p, const Operand *const ops[3],
                      GemmPlan pl, bool swapped) {
  const BatchSplit split = split_batch(p, ops);
  const int first = swapped ? 1 : 0;  // which of a, b is the plan's A
  pl.batch = split.count;
  pl.stride_a = split.stride[first];
  pl.stride_b = split.stride[1 - first];
  pl.stride_c = split.stride[2];
  const auto es = static_cast<int64_t>(dtype_size(pl.dtype));
  const char *base_a = static_cast<const char *>(pl.a), *base_b = static_cast<const char *>(pl.b);
  char *base_c = static_cast<char *>(pl.c);
  int64_t idx[EK_MAX_DIMS] = {};
  for (;;) {
    int64_t off[3] = {0, 0, 0};
    for (int d = 0; d < split.split; ++d)
      for (int x = 0; x < 3; ++x) off[x] += idx[d] * ops[x]->bstride[d];
    pl.a = base_a + off[first] * es;
    pl.b = base_b + off[1 - first] * es;
    pl.c = base_c + off[2] * es;
    EK_FORWARD(launch(ctx, s, pl));
    int d = split.split - 1;
    for (; d >= 0 && ++idx[d] == p.batch[d]; --d) idx[d] = 0;
    if (d < 0) return EK_SUCCESS;
  }
}

// t as an operand BLAS can read: t itself, or a contiguous copy (kept in *copy).
ek_status readable_operand(ek_context ctx, ek_stream s, const ek_tensor_s *t, const Product &p,
                           bool left, Owned *copy, Operand *out) {
  *out = left ? left_operand(t, p) : right_operand(t, p);
  if (blas_readable(out->mat)) return EK_SUCCESS;
  ek_tensor c = nullptr;
  EK_FORWARD(new_tensor(ctx, t->ndim, t->shape, t->dtype, s, &c));
  copy->reset(c);
  EK_FORWARD(device_copy(ctx, s, tensor_desc(c), tensor_desc(t)));
  *out = left ? left_operand(c, p) : right_operand(c, p);
  return EK_SUCCESS;
}

// alpha and beta in the compute type: doubles for floats (complex: and their
// imaginary parts), exact int64s (wrapping arithmetic) for integers.
struct Coefficients {
  double alpha = 1, beta = 0;
  double alpha_im = 0, beta_im = 0;
  int64_t alpha_i = 1, beta_i = 0;
  ek_scalar alpha_c() const { return ek_scalar_complex(alpha, alpha_im); }
  ek_scalar beta_c() const { return ek_scalar_complex(beta, beta_im); }
};

// c = alpha a @ b + beta c for a non-empty product with k > 0; c's matrices
// must be blas_readable.
ek_status run_product(ek_context ctx, ek_stream s, const Product &p, const ek_tensor_s *a,
                      const ek_tensor_s *b, const Operand &c, const Coefficients &k) {
  Owned a_copy, b_copy;
  Operand oa, ob;
  EK_FORWARD(readable_operand(ctx, s, a, p, true, &a_copy, &oa));
  EK_FORWARD(readable_operand(ctx, s, b, p, false, &b_copy, &ob));
  bool swapped = false;
  GemmPlan pl = plan_of(oa.mat, ob.mat, c.mat, &swapped);
  pl.dtype = a->dtype;
  pl.alpha = k.alpha;
  pl.beta = k.beta;
  pl.alpha_i = k.alpha_i;
  pl.beta_i = k.beta_i;
  pl.alpha_im = k.alpha_im;
  pl.beta_im = k.beta_im;
  pl.tf32 = ctx->config.allow_tf32 != 0;
  EK_FORWARD(activate(ctx));
  const Operand *const ops[3] = {&oa, &ob, &c};
  return run_batches(ctx, s, p, ops, pl, swapped);
}

// c = beta * c, what a product with k == 0 (or alpha == 0) leaves.
ek_status scale(ek_stream s, ek_tensor c, const Coefficients &k) {
  const bool integer = gemm_int_dtype(c->dtype);
  if (dtype_is_complex(c->dtype) && k.beta_im != 0) return ek_binary_scalar(s, EK_BINARY_MUL, c, k.beta_c(), 0, &c);
  if (integer ? k.beta_i == 1 : k.beta == 1) return EK_SUCCESS;
  if (integer ? k.beta_i == 0 : k.beta == 0) return ek_fill(s, int_scalar(0), c);
  const ek_scalar beta = integer ? ek_scalar_int(k.beta_i) : ek_scalar_float(k.beta);
  return ek_binary_scalar(s, EK_BINARY_MUL, c, beta, 0, &c);
}

// ---- argument checks

ek_status check_dtypes(const ek_tensor_s *a, const char *a_name, const ek_tensor_s *b,
                       const char *b_name) {
  EK_CHECK(a->dtype == b->dtype, EK_ERROR_DTYPE,
           "%s is %s and %s is %s: both need one dtype (cast first)", a_name,
           ek_dtype_name(a->dtype), b_name, ek_dtype_name(b->dtype));
  return dtype_is_complex(a->dtype) ? EK_SUCCESS : check_product_dtype(a->dtype);
}

// x in dtype dt: x itself, or a cast copy kept in *copy.
ek_status promoted(ek_stream s, ek_tensor x, ek_dtype dt, Owned *copy, ek_tensor *use) {
  *use = x;
  if (x->dtype == dt) return EK_SUCCESS;
  ek_tensor c = nullptr;
  EK_FORWARD(ek_cast(s, x, dt, &c));
  copy->reset(c);
  *use = c;
  return EK_SUCCESS;
}

// alpha, beta for c's dtype: integers exactly (a non-integral value is
// EK_ERROR_INVALID_ARGUMENT), floats rounded once to the compute type.
ek_status coefficients(ek_scalar alpha, ek_scalar beta, ek_dtype dt, Coefficients *k) {
  if (dtype_is_complex(dt)) {  // each part rounded to the part's dtype (cgemm: float)
    const auto part = static_cast<ek_dtype>(complex_part_dtype(dt));
    auto rounded = [part](double v) { return scalar_rounded_to(ek_scalar_float(v), part); };
    const bool ca = alpha.kind == EK_SCALAR_COMPLEX, cb = beta.kind == EK_SCALAR_COMPLEX;
    k->alpha = rounded(ca ? alpha.f : scalar_to_double(alpha));
    k->alpha_im = rounded(ca ? alpha.imag : 0);
    k->beta = rounded(cb ? beta.f : scalar_to_double(beta));
    k->beta_im = rounded(cb ? beta.imag : 0);
    return EK_SUCCESS;
  }
  EK_FORWARD(check_scalar(alpha, "alpha"));
  EK_FORWARD(check_scalar(beta, "beta"));
  if (!gemm_int_dtype(dt)) {
    const ek_dtype compute = dt == EK_FLOAT64 ? EK_FLOAT64 : EK_FLOAT32;
    k->alpha = scalar_rounded_to(alpha, compute);
    k->beta = scalar_rounded_to(beta, compute);
    return EK_SUCCESS;
  }
  EK_CHECK(scalar_to_int64(alpha, &k->alpha_i) && scalar_to_int64(beta, &k->beta_i),
           EK_ERROR_INVALID_ARGUMENT,
           "alpha = %s and beta = %s must be integers in int64's range when c is %s (integer "
           "arithmetic)",
           format_scalar(alpha).c_str(), format_scalar(beta).c_str(), ek_dtype_name(dt));
  return EK_SUCCESS;
}

ek_status check_disjoint(const ek_tensor_s *c, const char *c_name, const ek_tensor_s *x,
                         const char *x_name) {
  if (tensor_numel(c) == 0 || tensor_numel(x) == 0) return EK_SUCCESS;
  EK_CHECK(!ranges_overlap(tensor_desc(c), tensor_desc(x)), EK_ERROR_INVALID_ARGUMENT,
           "%s overlaps %s: the result must not share memory with an operand", c_name, x_name);
  return EK_SUCCESS;
}

std::string shapes_text(const ek_tensor_s *a, const ek_tensor_s *b) {
  return format_shape(a->ndim, a->shape) + " @ " + format_shape(b->ndim, b->shape);
}

// NumPy matmul shapes: the product and the result's shape.
ek_status matmul_shape(const ek_tensor_s *a, const ek_tensor_s *b, Product *p, int *out_ndim,
                       int64_t *out_shape) {
  EK_CHECK(a->ndim >= 1 && b->ndim >= 1, EK_ERROR_SHAPE,
           "0-d operands have no matrix dims: %s (use ek_binary MUL for scalars)",
           shapes_text(a, b).c_str());
  p->a_vector = a->ndim == 1;
  p->b_vector = b->ndim == 1;
  p->k = a->shape[a->ndim - 1];
  p->m = p->a_vector ? 1 : a->shape[a->ndim - 2];
  p->n = p->b_vector ? 1 : b->shape[b->ndim - 1];
  const int64_t kb = b->shape[p->b_vector ? 0 : b->ndim - 2];
  EK_CHECK(p->k == kb, EK_ERROR_SHAPE, "inner dimensions differ: %s", shapes_text(a, b).c_str());
  const int na = std::max(0, a->ndim - 2), nb = std::max(0, b->ndim - 2);
  p->nb = std::max(na, nb);
  for (int d = 0; d < p->nb; ++d) {
    const int da = d - (p->nb - na), db = d - (p->nb - nb);
    const int64_t sa = da >= 0 ? a->shape[da] : 1, sb = db >= 0 ? b->shape[db] : 1;
    EK_CHECK(sa == sb || sa == 1 || sb == 1, EK_ERROR_SHAPE, "batch dims do not broadcast: %s",
             shapes_text(a, b).c_str());
    p->batch[d] = sa == 1 ? sb : sa;
    out_shape[d] = p->batch[d];
  }
  *out_ndim = p->nb;
  if (!p->a_vector) out_shape[(*out_ndim)++] = p->m;
  if (!p->b_vector) out_shape[(*out_ndim)++] = p->n;
  return EK_SUCCESS;
}

// ek_gemm shapes: a [m,k] or [B|1,m,k], b [k,n] or [B|1,k,n], c [m,n] or [B,m,n].
ek_status gemm_shape(const ek_tensor_s *a, const ek_tensor_s *b, const ek_tensor_s *c, Product *p) {
  EK_CHECK(a->ndim >= 2 && a->ndim <= 3 && b->ndim >= 2 && b->ndim <= 3 && c->ndim <= 3 &&
               c->ndim >= std::max(a->ndim, b->ndim),
           EK_ERROR_SHAPE,
           "needs a [m,k], b [k,n], c [m,n], each optionally with a leading batch dim (c's "
           "when a or b has one): got a %s, b %s, c %s",
           format_shape(a->ndim, a->shape).c_str(), format_shape(b->ndim, b->shape).c_str(),
           format_shape(c->ndim, c->shape).c_str());
  p->m = a->shape[a->ndim - 2];
  p->k = a->shape[a->ndim - 1];
  p->n = b->shape[b->ndim - 1];
  EK_CHECK(b->shape[b->ndim - 2] == p->k, EK_ERROR_SHAPE, "inner dimensions differ: %s",
           shapes_text(a, b).c_str());
  EK_CHECK(c->shape[c->ndim - 2] == p->m && c->shape[c->ndim - 1] == p->n, EK_ERROR_SHAPE,
           "c has shape %s; %s gives [%lld,%lld] matrices", format_shape(c->ndim, c->shape).c_str(),
           shapes_text(a, b).c_str(), static_cast<long long>(p->m), static_cast<long long>(p->n));
  p->nb = c->ndim - 2;
  if (p->nb == 0) return EK_SUCCESS;
  p->batch[0] = c->shape[0];
  for (const ek_tensor_s *x : {a, b})
    EK_CHECK(x->ndim == 2 || x->shape[0] == 1 || x->shape[0] == p->batch[0], EK_ERROR_SHAPE,
             "batch %lld of %s is neither 1 nor c's batch %lld", static_cast<long long>(x->shape[0]),
             x == a ? "a" : "b", static_cast<long long>(p->batch[0]));
  return EK_SUCCESS;
}

// ---- entries

// Result into o: straight when o's matrices are BLAS-readable, else through a
// contiguous temporary copied into o.
ek_status matmul_into(ek_context ctx, ek_stream s, const Product &p, const ek_tensor_s *a,
                      const ek_tensor_s *b, ek_tensor o) {
  if (tensor_numel(o) == 0) return EK_SUCCESS;
  if (p.k == 0) return ek_fill(s, int_scalar(0), o);
  const Operand c = result_operand(o, p);
  if (blas_readable(c.mat)) return run_product(ctx, s, p, a, b, c, Coefficients());
  ek_tensor tmp = nullptr;
  EK_FORWARD(new_tensor(ctx, o->ndim, o->shape, o->dtype, s, &tmp));
  Owned owned(tmp);
  EK_FORWARD(run_product(ctx, s, p, a, b, result_operand(tmp, p), Coefficients()));
  return device_copy(ctx, s, tensor_desc(o), tensor_desc(tmp));
}

ek_status matmul_entry(ek_stream stream, ek_tensor a, ek_tensor b, ek_tensor *out) {
  EK_CHECK(a->storage->ctx == b->storage->ctx, EK_ERROR_INVALID_ARGUMENT,
           "a and b belong to different contexts");
  const ek_dtype dt = promote(a->dtype, b->dtype);
  // CUDA: cuBLAS's complex gemm; the CPU: four real products of the parts.
  const bool complex = dtype_is_complex(dt);
  if (complex && !a->storage->ctx->is_cuda()) return complex_matmul(stream, a, b, dt, out);
  if (!complex) EK_FORWARD(check_product_dtype(dt));
  Product p;
  int ndim = 0;
  int64_t shape[EK_MAX_DIMS];
  EK_FORWARD(matmul_shape(a, b, &p, &ndim, shape));
  ek_context ctx = a->storage->ctx;
  ek_stream s = nullptr;
  EK_FORWARD(resolve_stream(ctx, stream, &s));
  const bool given = *out != nullptr;
  return fill_out(ctx, s, ndim, shape, dt, out, [&](ek_tensor o) {
    if (given) {
      EK_FORWARD(check_disjoint(o, "out", a, "a"));
      EK_FORWARD(check_disjoint(o, "out", b, "b"));
    }
    Owned a_copy, b_copy;
    ek_tensor pa = a, pb = b;
    EK_FORWARD(promoted(s, a, dt, &a_copy, &pa));
    EK_FORWARD(promoted(s, b, dt, &b_copy, &pb));
    return matmul_into(ctx, s, p, pa, pb, o);
  });
}

// The CPU's complex gemm: ek_matmul's four real products (complex_matmul),
// then c = beta c + alpha (a @ b), the product broadcast over c's batch.
ek_status complex_gemm_cpu(ek_stream s, ek_tensor a, ek_tensor b, ek_tensor c, const Coefficients &k) {
  ek_tensor prod = nullptr;
  EK_FORWARD(complex_matmul(s, a, b, c->dtype, &prod));
  Owned owned(prod);
  if (k.alpha != 1 || k.alpha_im != 0) EK_FORWARD(ek_binary_scalar(s, EK_BINARY_MUL, prod, k.alpha_c(), 0, &prod));
  if (k.beta == 0 && k.beta_im == 0) return ek_copy(s, prod, c);
  EK_FORWARD(scale(s, c, k));
  return ek_binary(s, EK_BINARY_ADD, c, prod, &c);
}

ek_status gemm_entry(ek_stream stream, ek_scalar alpha, ek_tensor a, ek_tensor b, ek_scalar beta,
                     ek_tensor c) {
  ek_context ctx = c->storage->ctx;
  EK_CHECK(a->storage->ctx == ctx && b->storage->ctx == ctx, EK_ERROR_INVALID_ARGUMENT,
           "a, b and c must belong to one context");
  EK_FORWARD(check_dtypes(a, "a", b, "b"));
  EK_FORWARD(check_dtypes(c, "c", a, "a"));
  Coefficients k;
  EK_FORWARD(coefficients(alpha, beta, c->dtype, &k));
  Product p;
  EK_FORWARD(gemm_shape(a, b, c, &p));
  ek_stream s = nullptr;
  EK_FORWARD(resolve_stream(ctx, stream, &s));
  EK_CHECK(!writes_overlap(c), EK_ERROR_INVALID_ARGUMENT,
           "c is a broadcast view (a stride-0 dim): its elements alias");
  const Operand oc = operand_of(c, p, p.m, p.n, c->ndim - 2, c->ndim - 1);
  EK_CHECK(blas_readable(oc.mat), EK_ERROR_INVALID_ARGUMENT,
           "c's matrices (strides %lld, %lld) are neither row- nor column-major; pass a "
           "contiguous c or a transposed view of one",
           static_cast<long long>(oc.mat.rs), static_cast<long long>(oc.mat.cs));
  EK_FORWARD(check_disjoint(c, "c", a, "a"));
  EK_FORWARD(check_disjoint(c, "c", b, "b"));
  if (tensor_numel(c) == 0) return EK_SUCCESS;
  const bool no_product = gemm_int_dtype(c->dtype) ? k.alpha_i == 0 : k.alpha == 0 && k.alpha_im == 0;
  if (p.k == 0 || no_product) return scale(s, c, k);
  if (dtype_is_complex(c->dtype) && !ctx->is_cuda()) return complex_gemm_cpu(s, a, b, c, k);
  return run_product(ctx, s, p, a, b, oc, k);
}

}  // namespace
}  // namespace ek

using namespace ek;

extern "C" {

EK_API ek_status ek_matmul(ek_stream stream, ek_tensor a, ek_tensor b, ek_tensor *out) {
  EK_API_ENTRY;
  EK_CHECK_TENSOR(a);
  EK_CHECK_TENSOR(b);
  EK_CHECK_NULL(out);
  EK_PROFILE_OP(nullptr, a->storage->ctx, stream, EK_IN(a, b), EK_OUT(out));
  return matmul_entry(stream, a, b, out);
}

EK_API ek_status ek_gemm(ek_stream stream, ek_scalar alpha, ek_tensor a, ek_tensor b,
                         ek_scalar beta, ek_tensor c) {
  EK_API_ENTRY;
  EK_CHECK_TENSOR(a);
  EK_CHECK_TENSOR(b);
  EK_CHECK_TENSOR(c);
  EK_PROFILE_OP(nullptr, c->storage->ctx, stream, EK_IN(a, b), EK_OUT(&c));
  EK_FORWARD(check_scalar_or_complex(alpha, "alpha"));  // complex: for a complex c only
  EK_FORWARD(check_scalar_or_complex(beta, "beta"));
  return gemm_entry(stream, alpha, a, b, beta, c);
}

}  // extern "C"

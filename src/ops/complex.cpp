// Complex dtypes: the elementwise branches (math in ops/complex_plan.hpp, loops
// in cpu/complex.cpp and kernels/complex.cu), the part views ek_view_real/ek_view_imag,
// and ek_conj.
#include "ops/complex.hpp"

#include "core/backend.hpp"
#include "core/internal.hpp"
#include "core/profiler.hpp"
#include "ops/complex_plan.hpp"
#include "ops/matmul.hpp"
#include "ops/op_traits.hpp"
#include "ops/promote.hpp"

namespace ek {
namespace {

// out may be an operand exactly, never partially overlap one.
ek_status check_alias(const TensorDesc &out, const TensorDesc &in, const char *name) {
  if (desc_numel(out) == 0 || in.data == nullptr || same_layout(out, in)) return EK_SUCCESS;
  EK_CHECK(!ranges_overlap(out, in), EK_ERROR_INVALID_ARGUMENT,
           "out partially overlaps %s (only exact aliasing, out == %s, is allowed)", name, name);
  return EK_SUCCESS;
}

ek_status launch(ek_context ctx, ek_stream s, const cx::Args &g) {
  if (desc_numel(g.out) == 0) return EK_SUCCESS;
  return ctx->backend->complex_elementwise(ctx, s, g);
}

// t itself when of dtype dt (a new reference), else ek_cast's copy.
ek_status as_dtype(ek_stream s, ek_tensor t, ek_dtype dt, ek_tensor *out) {
  if (t->dtype != dt) return ek_cast(s, t, dt, out);
  EK_FORWARD(ek_tensor_retain(t));
  *out = t;
  return EK_SUCCESS;
}

// A view of x's part (0 real, 1 imaginary) as floats.
ek_tensor part_view(ek_tensor x, int part) {
  ek_tensor v = new_view(x);
  int64_t strides[EK_MAX_DIMS];
  for (int i = 0; i < x->ndim; ++i) strides[i] = 2 * x->strides[i];
  v->dtype = static_cast<ek_dtype>(complex_part_dtype(x->dtype));
  tensor_set_layout(v, x->ndim, x->shape, strides, 2 * x->offset + part);
  return v;
}

}  // namespace

ek_status complex_unary(ek_stream stream, int op, ek_tensor x, ek_tensor *out) {
  if (op == EK_UNARY_ROUND) return complex_round(stream, x, out);
  const ops::UnaryTraits *t = ops::unary_traits(op);
  const ek_dtype result = t && t->result == ops::Result::kBool ? EK_BOOL
                          : op == EK_UNARY_ABS ? static_cast<ek_dtype>(complex_part_dtype(x->dtype))
                                               : x->dtype;
  ek_context ctx = x->storage->ctx;
  ek_stream s = nullptr;
  EK_FORWARD(resolve_stream(ctx, stream, &s));
  return fill_out_converting(ctx, s, x->ndim, x->shape, result, out, [&](ek_tensor o) {
    cx::Args g{};
    g.op = op;
    g.out = tensor_desc(o);
    g.a = tensor_desc(x);
    EK_FORWARD(check_alias(g.out, g.a, "x"));
    return launch(ctx, s, g);
  });
}

ek_status complex_binary(ek_stream stream, int op, ek_tensor a, ek_tensor b, const ek_scalar *scalar,
                         bool scalar_first, ek_dtype common, ek_tensor *out) {
  const ops::BinaryTraits *t = ops::binary_traits(op);
  const ek_dtype result = t && t->result == ops::Result::kBool ? EK_BOOL : common;
  ek_context ctx = a->storage->ctx;
  ek_stream s = nullptr;
  EK_FORWARD(resolve_stream(ctx, stream, &s));
  int ndim = a->ndim;
  int64_t shape[EK_MAX_DIMS];
  for (int i = 0; i < ndim; ++i) shape[i] = a->shape[i];
  if (b) EK_FORWARD(broadcast_shapes(a, b, &ndim, shape));
  // Real operands become complex first: the kernels load complex only.
  ek_tensor ca = nullptr, cb = nullptr;
  ek_status st = as_dtype(s, a, common, &ca);
  if (st == EK_SUCCESS && b) st = as_dtype(s, b, common, &cb);
  if (st == EK_SUCCESS) {
    cx::Args g{};
    g.op = op;
    g.binary = true;
    if (scalar) {
      g.scalar = scalar_first ? 1 : 2;
      g.sre = scalar->kind == EK_SCALAR_COMPLEX ? scalar->f : scalar_to_double(*scalar);
      g.sim = scalar->kind == EK_SCALAR_COMPLEX ? scalar->imag : 0.0;
    }
    st = fill_out_converting(ctx, s, ndim, shape, result, out, [&](ek_tensor o) {
      g.out = tensor_desc(o);
      // The tensor operand is a when the scalar is b, else b.
      TensorDesc *slot[2] = {scalar && scalar_first ? &g.b : &g.a, &g.b};
      EK_FORWARD(broadcast_to(ca, o, slot[0]));
      EK_FORWARD(check_alias(g.out, *slot[0], scalar && scalar_first ? "b" : "a"));
      if (cb) {
        EK_FORWARD(broadcast_to(cb, o, &g.b));
        EK_FORWARD(check_alias(g.out, g.b, "b"));
      }
      return launch(ctx, s, g);
    });
  }
  if (ca) ek_tensor_release(ca);
  if (cb) ek_tensor_release(cb);
  return st;
}

ek_status complex_reduce(ek_stream s, ek_reduce_op op, ek_tensor x, int ndims, const int *dims,
                         int keepdim, int out_ndim, const int64_t *out_shape, ek_tensor *out) {
  if (op == EK_REDUCE_ANY || op == EK_REDUCE_ALL) {  // over x != 0
    ek_tensor nonzero = nullptr;
    EK_FORWARD(ek_binary_scalar(s, EK_BINARY_NE, x, int_scalar(0), 0, &nonzero));
    const ek_status st = ek_reduce(s, op, nonzero, ndims, dims, keepdim, out);
    ek_tensor_release(nonzero);
    return st;
  }
  ek_context ctx = x->storage->ctx;
  return fill_out(ctx, s, out_ndim, out_shape, x->dtype, out, [&](ek_tensor o) {
    ek_status st = EK_SUCCESS;
    for (int part = 0; part < 2 && st == EK_SUCCESS; ++part) {
      ek_tensor xp = part_view(x, part), op_out = part_view(o, part);
      st = ek_reduce(s, op, xp, ndims, dims, keepdim, &op_out);
      ek_tensor_release(xp);
      ek_tensor_release(op_out);
    }
    return st;
  });
}

namespace {
// The stream, and a and b as dt (new references, kept in *oa and *ob).
ek_status operands_as(ek_stream stream, ek_tensor a, ek_tensor b, ek_dtype dt, ek_stream *s,
                      OwnedTensor *oa, OwnedTensor *ob) {
  EK_FORWARD(resolve_stream(a->storage->ctx, stream, s));
  ek_tensor ca = nullptr, cb = nullptr;
  EK_FORWARD(as_dtype(*s, a, dt, &ca));
  oa->reset(ca);
  EK_FORWARD(as_dtype(*s, b, dt, &cb));
  ob->reset(cb);
  return EK_SUCCESS;
}
}  // namespace

ek_status complex_matmul(ek_stream stream, ek_tensor a, ek_tensor b, ek_dtype dt, ek_tensor *out) {
  ek_context ctx = a->storage->ctx;
  ek_stream s = nullptr;
  OwnedTensor oa, ob;
  EK_FORWARD(operands_as(stream, a, b, dt, &s, &oa, &ob));
  ek_tensor ca = oa.get(), cb = ob.get();
  const OwnedTensor part[2][2] = {{OwnedTensor(part_view(ca, 0)), OwnedTensor(part_view(ca, 1))},
                                  {OwnedTensor(part_view(cb, 0)), OwnedTensor(part_view(cb, 1))}};
  // prod[i][j] = a's part i @ b's part j
  ek_tensor prod[2][2] = {};
  ek_status st = EK_SUCCESS;
  for (int i = 0; i < 2 && st == EK_SUCCESS; ++i)
    for (int j = 0; j < 2 && st == EK_SUCCESS; ++j)
      st = ek_matmul(s, part[0][i].get(), part[1][j].get(), &prod[i][j]);
  if (st == EK_SUCCESS) {
    const ek_tensor_s *r = prod[0][0];
    st = fill_out(ctx, s, r->ndim, r->shape, dt, out, [&](ek_tensor o) {
      OwnedTensor re(part_view(o, 0)), im(part_view(o, 1));
      ek_tensor re_out = re.get(), im_out = im.get();
      EK_FORWARD(ek_binary(s, EK_BINARY_SUB, prod[0][0], prod[1][1], &re_out));
      return ek_binary(s, EK_BINARY_ADD, prod[0][1], prod[1][0], &im_out);
    });
  }
  for (auto &row : prod)
    for (ek_tensor t : row) ek_tensor_release(t);
  return st;
}

namespace {

ek_scalar part_scalar(const ek_scalar &v, int part) {
  ek_scalar r{};
  r.kind = EK_SCALAR_FLOAT64;
  r.f = v.kind == EK_SCALAR_COMPLEX ? (part ? v.imag : v.f) : (part ? 0.0 : scalar_to_double(v));
  return r;
}

// out (x's dtype and shape, created when NULL) = x, then body(part of out, part) for both parts.
template <typename Body>
ek_status per_part_in_place(ek_stream stream, ek_tensor x, ek_tensor *out, Body body) {
  ek_context ctx = x->storage->ctx;
  ek_stream s = nullptr;
  EK_FORWARD(resolve_stream(ctx, stream, &s));
  return fill_out(ctx, s, x->ndim, x->shape, x->dtype, out, [&](ek_tensor o) {
    if (o != x) EK_FORWARD(ek_copy(s, x, o));
    for (int part = 0; part < 2; ++part) {
      OwnedTensor p(part_view(o, part));
      EK_FORWARD(body(s, p.get(), part));
    }
    return EK_SUCCESS;
  });
}

}  // namespace

ek_status complex_masked_fill(ek_stream stream, ek_tensor x, ek_tensor mask, const ek_scalar &value,
                              ek_tensor *out) {
  EK_FORWARD(check_scalar_or_complex(value, "value"));
  return per_part_in_place(stream, x, out, [&](ek_stream s, ek_tensor p, int part) {
    ek_tensor o = p;
    return ek_masked_fill(s, p, mask, part_scalar(value, part), &o);
  });
}

ek_status complex_scan(ek_stream stream, ek_tensor x, int dim, ek_tensor *out) {
  return per_part_in_place(stream, x, out, [&](ek_stream s, ek_tensor p, int) {
    ek_tensor o = p;
    return ek_scan(s, EK_SCAN_SUM, p, dim, &o);
  });
}

ek_status complex_round(ek_stream stream, ek_tensor x, ek_tensor *out) {
  return per_part_in_place(stream, x, out, [&](ek_stream s, ek_tensor p, int) {
    ek_tensor o = p;
    return ek_unary(s, EK_UNARY_ROUND, p, &o);
  });
}

ek_status complex_index_put_add(ek_stream stream, ek_tensor x, int n, const ek_tensor *indices,
                                ek_tensor values, ek_tensor *out) {
  return per_part_in_place(stream, x, out, [&](ek_stream s, ek_tensor p, int part) {
    OwnedTensor v(part_view(values, part));
    ek_tensor o = p;
    return ek_index_put(s, p, n, indices, v.get(), 1, &o);
  });
}

ek_status complex_scatter_add(ek_stream stream, ek_tensor x, int dim, ek_tensor index, ek_tensor src,
                              ek_tensor *out) {
  return per_part_in_place(stream, x, out, [&](ek_stream s, ek_tensor p, int part) {
    OwnedTensor v(part_view(src, part));
    ek_tensor o = p;
    return ek_scatter(s, p, dim, index, v.get(), 1, &o);
  });
}

ek_status complex_where(ek_stream stream, ek_tensor cond, ek_tensor a, ek_tensor b, ek_dtype dt, int ndim,
                        const int64_t *shape, ek_tensor *out) {
  ek_context ctx = a->storage->ctx;
  ek_stream s = nullptr;
  OwnedTensor oa, ob;
  EK_FORWARD(operands_as(stream, a, b, dt, &s, &oa, &ob));
  ek_tensor ca = oa.get(), cb = ob.get();
  return fill_out(ctx, s, ndim, shape, dt, out, [&](ek_tensor o) {
    for (int part = 0; part < 2; ++part) {
      OwnedTensor op(part_view(o, part)), ap(part_view(ca, part)), bp(part_view(cb, part));
      ek_tensor t = op.get();
      EK_FORWARD(ek_where(s, cond, ap.get(), bp.get(), &t));
    }
    return EK_SUCCESS;
  });
}

}  // namespace ek

using namespace ek;

extern "C" {

EK_API ek_status ek_view_real(ek_tensor x, ek_tensor *out) {
  EK_API_ENTRY;
  EK_CHECK_TENSOR(x);
  EK_CHECK_NULL(out);
  *out = dtype_is_complex(x->dtype) ? part_view(x, 0) : new_view(x);
  return EK_SUCCESS;
}

EK_API ek_status ek_view_imag(ek_tensor x, ek_tensor *out) {
  EK_API_ENTRY;
  EK_CHECK_TENSOR(x);
  EK_CHECK_NULL(out);
  EK_CHECK(dtype_is_complex(x->dtype), EK_ERROR_DTYPE,
           "imag needs a complex tensor, got %s (a real tensor's imaginary parts are zeros: ek_full)",
           ek_dtype_name(x->dtype));
  *out = part_view(x, 1);
  return EK_SUCCESS;
}

EK_API ek_status ek_conj(ek_stream stream, ek_tensor x, ek_tensor *out) {
  EK_API_ENTRY;
  EK_CHECK_TENSOR(x);
  EK_CHECK_NULL(out);
  EK_PROFILE_OP(nullptr, x->storage->ctx, stream, EK_IN(x), EK_OUT(out));
  if (!dtype_is_complex(x->dtype)) {
    ek_context ctx = x->storage->ctx;
    ek_stream s = nullptr;
    EK_FORWARD(resolve_stream(ctx, stream, &s));
    return fill_out(ctx, s, x->ndim, x->shape, x->dtype, out,
                    [&](ek_tensor o) { return ek_copy(s, x, o); });
  }
  return complex_unary(stream, cx::kConj, x, out);
}

}  // extern "C"

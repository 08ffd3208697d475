// ek_index and ek_index_assign: t[key] and t[key] = value with NumPy's rules
// (as PyTorch), composed of the views and the indexing ops so that one
// implementation serves every backend and every binding.
//
// A key becomes a Plan: its basic part (ints, slices, None, ellipsis) applied
// as one view, and its index tensors in that view's coordinates. Reading:
// one index tensor is one ek_index_select; several broadcast into one linear
// index over the indexed dims (moved first); a mask alone is ek_masked_select,
// otherwise its ek_nonzero columns act as index tensors. The result dims of
// the advanced items go where the first of them was when they are adjacent in
// the key, else first. Writing goes through the view (ek_copy), ek_masked_fill
// or ek_masked_scatter under a mask alone, and ek_index_put otherwise.
#include <cinttypes>
#include <utility>
#include <vector>

#include "core/internal.hpp"
#include "ops/promote.hpp"

namespace ek {
namespace {

using Shape = std::vector<int64_t>;

// An owned tensor handle.
class Ref {
 public:
  Ref() = default;
  explicit Ref(ek_tensor t) : t_(t) {}
  Ref(Ref &&o) noexcept : t_(o.t_) { o.t_ = nullptr; }
  Ref &operator=(Ref &&o) noexcept {
    std::swap(t_, o.t_);
    return *this;
  }
  Ref(const Ref &) = delete;
  Ref &operator=(const Ref &) = delete;
  ~Ref() { ek_tensor_release(t_); }
  ek_tensor get() const { return t_; }
  ek_tensor operator->() const { return t_; }
  ek_tensor *out() { return &t_; }  // for a call that creates it (t_ is NULL)
  ek_tensor take() { return std::exchange(t_, nullptr); }

 private:
  ek_tensor t_ = nullptr;
};

// A library call made from inside ek_index*: its message stays, after ours.
ek_status inner(ek_status st) {
  return st == EK_SUCCESS ? st : fail(st, "%s", last_error_message().c_str());
}
#define EK_INNER(call) EK_FORWARD(inner(call))

Shape shape_of(ek_tensor t) { return Shape(t->shape, t->shape + t->ndim); }
const int64_t *dims_ptr(const Shape &s) {
  static const int64_t none = 0;
  return s.empty() ? &none : s.data();
}
int64_t product(const Shape &s) {
  int64_t n = 1;
  for (int64_t v : s) n *= v;
  return n;
}
Shape concat(Shape a, const Shape &b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// *v = f(*v): a step that replaces v by a new handle (a view or a result).
template <class F>
ek_status step(Ref *v, F f) {
  Ref n;
  EK_INNER(f(v->get(), n.out()));
  *v = std::move(n);
  return EK_SUCCESS;
}
ek_status reshape(ek_stream s, Ref *v, const Shape &shape) {
  if (shape_of(v->get()) == shape) return EK_SUCCESS;
  return step(v, [&](ek_tensor t, ek_tensor *o) {
    return ek_reshape(s, t, static_cast<int>(shape.size()), dims_ptr(shape), o);
  });
}
ek_status permute(Ref *v, const std::vector<int> &perm) {
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i) identity = identity && perm[i] == static_cast<int>(i);
  if (identity) return EK_SUCCESS;
  return step(v, [&](ek_tensor t, ek_tensor *o) {
    return ek_view_permute(t, static_cast<int>(perm.size()), perm.data(), o);
  });
}
// v with its dims [start, start + n) moved to position `to`.
ek_status move_block(Ref *v, int start, int n, int to) {
  std::vector<int> rest, perm;
  for (int i = 0; i < (*v)->ndim; ++i)
    if (i < start || i >= start + n) rest.push_back(i);
  perm.assign(rest.begin(), rest.begin() + to);
  for (int i = 0; i < n; ++i) perm.push_back(start + i);
  perm.insert(perm.end(), rest.begin() + to, rest.end());
  return permute(v, perm);
}
// A view of v with `dims` first; *rest gets the shape of the other dims.
ek_status permute_first(const Ref &v, const std::vector<int> &dims, Ref *out, Shape *rest) {
  std::vector<int> perm(dims);
  for (int i = 0; i < v->ndim; ++i) {
    bool indexed = false;
    for (int d : dims) indexed = indexed || d == i;
    if (!indexed) {
      perm.push_back(i);
      rest->push_back(v->shape[i]);
    }
  }
  *out = Ref(new_view(v.get()));
  return permute(out, perm);
}
ek_status flat(ek_stream s, ek_tensor t, Ref *out) {
  *out = Ref(new_view(t));
  return t->ndim == 1 ? EK_SUCCESS : reshape(s, out, Shape{tensor_numel(t)});
}

// ---- the key: checks

const char *kind_name(int kind) {
  switch (kind) {
#define EK_KIND_NAME_(name, value, text) \
  case value: return text;
    EK_INDEX_KIND_LIST(EK_KIND_NAME_)
#undef EK_KIND_NAME_
  }
  return "unknown";
}

struct KeyInfo {
  int addressed = 0;  // dims of x the items address
  int ellipses = 0;
  bool advanced = false;  // a TENSOR item
};

ek_status check_index_tensor(ek_tensor t, int i, ek_tensor x) {
  EK_CHECK(t, EK_ERROR_NULL_POINTER, "key[%d].tensor is NULL", i);
  EK_FORWARD(check_tensor(t, ("key[" + std::to_string(i) + "].tensor").c_str()));
  EK_CHECK(t->storage->ctx == x->storage->ctx, EK_ERROR_INVALID_ARGUMENT,
           "key[%d].tensor belongs to another context than x", i);
  EK_CHECK(t->dtype == EK_INT64 || t->dtype == EK_INT32 || t->dtype == EK_BOOL, EK_ERROR_DTYPE,
           "key[%d].tensor has dtype %s; an index tensor is int64 or int32, a mask bool", i,
           ek_dtype_name(t->dtype));
  return EK_SUCCESS;
}

ek_status check_item(const ek_index_item &it, int i, ek_tensor x, KeyInfo *k) {
  const int kind = raw_enum(it.kind);
  EK_CHECK(kind >= EK_INDEX_INT && kind <= EK_INDEX_TENSOR, EK_ERROR_INVALID_ARGUMENT,
           "key[%d].kind is %d; expected EK_INDEX_INT, _SLICE, _NONE, _ELLIPSIS or _TENSOR", i,
           kind);
  EK_CHECK(it.reserved_ == 0, EK_ERROR_INVALID_ARGUMENT, "key[%d].reserved_ is %d; must be 0",
           i, static_cast<int>(it.reserved_));
  const bool slice = kind == EK_INDEX_SLICE, tensor = kind == EK_INDEX_TENSOR;
  EK_CHECK((slice || kind == EK_INDEX_INT || it.start == 0) &&
               (slice || (it.stop == 0 && it.step == 0)) && (tensor || it.tensor == nullptr),
           EK_ERROR_INVALID_ARGUMENT,
           "key[%d] (%s) has a nonzero field its kind does not use (must be 0 / NULL)", i,
           kind_name(kind));
  EK_CHECK(!slice || it.step != 0, EK_ERROR_INVALID_ARGUMENT, "key[%d] is a slice with step 0",
           i);
  if (tensor) EK_FORWARD(check_index_tensor(it.tensor, i, x));
  k->advanced = k->advanced || tensor;
  k->ellipses += kind == EK_INDEX_ELLIPSIS;
  if (kind == EK_INDEX_INT || slice) k->addressed += 1;
  if (tensor) k->addressed += it.tensor->dtype == EK_BOOL ? it.tensor->ndim : 1;
  return EK_SUCCESS;
}

ek_status check_key(ek_tensor x, int n, const ek_index_item *key, KeyInfo *k) {
  EK_CHECK(n >= 0, EK_ERROR_INVALID_ARGUMENT, "n is %d; a key has n >= 0 items", n);
  EK_CHECK(n == 0 || key, EK_ERROR_NULL_POINTER, "key is NULL and n is %d", n);
  for (int i = 0; i < n; ++i) EK_FORWARD(check_item(key[i], i, x, k));
  EK_CHECK(k->ellipses <= 1, EK_ERROR_INDEX, "the key has %d ellipses; at most one is allowed",
           k->ellipses);
  EK_CHECK(k->addressed <= x->ndim, EK_ERROR_INDEX,
           "too many indices: the key addresses %d dims; x has %d", k->addressed, x->ndim);
  return EK_SUCCESS;
}

// ---- the key: its plan

struct Adv {
  int dim;      // in the view's coordinates
  ek_tensor t;  // an int32/int64 index, or a bool mask of >= 1 dims
};

struct Plan {
  Ref view;                // x with the basic items applied
  std::vector<Adv> adv;    // index tensors (borrowed from the key or owned below)
  std::vector<Ref> owned;
  int first = -1;          // the view's dim where the first advanced item was
  bool adjacent = true;    // advanced items (ints included) adjacent in the key
  int first_item = -1, last_item = -1, n_items = 0;
};

void note_advanced(Plan *p, int item, int d) {
  if (p->first < 0) {
    p->first = d;
    p->first_item = item;
  }
  p->last_item = item;
  p->n_items++;
}

ek_status select_int(Plan *p, int d, int64_t i, int item) {
  const int64_t size = p->view->shape[d];
  EK_CHECK(i >= -size && i < size, EK_ERROR_INDEX,
           "key[%d] = %" PRId64 " is out of range for a dim of size %" PRId64, item, i, size);
  return step(&p->view, [&](ek_tensor t, ek_tensor *o) { return ek_view_select(t, d, i, o); });
}

ek_status apply_slice(Plan *p, int d, const ek_index_item &it) {
  if (it.start == EK_SLICE_MIN && it.stop == EK_SLICE_MAX && it.step == 1) return EK_SUCCESS;
  return step(&p->view, [&](ek_tensor t, ek_tensor *o) {
    return ek_view_slice(t, d, it.start, it.stop, it.step, o);
  });
}

// A 0-d mask: a new dim of size 1 indexed by [0] (true) or by [] (false).
ek_status zero_d_mask(ek_stream s, Plan *p, ek_tensor mask, int d) {
  uint8_t value = 0;
  EK_INNER(ek_tensor_to_host(s, mask, &value, 1));
  EK_FORWARD(step(&p->view, [&](ek_tensor t, ek_tensor *o) { return ek_view_unsqueeze(t, d, o); }));
  Ref index;
  EK_INNER(ek_arange(s, nullptr, ek_scalar_int(0), ek_scalar_int(value ? 1 : 0), ek_scalar_int(1),
                     EK_INT64, index.out()));
  p->adv.push_back(Adv{d, index.get()});
  p->owned.push_back(std::move(index));
  return EK_SUCCESS;
}

ek_status add_tensor(ek_stream s, Plan *p, ek_tensor t, int item, int *d) {
  if (t->dtype == EK_BOOL && t->ndim == 0) {
    EK_FORWARD(zero_d_mask(s, p, t, *d));
    *d += 1;
    return EK_SUCCESS;
  }
  const int k = t->dtype == EK_BOOL ? t->ndim : 1;
  if (t->dtype == EK_BOOL) {
    const Shape want(p->view->shape + *d, p->view->shape + *d + k);
    EK_CHECK(shape_of(t) == want, EK_ERROR_SHAPE,
             "key[%d] is a mask of shape %s; the dims it indexes have shape %s", item,
             format_shape(t->ndim, t->shape).c_str(),
             format_shape(k, want.data()).c_str());
  }
  p->adv.push_back(Adv{*d, t});
  *d += k;
  return EK_SUCCESS;
}

// The basic items as one view; the tensors noted in its coordinates.
ek_status apply_items(ek_stream s, ek_tensor x, int n, const ek_index_item *key,
                      const KeyInfo &info, Plan *p) {
  p->view = Ref(new_view(x));
  int d = 0;
  for (int i = 0; i < n; ++i) {
    const ek_index_item &it = key[i];
    switch (raw_enum(it.kind)) {
      case EK_INDEX_ELLIPSIS: d += x->ndim - info.addressed; break;
      case EK_INDEX_NONE:
        EK_FORWARD(step(&p->view,
                        [&](ek_tensor t, ek_tensor *o) { return ek_view_unsqueeze(t, d, o); }));
        d += 1;
        break;
      case EK_INDEX_SLICE: EK_FORWARD(apply_slice(p, d++, it)); break;
      case EK_INDEX_INT:
        note_advanced(p, i, d);
        EK_FORWARD(select_int(p, d, it.start, i));
        break;
      default:
        note_advanced(p, i, d);
        EK_FORWARD(add_tensor(s, p, it.tensor, i, &d));
    }
  }
  p->adjacent = p->n_items == 0 || p->last_item - p->first_item + 1 == p->n_items;
  return EK_SUCCESS;
}

bool is_mask(const Adv &a) { return a.t->dtype == EK_BOOL; }

// Masks become their ek_nonzero columns, unless one mask alone keeps its fast path.
ek_status expand_masks(ek_stream s, Plan *p, bool keep_single_mask) {
  if (keep_single_mask && p->adv.size() == 1 && is_mask(p->adv[0])) return EK_SUCCESS;
  std::vector<Adv> out;
  for (const Adv &a : p->adv) {
    if (!is_mask(a)) {
      out.push_back(a);
      continue;
    }
    Ref nz;
    EK_INNER(ek_nonzero(s, a.t, nz.out()));
    for (int j = 0; j < a.t->ndim; ++j) {
      Ref col;
      EK_INNER(ek_view_select(nz.get(), 1, j, col.out()));
      out.push_back(Adv{a.dim + j, col.get()});
      p->owned.push_back(std::move(col));
    }
  }
  p->adv = std::move(out);
  return EK_SUCCESS;
}

ek_status make_plan(ek_stream s, ek_tensor x, int n, const ek_index_item *key,
                    const KeyInfo &info, bool keep_single_mask, Plan *p) {
  EK_FORWARD(apply_items(s, x, n, key, info, p));
  return expand_masks(s, p, keep_single_mask);
}

std::vector<int> adv_dims(const Plan &p) {
  std::vector<int> dims;
  for (const Adv &a : p.adv) dims.push_back(a.dim);
  return dims;
}

// The index tensors' broadcast shape.
ek_status index_shape(const Plan &p, Shape *out) {
  ek_tensor_s acc;  // a stand-in carrying only a shape
  acc.ndim = 0;
  for (const Adv &a : p.adv) {
    ek_tensor_s next;
    EK_FORWARD(broadcast_shapes(&acc, a.t, &next.ndim, next.shape));
    acc.ndim = next.ndim;
    std::copy(next.shape, next.shape + next.ndim, acc.shape);
  }
  *out = Shape(acc.shape, acc.shape + acc.ndim);
  return EK_SUCCESS;
}

// The mask's dims first in *vp, and the mask shaped to broadcast over the rest.
ek_status mask_operands(ek_stream s, const Plan &p, Ref *vp, Ref *mask, Shape *rest) {
  const Adv &a = p.adv[0];
  std::vector<int> dims;
  for (int j = 0; j < a.t->ndim; ++j) dims.push_back(a.dim + j);
  EK_FORWARD(permute_first(p.view, dims, vp, rest));
  *mask = Ref(new_view(a.t));
  return reshape(s, mask, concat(shape_of(a.t), Shape(rest->size(), 1)));
}

ek_status count_true(ek_stream s, ek_tensor mask, int64_t *n) {
  Ref nz;
  EK_INNER(ek_nonzero(s, mask, nz.out()));
  *n = nz->shape[0];
  return EK_SUCCESS;
}

// ---- reading

ek_status get_mask(ek_stream s, const Plan &p, Ref *r) {
  Ref vp, mask;
  Shape rest;
  EK_FORWARD(mask_operands(s, p, &vp, &mask, &rest));
  EK_INNER(ek_masked_select(s, vp.get(), mask.get(), r->out()));
  const int64_t inner_n = product(rest);
  int64_t n = inner_n ? tensor_numel(r->get()) / inner_n : 0;
  if (!inner_n) EK_FORWARD(count_true(s, p.adv[0].t, &n));
  EK_FORWARD(reshape(s, r, concat(Shape{n}, rest)));
  return move_block(r, 0, 1, p.adjacent ? p.adv[0].dim : 0);
}

ek_status get_one(ek_stream s, const Plan &p, Ref *r) {
  const Adv &a = p.adv[0];
  Ref index;
  EK_FORWARD(flat(s, a.t, &index));
  EK_INNER(ek_index_select(s, p.view.get(), a.dim, index.get(), r->out()));
  const Shape v = shape_of(p.view.get());
  Shape shape(v.begin(), v.begin() + a.dim);
  shape = concat(concat(shape, shape_of(a.t)), Shape(v.begin() + a.dim + 1, v.end()));
  EK_FORWARD(reshape(s, r, shape));
  return p.adjacent ? EK_SUCCESS : move_block(r, a.dim, a.t->ndim, 0);
}

// One linear index over the indexed dims (each index checked and made
// non-negative by an ek_index_select of an arange), broadcast together.
ek_status linear_index(ek_stream s, const Plan &p, Ref *lin) {
  for (const Adv &a : p.adv) {
    const int64_t size = p.view->shape[a.dim];
    Ref range, index, norm;
    EK_INNER(ek_arange(s, nullptr, ek_scalar_int(0), ek_scalar_int(size), ek_scalar_int(1),
                       EK_INT64, range.out()));
    EK_FORWARD(flat(s, a.t, &index));
    EK_INNER(ek_index_select(s, range.get(), 0, index.get(), norm.out()));
    EK_FORWARD(reshape(s, &norm, shape_of(a.t)));
    if (!lin->get()) {
      *lin = std::move(norm);
      continue;
    }
    EK_FORWARD(step(lin, [&](ek_tensor t, ek_tensor *o) {
      return ek_binary_scalar(s, EK_BINARY_MUL, t, ek_scalar_int(size), 0, o);
    }));
    EK_FORWARD(step(lin, [&](ek_tensor t, ek_tensor *o) {
      return ek_binary(s, EK_BINARY_ADD, t, norm.get(), o);
    }));
  }
  return EK_SUCCESS;
}

ek_status get_many(ek_stream s, const Plan &p, Ref *r) {
  Shape bshape, rest;
  EK_FORWARD(index_shape(p, &bshape));
  Ref lin, vp, index;
  EK_FORWARD(linear_index(s, p, &lin));
  EK_FORWARD(permute_first(p.view, adv_dims(p), &vp, &rest));
  int64_t n = 1;
  for (const Adv &a : p.adv) n *= p.view->shape[a.dim];
  EK_FORWARD(reshape(s, &vp, concat(Shape{n}, rest)));
  EK_FORWARD(flat(s, lin.get(), &index));
  EK_INNER(ek_index_select(s, vp.get(), 0, index.get(), r->out()));
  EK_FORWARD(reshape(s, r, concat(bshape, rest)));
  const int nb = static_cast<int>(bshape.size());
  return p.adjacent ? move_block(r, 0, nb, p.first) : EK_SUCCESS;
}

// r into *out: handed over when *out is NULL, else copied into it.
ek_status deliver(ek_stream s, Ref *r, ek_tensor *out) {
  if (!*out) {
    *out = r->take();
    return EK_SUCCESS;
  }
  ek_tensor o = *out;
  bool created = false;
  EK_FORWARD(prepare_out((*r)->storage->ctx, s, (*r)->ndim, (*r)->shape, (*r)->dtype, &o,
                         &created));
  EK_INNER(ek_copy(s, r->get(), o));
  return EK_SUCCESS;
}

// ---- writing

// value in x's dtype, never sharing x's memory (x[a] = x[b] reads before writing).
ek_status value_for(ek_stream s, ek_tensor value, ek_tensor x, Ref *out) {
  if (value->dtype != x->dtype || value->storage == x->storage) {
    EK_INNER(ek_cast(s, value, x->dtype, out->out()));
    return EK_SUCCESS;
  }
  *out = Ref(new_view(value));
  return EK_SUCCESS;
}

// value broadcast to the shape x[key] has, its dims reordered as the
// permuted view (indexed dims first): bshape, then the other dims.
ek_status arrange_value(const Plan &p, const Shape &bshape, const Shape &rest, Ref *val) {
  const int nb = static_cast<int>(bshape.size());
  const int before = p.adjacent ? p.first : 0;
  Shape shape(rest.begin(), rest.begin() + before);
  shape = concat(concat(shape, bshape), Shape(rest.begin() + before, rest.end()));
  while ((*val)->ndim > static_cast<int>(shape.size()) && (*val)->shape[0] == 1)
    EK_FORWARD(step(val, [&](ek_tensor t, ek_tensor *o) { return ek_view_select(t, 0, 0, o); }));
  if (shape_of(val->get()) != shape)
    EK_FORWARD(step(val, [&](ek_tensor t, ek_tensor *o) {
      return ek_view_expand(t, static_cast<int>(shape.size()), dims_ptr(shape), o);
    }));
  return move_block(val, before, nb, 0);
}

// A one-element tensor's value, exactly (floats as float64, complex as two, others as int64).
ek_status read_scalar(ek_stream s, ek_tensor t, ek_scalar *v) {
  if (dtype_is_complex(t->dtype)) {
    Ref c;
    EK_INNER(ek_cast(s, t, EK_COMPLEX128, c.out()));
    double z[2] = {0, 0};
    EK_INNER(ek_tensor_to_host(s, c.get(), z, sizeof z));
    *v = ek_scalar_complex(z[0], z[1]);
    return EK_SUCCESS;
  }
  const bool f = dtype_is_float(t->dtype);
  Ref c;
  EK_INNER(ek_cast(s, t, f ? EK_FLOAT64 : EK_INT64, c.out()));
  double d = 0;
  int64_t i = 0;
  EK_INNER(ek_tensor_to_host(s, c.get(), f ? static_cast<void *>(&d) : &i, 8));
  *v = f ? ek_scalar_float(d) : ek_scalar_int(i);
  return EK_SUCCESS;
}

ek_status set_mask(ek_stream s, const Plan &p, ek_tensor value) {
  Ref vp, mask, val;
  Shape rest;
  EK_FORWARD(mask_operands(s, p, &vp, &mask, &rest));
  ek_tensor o = vp.get();
  if (tensor_numel(value) == 1) {
    ek_scalar v{};
    EK_FORWARD(read_scalar(s, value, &v));
    EK_INNER(ek_masked_fill(s, vp.get(), mask.get(), v, &o));
    return EK_SUCCESS;
  }
  int64_t n = 0;
  EK_FORWARD(count_true(s, p.adv[0].t, &n));
  val = Ref(new_view(value));
  EK_FORWARD(arrange_value(p, Shape{n}, rest, &val));
  EK_FORWARD(step(&val, [&](ek_tensor t, ek_tensor *c) { return ek_contiguous(s, t, c); }));
  EK_INNER(ek_masked_scatter(s, vp.get(), mask.get(), val.get(), &o));
  return EK_SUCCESS;
}

ek_status set_indexed(ek_stream s, const Plan &p, ek_tensor value, int accumulate) {
  Shape bshape, rest;
  EK_FORWARD(index_shape(p, &bshape));
  Ref vp, val(new_view(value));
  EK_FORWARD(permute_first(p.view, adv_dims(p), &vp, &rest));
  EK_FORWARD(arrange_value(p, bshape, rest, &val));
  std::vector<ek_tensor> indices;
  for (const Adv &a : p.adv) indices.push_back(a.t);
  ek_tensor o = vp.get();
  EK_INNER(ek_index_put(s, vp.get(), static_cast<int>(indices.size()), indices.data(), val.get(),
                        accumulate, &o));
  return EK_SUCCESS;
}

ek_status set_basic(ek_stream s, const Plan &p, ek_tensor value, ek_tensor x, int accumulate) {
  if (!accumulate) return inner(ek_copy(s, value, p.view.get()));
  Ref val;
  EK_FORWARD(value_for(s, value, x, &val));
  ek_tensor o = p.view.get();
  const ek_binary_op add = x->dtype == EK_BOOL ? EK_BINARY_BITWISE_OR : EK_BINARY_ADD;
  return inner(ek_binary(s, add, p.view.get(), val.get(), &o));
}

ek_status begin(ek_stream stream, ek_tensor x, int n, const ek_index_item *key, KeyInfo *info,
                ek_stream *s) {
  EK_FORWARD(resolve_stream(x->storage->ctx, stream, s));
  return check_key(x, n, key, info);
}

}  // namespace
}  // namespace ek

using namespace ek;

extern "C" {

EK_API ek_status ek_index(ek_stream stream, ek_tensor x, int n, const ek_index_item *key,
                          ek_tensor *out) {
  EK_API_ENTRY;
  EK_CHECK_TENSOR(x);
  EK_CHECK_NULL(out);
  KeyInfo info;
  ek_stream s = nullptr;
  EK_FORWARD(begin(stream, x, n, key, &info, &s));
  Plan p;
  EK_FORWARD(make_plan(s, x, n, key, info, true, &p));
  if (p.adv.empty()) return deliver(s, &p.view, out);
  Ref r;
  if (is_mask(p.adv[0])) EK_FORWARD(get_mask(s, p, &r));
  else if (p.adv.size() == 1) EK_FORWARD(get_one(s, p, &r));
  else EK_FORWARD(get_many(s, p, &r));
  return deliver(s, &r, out);
}

EK_API ek_status ek_index_assign(ek_stream stream, ek_tensor value, int accumulate, ek_tensor x,
                                 int n, const ek_index_item *key) {
  EK_API_ENTRY;
  EK_CHECK_TENSOR(value);
  EK_CHECK_TENSOR(x);
  EK_CHECK(value->storage->ctx == x->storage->ctx, EK_ERROR_INVALID_ARGUMENT,
           "value belongs to another context than x");
  KeyInfo info;
  ek_stream s = nullptr;
  EK_FORWARD(begin(stream, x, n, key, &info, &s));
  Plan p;
  EK_FORWARD(make_plan(s, x, n, key, info, !accumulate, &p));
  if (p.adv.empty()) return set_basic(s, p, value, x, accumulate);
  Ref val;
  EK_FORWARD(value_for(s, value, x, &val));
  if (is_mask(p.adv[0])) return set_mask(s, p, val.get());
  return set_indexed(s, p, val.get(), accumulate);
}

}  // extern "C"

// Joining and rearranging: ek_concat, ek_stack, ek_flip, ek_roll, ek_repeat,
// ek_meshgrid and the views ek_view_split/_split_sizes/_chunk,
// ek_view_moveaxis, ek_broadcast_tensors. Results are compared with host
// references computed index by index (NumPy's definitions), over contiguous,
// transposed, sliced and empty inputs, mixed dtypes, negative dims and given
// outputs; bad arguments fail with a message and write nothing.
#include <cstdint>
#include <functional>
#include <vector>

#include "ek_test.hpp"

using ektest::for_each_index;
using ektest::numel_of;
using ektest::Shape;
using ektest::shape_of;
using ektest::dtype_of;
using ektest::Tensor;
using ektest::Values;
using ektest::values_of;

namespace {

// A C-ordered host array.
struct Host {
  Shape shape;
  Values v;
  double at(const Shape &idx) const {
    int64_t flat = 0;
    for (size_t d = 0; d < shape.size(); ++d) flat = flat * shape[d] + idx[d];
    return v[static_cast<size_t>(flat)];
  }
};

// Values of out_shape where element idx is map(idx).
Values build(const Shape &out_shape, const std::function<double(const Shape &)> &map) {
  Values out;
  for_each_index(out_shape, [&](const Shape &idx) { out.push_back(map(idx)); });
  return out;
}

Values iota(int64_t n, double start = 0) {
  Values v(static_cast<size_t>(n));
  for (size_t i = 0; i < v.size(); ++i) v[i] = start + static_cast<double>(i);
  return v;
}

int64_t mod(int64_t a, int64_t n) { return ((a % n) + n) % n; }

class Join : public ektest::DeviceTest {
 protected:
  // A float32 tensor of shape holding start, start+1, ... and its host twin.
  ek_tensor iota_tensor(const Shape &shape, Host *host, double start = 0, ek_dtype dt = EK_FLOAT32) {
    host->shape = shape;
    host->v = iota(numel_of(shape), start);
    return make(shape, dt, host->v);
  }
  // A transposed (non-contiguous) view of a fresh [cols, rows] tensor: shape [rows, cols].
  ek_tensor transposed_iota(int64_t rows, int64_t cols, Host *host, double start = 0) {
    Host base;
    Tensor t(iota_tensor({cols, rows}, &base, start));
    host->shape = {rows, cols};
    host->v = build(host->shape, [&](const Shape &i) { return base.at({i[1], i[0]}); });
    return ektest::transposed(t, 0, 1);
  }
  void expect(ek_tensor t, const Shape &shape, const Values &values) {
    EXPECT_EQ(shape_of(t), shape);
    EXPECT_EQ(values_of(t), values);
  }
};

// ---------------------------------------------------------------- concat

TEST_P(Join, ConcatAlongEveryDim) {
  Host a, b, c;
  Tensor ta(iota_tensor({2, 3}, &a)), tb(iota_tensor({2, 1}, &b, 100)), tc(transposed_iota(2, 2, &c, 200));
  const ek_tensor xs[] = {ta, tb, tc};
  for (int dim : {1, -1}) {
    Tensor out;
    EK_OK(ek_concat(nullptr, 3, xs, dim, out.out()));
    expect(out, {2, 6}, build({2, 6}, [&](const Shape &i) {
             if (i[1] < 3) return a.at(i);
             if (i[1] < 4) return b.at({i[0], i[1] - 3});
             return c.at({i[0], i[1] - 4});
           }));
  }
  Host d;
  Tensor td(iota_tensor({1, 3}, &d, 50));
  const ek_tensor rows[] = {ta, td, ta};
  Tensor out;
  EK_OK(ek_concat(nullptr, 3, rows, 0, out.out()));
  expect(out, {5, 3}, build({5, 3}, [&](const Shape &i) {
           return i[0] == 2 ? d.at({0, i[1]}) : a.at({i[0] < 2 ? i[0] : i[0] - 3, i[1]});
         }));
}

TEST_P(Join, ConcatPromotesDtypes) {
  struct Case { ek_dtype a, b, want; };
  for (Case c : {Case{EK_INT32, EK_FLOAT16, EK_FLOAT16}, Case{EK_BOOL, EK_UINT8, EK_UINT8},
                 Case{EK_INT8, EK_UINT8, EK_INT16}, Case{EK_FLOAT16, EK_BFLOAT16, EK_FLOAT32},
                 Case{EK_INT64, EK_FLOAT64, EK_FLOAT64}}) {
    Tensor a(make({2}, c.a, {1, 0})), b(make({3}, c.b, {1, 1, 0}));
    const ek_tensor xs[] = {a, b};
    Tensor out;
    EK_OK(ek_concat(nullptr, 2, xs, 0, out.out()));
    EXPECT_EQ(dtype_of(out), c.want) << ek_dtype_name(c.a) << " + " << ek_dtype_name(c.b);
    EXPECT_EQ(values_of(out), (Values{1, 0, 1, 1, 0}));
  }
}

TEST_P(Join, ConcatEmptyInputs) {
  Host a;
  Tensor ta(iota_tensor({2, 3}, &a)), legacy(make({0}, EK_FLOAT64, {})), empty_rows(make({0, 3}, EK_FLOAT32, {}));
  // torch.cat skips 1-D empties whatever the others' shape; they still promote.
  const ek_tensor xs[] = {legacy, ta, empty_rows};
  Tensor out;
  EK_OK(ek_concat(nullptr, 3, xs, 0, out.out()));
  EXPECT_EQ(dtype_of(out), EK_FLOAT64);
  expect(out, {2, 3}, a.v);
  const ek_tensor only_empty[] = {legacy, legacy};
  Tensor e;
  EK_OK(ek_concat(nullptr, 2, only_empty, 0, e.out()));
  EXPECT_EQ(shape_of(e), (Shape{0}));
  Tensor z1(make({2, 0}, EK_FLOAT32, {})), z2(make({2, 0}, EK_FLOAT32, {}));
  const ek_tensor zs[] = {z1, z2};
  Tensor ze;
  EK_OK(ek_concat(nullptr, 2, zs, 0, ze.out()));
  EXPECT_EQ(shape_of(ze), (Shape{4, 0}));
}

TEST_P(Join, ConcatIntoGivenOut) {
  Host a;
  Tensor ta(iota_tensor({2, 2}, &a));
  const ek_tensor xs[] = {ta, ta};
  Tensor big(make({4, 3}, EK_FLOAT32, Values(12, -1)));
  Tensor slot(ektest::sliced(big, 1, 0, 2, 1));  // a strided out: [4, 2] of [4, 3]
  ek_tensor o = slot;
  EK_OK(ek_concat(nullptr, 2, xs, 0, &o));
  EXPECT_EQ(values_of(big), (Values{0, 1, -1, 2, 3, -1, 0, 1, -1, 2, 3, -1}));
  Tensor wrong(make({4, 3}, EK_FLOAT32, Values(12, 0)));
  ek_tensor w = wrong;
  EK_FAILS(ek_concat(nullptr, 2, xs, 0, &w), EK_ERROR_SHAPE, "expected [4,2]");
  Tensor half(make({2, 3}, EK_FLOAT32, Values(6, 0)));
  ek_tensor h = half;
  Tensor row(ektest::sliced(half, 0, 0, 1, 1));
  const ek_tensor with_out[] = {row, row};
  EK_FAILS(ek_concat(nullptr, 2, with_out, 0, &h), EK_ERROR_INVALID_ARGUMENT, "overlaps xs[0]");
  EXPECT_EQ(values_of(half), Values(6, 0));
}

TEST_P(Join, ConcatErrors) {
  Tensor a(make({2, 3}, EK_FLOAT32, Values(6, 1))), b(make({2, 4}, EK_FLOAT32, Values(8, 1)));
  Tensor s(make({}, EK_FLOAT32, {1}));
  const ek_tensor xs[] = {a, b};
  Tensor out;
  EK_FAILS(ek_concat(nullptr, 0, xs, 0, out.out()), EK_ERROR_INVALID_ARGUMENT, "ek_concat: n is 0");
  EK_FAILS(ek_concat(nullptr, 2, nullptr, 0, out.out()), EK_ERROR_NULL_POINTER, "xs is NULL");
  EK_FAILS(ek_concat(nullptr, 2, xs, 0, out.out()), EK_ERROR_SHAPE,
           "xs[1] has shape [2,4] but xs[0] has [2,3]: they must match outside dim 0");
  EK_FAILS(ek_concat(nullptr, 2, xs, 2, out.out()), EK_ERROR_INDEX, "dim 2 is out of range");
  const ek_tensor scalars[] = {s, s};
  EK_FAILS(ek_concat(nullptr, 2, scalars, 0, out.out()), EK_ERROR_SHAPE, "0-d");
  const ek_tensor with_null[] = {a, nullptr};
  EK_FAILS(ek_concat(nullptr, 2, with_null, 0, out.out()), EK_ERROR_NULL_POINTER, "xs[1]");
  EK_FAILS(ek_concat(nullptr, 2, xs, 1, nullptr), EK_ERROR_NULL_POINTER, "out is NULL");
  EXPECT_EQ(out.t, nullptr);
}

// ---------------------------------------------------------------- stack

TEST_P(Join, StackAtEveryPosition) {
  Host a, b;
  Tensor ta(iota_tensor({2, 3}, &a)), tb(transposed_iota(2, 3, &b, 10));
  const ek_tensor xs[] = {ta, tb};
  const Host *hs[] = {&a, &b};
  for (int dim : {0, 1, 2, -1, -3}) {
    const int d = dim < 0 ? dim + 3 : dim;
    Shape shape = {2, 3};
    shape.insert(shape.begin() + d, 2);
    Tensor out;
    EK_OK(ek_stack(nullptr, 2, xs, dim, out.out()));
    expect(out, shape, build(shape, [&](const Shape &i) {
             Shape rest = i;
             rest.erase(rest.begin() + d);
             return hs[i[static_cast<size_t>(d)]]->at(rest);
           }));
  }
  Tensor i8(make({2, 3}, EK_INT8, Values(6, -2)));
  const ek_tensor mixed[] = {ta, i8};
  Tensor m;
  EK_OK(ek_stack(nullptr, 2, mixed, 0, m.out()));
  EXPECT_EQ(dtype_of(m), EK_FLOAT32);
  Tensor e(make({0, 2}, EK_INT32, {}));
  const ek_tensor empties[] = {e, e, e};
  Tensor es;
  EK_OK(ek_stack(nullptr, 3, empties, 1, es.out()));
  EXPECT_EQ(shape_of(es), (Shape{0, 3, 2}));
}

TEST_P(Join, StackErrors) {
  Tensor a(make({2, 3}, EK_FLOAT32, Values(6, 1))), b(make({3, 2}, EK_FLOAT32, Values(6, 1)));
  const ek_tensor xs[] = {a, b};
  Tensor out;
  EK_FAILS(ek_stack(nullptr, 2, xs, 0, out.out()), EK_ERROR_SHAPE,
           "ek_stack: xs[1] has shape [3,2] but xs[0] has [2,3]");
  EK_FAILS(ek_stack(nullptr, 1, xs, 3, out.out()), EK_ERROR_INDEX, "dim 3 is out of range [-3, 2]");
}

// ---------------------------------------------------------------- flip

TEST_P(Join, FlipDims) {
  Host a, t;
  Tensor ta(iota_tensor({2, 3, 4}, &a)), tt(transposed_iota(3, 5, &t));
  struct Case { std::vector<int> dims; };
  for (const std::vector<int> &dims : {std::vector<int>{0}, {-1}, {0, 2}, {1, 0, -1}, {}}) {
    Tensor out;
    EK_OK(ek_flip(nullptr, ta, static_cast<int>(dims.size()), dims.data(), out.out()));
    bool f[3] = {};
    for (int d : dims) f[d < 0 ? d + 3 : d] = true;
    expect(out, a.shape, build(a.shape, [&](const Shape &i) {
             Shape j = i;
             for (int d = 0; d < 3; ++d)
               if (f[d]) j[d] = a.shape[d] - 1 - i[d];
             return a.at(j);
           }));
  }
  const int d1[] = {1};
  Tensor out;
  EK_OK(ek_flip(nullptr, tt, 1, d1, out.out()));
  expect(out, {3, 5}, build({3, 5}, [&](const Shape &i) { return t.at({i[0], 4 - i[1]}); }));
  Tensor e(make({0, 3}, EK_FLOAT32, {}));
  const int both[] = {0, 1};
  Tensor fe;
  EK_OK(ek_flip(nullptr, e, 2, both, fe.out()));
  EXPECT_EQ(shape_of(fe), (Shape{0, 3}));
  const int twice[] = {0, -3};
  Tensor bad;
  EK_FAILS(ek_flip(nullptr, ta, 2, twice, bad.out()), EK_ERROR_INVALID_ARGUMENT,
           "ek_flip: dim 0 appears twice in dims");
  const int far[] = {3};
  EK_FAILS(ek_flip(nullptr, ta, 1, far, bad.out()), EK_ERROR_INDEX, "dims 3 is out of range");
}

// ---------------------------------------------------------------- roll

TEST_P(Join, RollAlongDims) {
  Host a, t;
  Tensor ta(iota_tensor({3, 4}, &a)), tt(transposed_iota(3, 4, &t));
  struct Case { std::vector<int64_t> shifts; std::vector<int> dims; };
  for (const Case &c : {Case{{1}, {0}}, Case{{-1}, {1}}, Case{{5, -7}, {-1, 0}},
                        Case{{2, 1}, {1, 1}}, Case{{0}, {0}}, Case{{4}, {1}}}) {
    int64_t sh[2] = {0, 0};
    for (size_t k = 0; k < c.dims.size(); ++k) sh[c.dims[k] < 0 ? c.dims[k] + 2 : c.dims[k]] += c.shifts[k];
    for (const Host *h : {&a, &t}) {
      Tensor out;
      EK_OK(ek_roll(nullptr, h == &a ? ta.t : tt.t, static_cast<int>(c.shifts.size()),
                    c.shifts.data(), c.dims.data(), out.out()));
      expect(out, {3, 4}, build({3, 4}, [&](const Shape &i) {
               return h->at({mod(i[0] - sh[0], 3), mod(i[1] - sh[1], 4)});
             }));
    }
  }
}

TEST_P(Join, RollFlattened) {
  Host a, t;
  Tensor ta(iota_tensor({3, 4}, &a)), tt(transposed_iota(3, 4, &t));
  for (int64_t shift : {1, -5, 13, 0}) {
    for (const Host *h : {&a, &t}) {
      Tensor out;
      EK_OK(ek_roll(nullptr, h == &a ? ta.t : tt.t, 1, &shift, nullptr, out.out()));
      expect(out, {3, 4}, build({3, 4}, [&](const Shape &i) { return h->v[mod(i[0] * 4 + i[1] - shift, 12)]; }));
    }
  }
  // Into a non-contiguous out.
  Tensor big(make({4, 3}, EK_FLOAT32, Values(12, 0)));
  Tensor view(ektest::transposed(big, 0, 1));
  ek_tensor o = view;
  const int64_t shift = 2;
  EK_OK(ek_roll(nullptr, ta, 1, &shift, nullptr, &o));
  expect(view, {3, 4}, build({3, 4}, [&](const Shape &i) { return a.v[mod(i[0] * 4 + i[1] - 2, 12)]; }));
  Tensor e(make({0, 2}, EK_FLOAT32, {}));
  Tensor re;
  EK_OK(ek_roll(nullptr, e, 1, &shift, nullptr, re.out()));
  const int d0 = 0;
  Tensor re2;
  EK_OK(ek_roll(nullptr, e, 1, &shift, &d0, re2.out()));
  EXPECT_EQ(shape_of(re2), (Shape{0, 2}));
}

TEST_P(Join, RollErrors) {
  Tensor a(make({2, 3}, EK_FLOAT32, Values(6, 1)));
  const int64_t shifts[] = {1, 2};
  const int dims[] = {0, 2};
  Tensor out;
  EK_FAILS(ek_roll(nullptr, a, 2, shifts, nullptr, out.out()), EK_ERROR_INVALID_ARGUMENT,
           "ek_roll: dims is NULL (a flattened roll) but nshifts is 2");
  EK_FAILS(ek_roll(nullptr, a, 2, shifts, dims, out.out()), EK_ERROR_INDEX, "dim 2 is out of range");
  EK_FAILS(ek_roll(nullptr, a, 0, shifts, dims, out.out()), EK_ERROR_INVALID_ARGUMENT, "nshifts 0");
}

// ---------------------------------------------------------------- repeat

TEST_P(Join, RepeatTiles) {
  Host a, t;
  Tensor ta(iota_tensor({2, 3}, &a)), tt(transposed_iota(2, 3, &t));
  struct Case { std::vector<int64_t> reps; };
  for (const std::vector<int64_t> &reps :
       {std::vector<int64_t>{2, 1}, {1, 3}, {2, 2, 2}, {3}, {0, 2}, {1, 1}, {}}) {
    for (const Host *h : {&a, &t}) {
      const size_t nd = reps.size() > 2 ? reps.size() : 2;
      Shape r(nd, 1), x(nd, 1), shape(nd);
      for (size_t i = 0; i < reps.size(); ++i) r[nd - reps.size() + i] = reps[i];
      x[nd - 2] = 2;
      x[nd - 1] = 3;
      for (size_t i = 0; i < nd; ++i) shape[i] = r[i] * x[i];
      Tensor out;
      EK_OK(ek_repeat(nullptr, h == &a ? ta.t : tt.t, static_cast<int>(reps.size()), reps.data(),
                      out.out()));
      expect(out, shape, build(shape, [&](const Shape &i) {
               return h->at({i[nd - 2] % 2, i[nd - 1] % 3});
             }));
    }
  }
}

TEST_P(Join, RepeatManyDims) {
  // x padded to [1,2,1,3,2,2]: three dims split in two, nine copy dims, more
  // than one copy descriptor holds.
  Host a;
  const Shape xs = {2, 1, 3, 2, 2};
  Tensor ta(iota_tensor(xs, &a));
  const int64_t reps[] = {2, 3, 2, 1, 2, 2};
  const Shape shape = {2, 6, 2, 3, 4, 4};
  Tensor out;
  EK_OK(ek_repeat(nullptr, ta, 6, reps, out.out()));
  expect(out, shape, build(shape, [&](const Shape &i) {
           return a.at({i[1] % 2, 0, i[3], i[4] % 2, i[5] % 2});
         }));
  Tensor s(make({}, EK_INT16, {7}));
  const int64_t two[] = {2, 3};
  Tensor rs;
  EK_OK(ek_repeat(nullptr, s, 2, two, rs.out()));
  expect(rs, {2, 3}, Values(6, 7));
  const int64_t neg[] = {-1};
  Tensor bad;
  EK_FAILS(ek_repeat(nullptr, s, 1, neg, bad.out()), EK_ERROR_INVALID_ARGUMENT,
           "ek_repeat: repeats[0] is -1");
  EK_FAILS(ek_repeat(nullptr, s, 1, nullptr, bad.out()), EK_ERROR_NULL_POINTER, "repeats is NULL");
}

// ---------------------------------------------------------------- split, chunk

std::vector<Shape> piece_shapes(const std::vector<ek_tensor> &pieces) {
  std::vector<Shape> out;
  for (ek_tensor p : pieces) out.push_back(shape_of(p));
  return out;
}

TEST_P(Join, SplitTwoPhase) {
  Host a;
  Tensor ta(iota_tensor({5, 2}, &a));
  int64_t count = -1;
  EK_OK(ek_view_split(ta, -2, 2, 0, nullptr, &count));
  ASSERT_EQ(count, 3);
  std::vector<ek_tensor> pieces(3);
  EK_FAILS(ek_view_split(ta, 0, 2, 2, pieces.data(), &count), EK_ERROR_INVALID_ARGUMENT,
           "capacity 2 is less than the 3 pieces");
  EK_OK(ek_view_split(ta, 0, 2, 3, pieces.data(), &count));
  EXPECT_EQ(piece_shapes(pieces), (std::vector<Shape>{{2, 2}, {2, 2}, {1, 2}}));
  EXPECT_EQ(values_of(pieces[2]), (Values{8, 9}));
  EXPECT_EQ(values_of(pieces[1]), (Values{4, 5, 6, 7}));
  for (ek_tensor p : pieces) ek_tensor_release(p);
  Tensor e(make({0, 2}, EK_FLOAT32, {}));
  EK_OK(ek_view_split(e, 0, 0, 0, nullptr, &count));
  EXPECT_EQ(count, 1);
  EK_FAILS(ek_view_split(ta, 0, 0, 0, nullptr, &count), EK_ERROR_INVALID_ARGUMENT,
           "ek_view_split: split_size 0 for dim 0 of size 5");
  Tensor s(make({}, EK_FLOAT32, {1}));
  EK_FAILS(ek_view_split(s, 0, 1, 0, nullptr, &count), EK_ERROR_SHAPE, "0-d");
}

TEST_P(Join, SplitSizesAndChunk) {
  Host t;
  Tensor tt(transposed_iota(2, 5, &t));  // split along the non-contiguous dim 1
  const int64_t sizes[] = {1, 0, 4};
  std::vector<ek_tensor> pieces(3);
  EK_OK(ek_view_split_sizes(tt, 1, 3, sizes, pieces.data()));
  EXPECT_EQ(piece_shapes(pieces), (std::vector<Shape>{{2, 1}, {2, 0}, {2, 4}}));
  EXPECT_EQ(values_of(pieces[2]), build({2, 4}, [&](const Shape &i) { return t.at({i[0], i[1] + 1}); }));
  for (ek_tensor p : pieces) ek_tensor_release(p);
  const int64_t bad_sizes[] = {1, 2};
  EK_FAILS(ek_view_split_sizes(tt, 1, 2, bad_sizes, pieces.data()), EK_ERROR_SHAPE,
           "the 2 sizes add up to 3, but dim 1 has size 5");
  int64_t count = 0;
  EK_OK(ek_view_chunk(tt, -1, 4, 0, nullptr, &count));
  EXPECT_EQ(count, 3);  // 5 in 4 chunks: 2, 2, 1
  pieces.assign(4, nullptr);
  EK_OK(ek_view_chunk(tt, -1, 4, 4, pieces.data(), &count));
  EXPECT_EQ(piece_shapes({pieces[0], pieces[1], pieces[2]}), (std::vector<Shape>{{2, 2}, {2, 2}, {2, 1}}));
  EXPECT_EQ(pieces[3], nullptr);
  EXPECT_EQ(values_of(pieces[2]), (Values{t.at({0, 4}), t.at({1, 4})}));
  for (ek_tensor p : pieces) ek_tensor_release(p);
  Tensor e(make({3, 0}, EK_FLOAT32, {}));
  EK_OK(ek_view_chunk(e, 1, 3, 0, nullptr, &count));
  EXPECT_EQ(count, 3);
  EK_FAILS(ek_view_chunk(e, 1, 0, 0, nullptr, &count), EK_ERROR_INVALID_ARGUMENT,
           "ek_view_chunk: chunks is 0");
}

// ---------------------------------------------------------------- moveaxis, broadcast

TEST_P(Join, Moveaxis) {
  Host a;
  Tensor ta(iota_tensor({2, 3, 4}, &a));
  const int src[] = {0}, dst[] = {-1};
  Tensor v;
  EK_OK(ek_view_moveaxis(ta, 1, src, dst, v.out()));
  expect(v, {3, 4, 2}, build({3, 4, 2}, [&](const Shape &i) { return a.at({i[2], i[0], i[1]}); }));
  const int src2[] = {2, 0}, dst2[] = {0, 1};
  Tensor w;
  EK_OK(ek_view_moveaxis(ta, 2, src2, dst2, w.out()));
  expect(w, {4, 2, 3}, build({4, 2, 3}, [&](const Shape &i) { return a.at({i[1], i[2], i[0]}); }));
  const int twice[] = {0, 0};
  Tensor bad;
  EK_FAILS(ek_view_moveaxis(ta, 2, twice, dst2, bad.out()), EK_ERROR_INVALID_ARGUMENT,
           "ek_view_moveaxis: dim 0 appears twice in src");
}

TEST_P(Join, BroadcastTensors) {
  Host a, b;
  Tensor ta(iota_tensor({3, 1}, &a)), tb(iota_tensor({4}, &b, 10)), s(make({}, EK_INT32, {5}));
  const ek_tensor xs[] = {ta, tb, s};
  ek_tensor outs[3] = {};
  EK_OK(ek_broadcast_tensors(3, xs, outs));
  expect(outs[0], {3, 4}, build({3, 4}, [&](const Shape &i) { return a.at({i[0], 0}); }));
  expect(outs[1], {3, 4}, build({3, 4}, [&](const Shape &i) { return b.at({i[1]}); }));
  expect(outs[2], {3, 4}, Values(12, 5));
  EXPECT_EQ(dtype_of(outs[2]), EK_INT32);
  for (ek_tensor o : outs) ek_tensor_release(o);
  Tensor c(make({3}, EK_FLOAT32, {1, 2, 3}));
  const ek_tensor clash[] = {ta, tb, c};
  EK_FAILS(ek_broadcast_tensors(3, clash, outs), EK_ERROR_SHAPE,
           "ek_broadcast_tensors: xs[2] of shape [3] does not broadcast with the shape [3,4]");
}

// ---------------------------------------------------------------- meshgrid

TEST_P(Join, Meshgrid) {
  Host x, y;
  Tensor tx(iota_tensor({3}, &x)), ty(iota_tensor({2}, &y, 10));
  Tensor strided_y(ektest::sliced(ty, 0, EK_SLICE_MAX, EK_SLICE_MIN, -1));  // 11, 10
  const ek_tensor xs[] = {tx, strided_y};
  ek_tensor ij[2] = {};
  EK_OK(ek_meshgrid(nullptr, 2, xs, EK_MESHGRID_IJ, ij));
  expect(ij[0], {3, 2}, {0, 0, 1, 1, 2, 2});
  expect(ij[1], {3, 2}, {11, 10, 11, 10, 11, 10});
  ek_tensor xy[2] = {};
  EK_OK(ek_meshgrid(nullptr, 2, xs, EK_MESHGRID_XY, xy));
  expect(xy[0], {2, 3}, {0, 1, 2, 0, 1, 2});
  expect(xy[1], {2, 3}, {11, 11, 11, 10, 10, 10});
  for (ek_tensor t : {ij[0], ij[1], xy[0], xy[1]}) ek_tensor_release(t);
  Tensor e(make({0}, EK_FLOAT32, {}));
  const ek_tensor with_empty[] = {tx, e};
  ek_tensor es[2] = {};
  EK_OK(ek_meshgrid(nullptr, 2, with_empty, EK_MESHGRID_IJ, es));
  EXPECT_EQ(shape_of(es[0]), (Shape{3, 0}));
  for (ek_tensor t : es) ek_tensor_release(t);
  Tensor i32(make({2}, EK_INT32, {1, 2}));
  const ek_tensor mixed[] = {tx, i32};
  ek_tensor bad[2] = {};
  EK_FAILS(ek_meshgrid(nullptr, 2, mixed, EK_MESHGRID_IJ, bad), EK_ERROR_DTYPE,
           "ek_meshgrid: xs[1] is int32 but xs[0] is float32");
  Tensor m(make({2, 2}, EK_FLOAT32, Values(4, 0)));
  const ek_tensor matrix[] = {tx, m};
  EK_FAILS(ek_meshgrid(nullptr, 2, matrix, EK_MESHGRID_IJ, bad), EK_ERROR_SHAPE, "1-D");
  // A given out of the wrong shape after a fresh one: the fresh one is released.
  Tensor wrong(make({2, 3}, EK_FLOAT32, Values(6, 0)));
  ek_tensor given[2] = {nullptr, wrong};
  EK_FAILS(ek_meshgrid(nullptr, 2, xs, EK_MESHGRID_IJ, given), EK_ERROR_SHAPE, "expected [3,2]");
  EXPECT_EQ(given[0], nullptr);
  EK_FAILS(ek_meshgrid(nullptr, 2, xs, static_cast<ek_meshgrid_indexing>(7), bad),
           EK_ERROR_INVALID_ARGUMENT, "unknown indexing 7");
}

EK_INSTANTIATE_DEVICES(Join);

}  // namespace
